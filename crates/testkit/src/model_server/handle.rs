//! How the scripted model server answers a request: record it, pick its turn, stream the
//! turn in the protocol of the path it came to.

use super::*;

#[derive(Clone, Copy)]
pub(super) enum Protocol {
    OpenAi,
    Anthropic,
    Responses,
}

/// The text of the first user message of a request of either protocol (empty when none).
pub(super) fn first_user_text(body: &Value) -> String {
    let sent = SentRequest::from_body(body);
    sent.messages
        .iter()
        .find(|m| m.role == "user")
        .map(|m| {
            m.items
                .iter()
                .filter_map(|i| match i {
                    SentItem::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// Streams `frames` one by one, yielding between them so each is written before the next (and
/// before a cut, which aborts the connection with no terminating chunk). A pause frame is not
/// sent: the stream waits there as `pause` says (or until the server stops).
fn frames_body(
    frames: Vec<String>,
    cut: bool,
    pause: Option<Pause>,
    shared: Arc<Shared>,
    n: usize,
) -> Body {
    let stop = shared.stop.clone();
    let mut items: VecDeque<Result<String, std::io::Error>> = frames.into_iter().map(Ok).collect();
    if cut {
        items.push_back(Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionAborted,
            "scripted cut: the turn ends mid-stream",
        )));
    }
    Body::from_stream(futures::stream::unfold(
        (items, 0),
        move |(mut items, mut paused)| {
            let pause = pause.clone();
            let stop = stop.clone();
            let shared = shared.clone();
            async move {
                tokio::task::yield_now().await;
                let Some(mut item) = items.pop_front() else {
                    lock(&shared.ends).push((n, Instant::now()));
                    return None;
                };
                while matches!(&item, Ok(f) if f == wire::PAUSE_FRAME) {
                    if let Some(pause) = &pause {
                        tokio::select! { () = pause.wait(paused) => {} () = stop.cancelled() => {} }
                    }
                    paused += 1;
                    item = items.pop_front()?;
                }
                Some((item, (items, paused)))
            }
        },
    ))
}

/// Counts a hanging response as released when its body is dropped.
struct HangGuard(Arc<Shared>);

impl Drop for HangGuard {
    fn drop(&mut self) {
        self.0.hangs_released.fetch_add(1, Ordering::SeqCst);
    }
}

async fn hang(shared: Arc<Shared>) -> Result<String, std::io::Error> {
    let stop = shared.stop.clone();
    let _guard = HangGuard(shared);
    stop.cancelled().await;
    Err(std::io::Error::other("the scripted model server stopped"))
}

fn sse(body: Body) -> Response {
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

fn status(code: u16, text: String) -> Response {
    let Ok(code) = StatusCode::from_u16(code) else {
        return error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("scripted status {code} is not a valid HTTP status"),
        );
    };
    let kind = if serde_json::from_str::<Value>(&text).is_ok() {
        "application/json"
    } else {
        "text/plain; charset=utf-8"
    };
    (code, [(header::CONTENT_TYPE, kind)], text).into_response()
}

fn error(code: StatusCode, message: String) -> Response {
    let body = json!({"error": {"type": "scripted_model_server", "message": message}});
    (
        code,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// Answers one request: records it, picks its turn, and streams the turn in the request's
/// protocol.
pub(super) async fn handle(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().to_string();
    let body = serde_json::from_slice(&body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()));
    let n = record(&shared, &path, &headers, &body);
    let protocol = match path.as_str() {
        OPENAI_PATH => Protocol::OpenAi,
        ANTHROPIC_PATH => Protocol::Anthropic,
        RESPONSES_PATH => Protocol::Responses,
        _ => {
            return error(
                StatusCode::NOT_FOUND,
                format!(
                    "the scripted model server serves POST {OPENAI_PATH}, {ANTHROPIC_PATH} and {RESPONSES_PATH}, not {path}"
                ),
            );
        }
    };
    let anthropic = matches!(protocol, Protocol::Anthropic);
    let cached = match cache::account(&shared.cache, anthropic, &body) {
        Ok(cached) => cached,
        Err(message) => return error(StatusCode::BAD_REQUEST, message),
    };
    match next_turn(&shared, n, &path, &body) {
        Ok(turn) => answer(&shared, protocol, turn, &body, n, cached),
        Err(refusal) => *refusal,
    }
}

/// Logs the request; returns its number (from 1).
fn record(shared: &Shared, path: &str, headers: &HeaderMap, body: &Value) -> usize {
    let mut log = lock(&shared.log);
    log.push(RecordedRequest {
        path: path.to_string(),
        headers: headers
            .iter()
            .map(|(k, v)| {
                let value = String::from_utf8_lossy(v.as_bytes()).into_owned();
                (k.as_str().to_string(), value)
            })
            .collect(),
        body: body.clone(),
    });
    log.len()
}

/// The turn that answers request `n`: the responder's, else a route's, else a standing rule's,
/// else the script's next; an exhausted route or script is a 500 saying what to add.
fn next_turn(shared: &Shared, n: usize, path: &str, body: &Value) -> Result<Turn, Box<Response>> {
    let text = body.to_string();
    let ruled = lock(&shared.rules)
        .iter()
        .find(|(needle, _)| text.contains(needle.as_str()))
        .map(|(_, turn)| turn.clone());
    let responder = lock(&shared.responder).clone();
    let responded = responder.and_then(|f| f(n, body));
    let first_user = first_user_text(body);
    let routed = if responded.is_some() {
        None
    } else {
        let mut routes = lock(&shared.routes);
        routes
            .iter_mut()
            .find(|r| first_user.contains(&r.key))
            .map(|r| (r.key.clone(), r.scripted, r.turns.pop_front()))
    };
    let next = match routed {
        Some((_, _, Some(turn))) => Some(turn),
        Some((key, total, None)) => {
            return Err(Box::new(error(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!(
                    "scripted model server: the route for first user messages containing {key:?} is exhausted; request #{n} has no turn (the route had {total}); add a Turn to that route"
                ),
            )));
        }
        None => responded
            .or(ruled)
            .or_else(|| lock(&shared.script).pop_front()),
    };
    next.ok_or_else(|| {
        let total = shared.scripted.load(Ordering::SeqCst);
        Box::new(error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!(
                "scripted model server: the script is exhausted; request #{n} to {path} has no turn (the script had {total}); add a Turn for every model request the test makes"
            ),
        ))
    })
}

/// The input tokens a response reports: a fixed count, or the conversation's size when the
/// test asked for it (`count_input_tokens`).
fn input_tokens(shared: &Shared, body: &Value) -> u64 {
    match shared.bytes_per_token.load(Ordering::SeqCst) {
        0 => USAGE_INPUT_TOKENS,
        // The conversation is `input` in a Responses body.
        per => {
            (body
                .get("input")
                .unwrap_or(&body["messages"])
                .to_string()
                .len()
                / per) as u64
        }
    }
}

/// Streams (or answers with) `turn` in `protocol`.
fn answer(
    shared: &Arc<Shared>,
    protocol: Protocol,
    turn: Turn,
    body: &Value,
    n: usize,
    cached: Option<cache::Accounted>,
) -> Response {
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("scripted");
    let input_tokens = input_tokens(shared, body);
    match turn {
        Turn::Status(code, text) => status(code, text),
        Turn::RateLimited { retry_after_secs } => (
            StatusCode::TOO_MANY_REQUESTS,
            [(header::RETRY_AFTER, retry_after_secs.to_string())],
            "rate limited by the script",
        )
            .into_response(),
        Turn::Hang => sse(Body::from_stream(futures::stream::once(hang(
            shared.clone(),
        )))),
        Turn::Recorded(recording) => {
            let frames = recording.frames(protocol);
            sse(frames_body(frames, false, None, shared.clone(), n))
        }
        turn => {
            let (pieces, cut) = script::pieces(&turn);
            let frames = match protocol {
                Protocol::OpenAi => {
                    let usage = body
                        .pointer("/stream_options/include_usage")
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    wire::openai(&pieces, model, n, usage, input_tokens)
                }
                Protocol::Anthropic => wire::anthropic(&pieces, model, n, input_tokens),
                Protocol::Responses => responses::frames(&pieces, model, n, input_tokens),
            };
            let frames = cache::reported(cached, frames);
            let pause = match &turn {
                Turn::Paced { pause, .. } => Some(pause.clone()),
                _ => None,
            };
            sse(frames_body(frames, cut, pause, shared.clone(), n))
        }
    }
}
