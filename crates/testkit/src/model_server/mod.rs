//! A scripted model server for tests: real HTTP on 127.0.0.1 speaking the streaming protocols
//! the providers use — OpenAI chat completions (`POST /v1/chat/completions`), Anthropic
//! Messages (`POST /v1/messages`) and OpenAI Responses (`POST /v1/responses`, same base URL
//! as chat completions) — and answering each request with the next [`Turn`] of its
//! script. Every request is recorded so tests can assert what the client sent (tool schemas,
//! tool results, headers), read back into one neutral shape ([`SentRequest`]) and rendered
//! readably for snapshots ([`ModelServer::rendered`]).
//!
//! A turn may also be a real vendor's recorded stream, served verbatim ([`Turn::Recorded`] with
//! a [`Recording`]).
//!
//! Requests of subagent sessions can follow scripts of their own: [`ModelServer::route`] gives
//! every request whose first user message contains a given text its own queue of turns, so a
//! parent and its children, running at the same time, each get the answers meant for them.
//!
//! A simulated prompt cache that follows Anthropic's rules ([`ModelServer::simulate_cache`])
//! makes responses report cache reads and writes, so tests can measure what caching saves.
//!
//! The server runs on its own thread and runtime, so it works from plain `#[test]`s, from
//! `#[tokio::test]`s and for child processes alike; it stops when dropped.
//!
//! ```ignore
//! let server = ModelServer::start(vec![Turn::tool_call("c1", "read", r#"{"filePath":"a"}"#), Turn::text("done")]);
//! // point OPENAI_BASE_URL at server.url() or ANTHROPIC_BASE_URL at server.anthropic_url()
//! assert_eq!(server.sent()[1].results()[0].0, "c1");
//! insta::assert_snapshot!(server.rendered());
//! ```

mod cache;
mod recorded;
mod responses;
mod script;
mod sent;
mod wire;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

pub use cache::{CacheRules, CacheUsage, MAX_BREAKPOINTS};
pub use recorded::Recording;
pub use responses::{RESPONSES_CACHED_TOKENS, RESPONSES_PATH, RESPONSES_REASONING_TOKENS};
pub use script::{Gate, Pause, ScriptedCall, Turn, call};
pub use sent::{SentItem, SentMessage, SentRequest, render_requests};
pub use wire::{USAGE_INPUT_TOKENS, USAGE_OUTPUT_TOKENS};

/// The OpenAI-style endpoint path.
pub const OPENAI_PATH: &str = "/v1/chat/completions";
/// The Anthropic-style endpoint path.
pub const ANTHROPIC_PATH: &str = "/v1/messages";

/// How long open connections get to finish after the server is dropped.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(500);

/// One request the server received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    pub path: String,
    /// Header names in lower case, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (a JSON string holding the raw text when it was not JSON).
    pub body: Value,
}

impl RecordedRequest {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A script for the requests whose first user message contains `key`.
struct Route {
    key: String,
    turns: VecDeque<Turn>,
    scripted: usize,
}

struct Shared {
    script: Mutex<VecDeque<Turn>>,
    routes: Mutex<Vec<Route>>,
    scripted: AtomicUsize,
    log: Mutex<Vec<RecordedRequest>>,
    hangs_released: AtomicUsize,
    /// When not 0, the input tokens a response reports are the size of the request's
    /// `messages` in bytes divided by this (so usage grows with the conversation); else
    /// [`USAGE_INPUT_TOKENS`].
    bytes_per_token: AtomicUsize,
    /// Standing answers: a request whose body contains the needle gets the turn, and the
    /// script is left as it is.
    rules: Mutex<Vec<(String, Turn)>>,
    /// Consulted before everything else: `(request number, body)` → the answer, if any.
    responder: Mutex<Option<Responder>>,
    /// `(request number, when its streamed body ended)`, in the order the bodies ended.
    ends: Mutex<Vec<(usize, Instant)>>,
    /// The simulated prompt cache, when a test turned it on (see [`cache`]).
    cache: Mutex<Option<cache::PromptCache>>,
    stop: CancellationToken,
}

/// A function that picks the answer to a request from its number (from 1) and body.
pub type Responder = Arc<dyn Fn(usize, &Value) -> Option<Turn> + Send + Sync>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking test thread must not hide the recorded requests from the others.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A running scripted model server; stops when dropped.
pub struct ModelServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for ModelServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl ModelServer {
    /// Starts a server replaying `script`, one turn per model request, in order.
    ///
    /// Panics when no loopback port can be bound: this is a test fixture, and the panic message
    /// is the test failure. Use [`try_start`](Self::try_start) to handle the error instead.
    pub fn start(script: Vec<Turn>) -> ModelServer {
        match Self::try_start(script) {
            Ok(server) => server,
            Err(e) => panic!("the scripted model server could not start on 127.0.0.1: {e}"),
        }
    }

    /// Like [`start`](Self::start), returning the I/O error instead of panicking.
    pub fn try_start(script: Vec<Turn>) -> std::io::Result<ModelServer> {
        let std_listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        std_listener.set_nonblocking(true)?;
        let addr = std_listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let listener = {
            let _entered = runtime.enter();
            tokio::net::TcpListener::from_std(std_listener)?
        };
        let shared = Arc::new(Shared {
            scripted: AtomicUsize::new(script.len()),
            script: Mutex::new(script.into()),
            routes: Mutex::new(Vec::new()),
            log: Mutex::new(Vec::new()),
            hangs_released: AtomicUsize::new(0),
            bytes_per_token: AtomicUsize::new(0),
            rules: Mutex::new(Vec::new()),
            responder: Mutex::new(None),
            ends: Mutex::new(Vec::new()),
            cache: Mutex::new(None),
            stop: CancellationToken::new(),
        });
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let stop = shared.stop.clone();
        let thread = std::thread::Builder::new()
            .name(format!("model-server-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    let serve = axum::serve(listener, app)
                        .with_graceful_shutdown(stop.clone().cancelled_owned());
                    tokio::select! {
                        _ = serve => {}
                        _ = async { stop.cancelled().await; tokio::time::sleep(SHUTDOWN_GRACE).await } => {}
                    }
                });
                // Dropping the runtime here ends any connection still open.
            })?;
        Ok(ModelServer {
            addr,
            shared,
            thread: Some(thread),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The OpenAI-style base URL, for chat completions and Responses alike:
    /// `http://127.0.0.1:PORT/v1`.
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The Anthropic-style base URL: `http://127.0.0.1:PORT`.
    pub fn anthropic_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Bodies of every request received so far, in order.
    pub fn requests(&self) -> Vec<Value> {
        lock(&self.shared.log)
            .iter()
            .map(|r| r.body.clone())
            .collect()
    }

    /// Every request received so far, read into the protocol-neutral [`SentRequest`].
    pub fn sent(&self) -> Vec<SentRequest> {
        lock(&self.shared.log)
            .iter()
            .map(|r| SentRequest::from_body(&r.body))
            .collect()
    }

    /// A readable rendering of every request received so far, for snapshots (see
    /// [`render_requests`]).
    pub fn rendered(&self) -> String {
        render_requests(&self.requests())
    }

    /// Every request received so far with its path and headers.
    pub fn recorded(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.log).clone()
    }

    /// Makes each response report as input tokens the size of its request's `messages` in
    /// bytes divided by `bytes_per_token` (0 goes back to the fixed [`USAGE_INPUT_TOKENS`]), so
    /// a growing conversation reports growing usage.
    pub fn count_input_tokens(&self, bytes_per_token: usize) {
        self.shared
            .bytes_per_token
            .store(bytes_per_token, Ordering::SeqCst);
    }

    /// Answers every request whose JSON body contains `needle` with `turn`, without using up
    /// the script (e.g. the summary requests of compaction, whenever they come).
    pub fn answer_when(&self, needle: &str, turn: Turn) {
        lock(&self.shared.rules).push((needle.to_string(), turn));
    }

    /// Answers every request for which `responder` returns a turn, before any rule, route or
    /// script is consulted; it gets the request's number (from 1, as in
    /// [`ends`](Self::ends)) and its JSON body. For load tests whose answers follow from the
    /// conversation so far rather than from a fixed order.
    pub fn respond_with(
        &self,
        responder: impl Fn(usize, &Value) -> Option<Turn> + Send + Sync + 'static,
    ) {
        *lock(&self.shared.responder) = Some(Arc::new(responder));
    }

    /// When each streamed response handed its last byte to the connection:
    /// `(request number, instant)`, in the order they ended.
    pub fn ends(&self) -> Vec<(usize, Instant)> {
        lock(&self.shared.ends).clone()
    }

    /// Turns not yet served.
    pub fn remaining(&self) -> usize {
        lock(&self.shared.script).len()
    }

    /// Appends a turn to the script.
    pub fn push(&self, turn: Turn) {
        lock(&self.shared.script).push_back(turn);
        self.shared.scripted.fetch_add(1, Ordering::SeqCst);
    }

    /// Answers every request whose first user message contains `key` from `script` instead of
    /// the main script, one turn per request in order (the first matching route wins). This is
    /// how a test scripts a subagent: its session starts with the task's prompt.
    pub fn route(&self, key: &str, script: Vec<Turn>) {
        lock(&self.shared.routes).push(Route {
            key: key.to_string(),
            scripted: script.len(),
            turns: script.into(),
        });
    }

    /// Turns of the route for `key` not yet served (0 for an unknown key).
    pub fn route_remaining(&self, key: &str) -> usize {
        lock(&self.shared.routes)
            .iter()
            .find(|r| r.key == key)
            .map_or(0, |r| r.turns.len())
    }

    /// How many [`Turn::Hang`] responses ended because the client went away (or the server
    /// stopped): lets a test see that a cancelled client really dropped its connection.
    pub fn hangs_released(&self) -> usize {
        self.shared.hangs_released.load(Ordering::SeqCst)
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.shared.stop.cancel();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[derive(Clone, Copy)]
enum Protocol {
    OpenAi,
    Anthropic,
    Responses,
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().to_string();
    let body = serde_json::from_slice(&body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()));
    let protocol = match path.as_str() {
        OPENAI_PATH => Some(Protocol::OpenAi),
        ANTHROPIC_PATH => Some(Protocol::Anthropic),
        RESPONSES_PATH => Some(Protocol::Responses),
        _ => None,
    };
    let n = {
        let mut log = lock(&shared.log);
        log.push(RecordedRequest {
            path: path.clone(),
            headers: headers
                .iter()
                .map(|(k, v)| {
                    (
                        k.as_str().to_string(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            body: body.clone(),
        });
        log.len()
    };
    let Some(protocol) = protocol else {
        return error(
            StatusCode::NOT_FOUND,
            format!(
                "the scripted model server serves POST {OPENAI_PATH}, {ANTHROPIC_PATH} and {RESPONSES_PATH}, not {path}"
            ),
        );
    };
    let anthropic = matches!(protocol, Protocol::Anthropic);
    let cached = match cache::account(&shared.cache, anthropic, &body) {
        Ok(cached) => cached,
        Err(message) => return error(StatusCode::BAD_REQUEST, message),
    };
    let input_tokens = match shared.bytes_per_token.load(Ordering::SeqCst) {
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
    };
    let text = body.to_string();
    let ruled = lock(&shared.rules)
        .iter()
        .find(|(needle, _)| text.contains(needle.as_str()))
        .map(|(_, turn)| turn.clone());
    let responder = lock(&shared.responder).clone();
    let responded = responder.and_then(|f| f(n, &body));
    let first_user = first_user_text(&body);
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
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!(
                    "scripted model server: the route for first user messages containing {key:?} is exhausted; request #{n} has no turn (the route had {total}); add a Turn to that route"
                ),
            );
        }
        None => responded
            .or(ruled)
            .or_else(|| lock(&shared.script).pop_front()),
    };
    let Some(turn) = next else {
        let total = shared.scripted.load(Ordering::SeqCst);
        return error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!(
                "scripted model server: the script is exhausted; request #{n} to {path} has no turn (the script had {total}); add a Turn for every model request the test makes"
            ),
        );
    };
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("scripted");
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

/// The text of the first user message of a request of either protocol (empty when none).
fn first_user_text(body: &Value) -> String {
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

#[cfg(test)]
mod tests;
