//! `strata run --attach URL`: the same run, on a `strata serve` elsewhere. Creates (or picks)
//! the session over HTTP, follows `/event`, posts the prompt, and renders the events with the
//! local renderers, so the output formats are the same as a local run. Permission requests are
//! answered `once` with `--yes`, otherwise refused (no one can be asked through the stream).
//! Credentials come from the environment, read as the server reads them
//! ([`ServerCredentials`]: `STRATA_SERVER_PASSWORD`, else `OPENCODE_SERVER_PASSWORD`, and the
//! matching `…_USERNAME`).

use std::time::Duration;

use base64::Engine;
use futures::StreamExt;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use serde_json::{Value, json};
use strata_agent::events::LoopEvent;
use strata_agent::store::{Event, kinds};
use strata_protocol::event::SessionStatus;
use strata_protocol::sse::SseParser;
use strata_protocol::wire::{Decoded, ServerCredentials, ServerEvent};
use tokio::sync::mpsc;

use super::instance::project_dir;
use crate::args::{Format, RunArgs};
use crate::render::Output;

/// How long to wait for the server's event stream to open.
const CONNECT_LIMIT: Duration = Duration::from_secs(30);

pub(super) async fn run(args: RunArgs) -> u8 {
    match attach(&args).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("strata: {e}");
            1
        }
    }
}

fn headers(dir: &str) -> Result<HeaderMap, String> {
    let mut h = HeaderMap::new();
    let encoded: String = dir
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect();
    h.insert(
        "x-opencode-directory",
        HeaderValue::from_str(&encoded).map_err(|e| e.to_string())?,
    );
    let credentials = ServerCredentials::from_env(|k| std::env::var(k).ok());
    if let Some(password) = &credentials.password {
        let user = credentials.client_username();
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
        h.insert(
            AUTHORIZATION,
            HeaderValue::from_str(&format!("Basic {token}")).map_err(|e| e.to_string())?,
        );
    }
    Ok(h)
}

/// The error body's message, else the status.
async fn failure(what: &str, response: reqwest::Response) -> String {
    let status = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    let message = body["data"]["message"]
        .as_str()
        .or_else(|| body["name"].as_str())
        .unwrap_or("no details");
    format!("{what} failed with {status}: {message}")
}

async fn attach(args: &RunArgs) -> Result<u8, String> {
    let base = args.attach.clone().unwrap_or_default();
    let base = base.trim_end_matches('/').to_string();
    let message = args.message.join(" ");
    let dir = project_dir(args.dir.clone())?;
    let dir = dir.to_string_lossy().into_owned();
    let client = reqwest::Client::builder()
        .default_headers(headers(&dir)?)
        .build()
        .map_err(|e| format!("could not build an HTTP client: {e}"))?;
    let session_id = match &args.session {
        Some(id) => id.clone(),
        None => create_session(&client, &base).await?,
    };

    let events = client
        .get(format!("{base}/event"))
        .send()
        .await
        .map_err(|e| format!("could not open the event stream at {base}/event: {e}"))?;
    if !events.status().is_success() {
        return Err(failure("opening the event stream", events).await);
    }
    let (tx, mut rx) = mpsc::unbounded_channel::<ServerEvent>();
    let reader = tokio::spawn(read_events(events, tx));

    let mut body = json!({"parts": [{"type": "text", "text": message}]});
    if let Some((provider, model)) = args.model.as_deref().and_then(|m| m.split_once('/')) {
        body["model"] = json!({"providerID": provider, "modelID": model});
    }
    let prompt = client
        .post(format!("{base}/session/{session_id}/message"))
        .json(&body)
        .send();
    tokio::pin!(prompt);
    let mut output = Output::new(args.format);
    let mut prompt_done = false;
    let mut failed = false;
    let mut connected = false;
    let deadline = tokio::time::sleep(CONNECT_LIMIT);
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            result = &mut prompt, if !prompt_done => {
                prompt_done = true;
                match result {
                    Ok(r) if r.status().is_success() => {}
                    Ok(r) => return Err(failure("the prompt", r).await),
                    Err(e) => return Err(format!("the prompt failed: {e}")),
                }
            }
            event = rx.recv() => {
                let Some(event) = event else {
                    if prompt_done { break; }
                    return Err("the server closed the event stream".into());
                };
                connected = true;
                if event.session_id() != Some(session_id.as_str()) {
                    continue;
                }
                match handle(&client, &base, args, &mut output, event).await {
                    Step::Go => {}
                    Step::Failed => failed = true,
                    Step::Idle => break,
                }
            }
            () = &mut deadline, if !connected => {
                return Err(format!("no events from {base} within {}s", CONNECT_LIMIT.as_secs()));
            }
        }
    }
    reader.abort();
    output.finish();
    Ok(u8::from(failed))
}

/// A new session on the server, with questions denied: nobody can answer them here.
async fn create_session(client: &reqwest::Client, base: &str) -> Result<String, String> {
    let body =
        json!({"permission": [{"permission": "question", "pattern": "*", "action": "deny"}]});
    let response = client
        .post(format!("{base}/session"))
        .json(&body)
        .send()
        .await
        .map_err(|e| format!("could not reach the server at {base}: {e}"))?;
    if !response.status().is_success() {
        return Err(failure("creating a session", response).await);
    }
    let session: Value = response.json().await.map_err(|e| e.to_string())?;
    Ok(session["id"].as_str().unwrap_or_default().to_string())
}

enum Step {
    Go,
    Failed,
    Idle,
}

async fn handle(
    client: &reqwest::Client,
    base: &str,
    args: &RunArgs,
    output: &mut Output,
    event: ServerEvent,
) -> Step {
    match event {
        ServerEvent::PartUpdated {
            session_id,
            part,
            time,
        } => {
            let stored = Event {
                session_id,
                seq: 0,
                kind: kinds::PART_UPDATED.into(),
                data: json!({"part": part.as_part()}),
                created_ms: time.unwrap_or_default(),
            };
            output.show(&LoopEvent::Stored(stored));
        }
        ServerEvent::PartDelta {
            session_id,
            message_id,
            part_id,
            delta,
            ..
        } => {
            output.show(&LoopEvent::TextDelta {
                session_id,
                message_id,
                part_id,
                delta,
            });
        }
        ServerEvent::SessionError { session_id, error } => {
            let stored = Event {
                session_id: session_id.unwrap_or_default(),
                seq: 0,
                kind: "session.error".into(),
                data: json!({"error": error}),
                created_ms: strata_agent::store::now_ms(),
            };
            output.show(&LoopEvent::Stored(stored));
            return Step::Failed;
        }
        ServerEvent::PermissionAsked(request) => {
            let reply = if args.yes { "once" } else { "reject" };
            if !args.yes && args.format == Format::Default {
                eprintln!(
                    "strata: {} on {} needs permission; refused (pass --yes to allow)",
                    request.permission,
                    request.patterns.join(", ")
                );
            }
            let _ = client
                .post(format!("{base}/permission/{}/reply", request.id))
                .json(&json!({"reply": reply}))
                .send()
                .await;
            if !args.yes {
                return Step::Failed;
            }
        }
        ServerEvent::SessionStatus {
            status: SessionStatus::Idle,
            ..
        } => return Step::Idle,
        _ => {}
    }
    Step::Go
}

/// Reads `data:` frames into events until the stream ends.
async fn read_events(response: reqwest::Response, tx: mpsc::UnboundedSender<ServerEvent>) {
    let mut stream = response.bytes_stream();
    let mut parser = SseParser::new();
    while let Some(Ok(chunk)) = stream.next().await {
        for frame in parser.push(&chunk) {
            if let Ok(Decoded::Known(envelope)) = Decoded::event(&frame.data)
                && tx.send(envelope.event).is_err()
            {
                return;
            }
        }
    }
}
