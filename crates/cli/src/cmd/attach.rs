//! `strata run --attach URL`: the same run, on a `strata serve` elsewhere. Creates (or picks)
//! the session, follows the session's events, posts the prompt, and renders the events with
//! the local renderers, so the output formats are the same as a local run. Permission requests
//! are answered `once` with `--yes`, otherwise refused (no one can be asked through the
//! stream). The server is reached through the TUI's [`HttpClient`]; credentials come from the
//! environment, read as the server reads them ([`ServerCredentials`]:
//! `STRATA_SERVER_PASSWORD`, else `OPENCODE_SERVER_PASSWORD`, and the matching `…_USERNAME`).

use std::time::Duration;

use serde_json::json;
use strata_agent::events::LoopEvent;
use strata_agent::store::{Event, kinds};
use strata_protocol::event::SessionStatus;
use strata_protocol::wire::{
    ModelChoice, PermissionReply, PermissionRule, ServerCredentials, ServerEvent, SessionCreateBody,
};
use strata_tui::client::{Client, ClientEvent, HttpClient, HttpOptions, Prompt};
use tokio::sync::mpsc::Receiver;

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

/// The client for `base`, with the project directory and the environment's credentials.
fn client(base: &str, dir: String) -> Result<HttpClient, String> {
    let credentials = ServerCredentials::from_env(|k| std::env::var(k).ok());
    let mut opts = HttpOptions::new(base);
    opts.username = Some(credentials.client_username().to_string());
    opts.password = credentials.password;
    opts.directory = Some(dir);
    // `strata run` has no --password flag.
    opts.unauthorized_hint = " (set STRATA_SERVER_PASSWORD)".into();
    HttpClient::new(opts).map_err(|e| format!("could not build an HTTP client: {e}"))
}

/// The prompt of the command line, with its `--model` when given as `provider/model`.
fn prompt(args: &RunArgs) -> Prompt {
    let model = args.model.as_deref().and_then(|m| m.split_once('/'));
    Prompt {
        text: args.message.join(" "),
        agent: String::new(),
        model: model.map(|(provider, model)| ModelChoice {
            provider_id: provider.into(),
            model_id: model.into(),
        }),
    }
}

async fn attach(args: &RunArgs) -> Result<u8, String> {
    let base = args.attach.clone().unwrap_or_default();
    let base = base.trim_end_matches('/').to_string();
    let dir = project_dir(args.dir.clone())?;
    let client = client(&base, dir.to_string_lossy().into_owned())?;
    let session_id = match &args.session {
        Some(id) => id.clone(),
        None => create_session(&client).await?,
    };
    let mut rx = client.session_events(&session_id);
    connected(&mut rx, &base).await?;
    let prompt = client.prompt_and_wait(&session_id, prompt(args));
    tokio::pin!(prompt);
    let mut output = Output::new(args.format);
    let mut prompt_done = false;
    let mut failed = false;
    loop {
        tokio::select! {
            result = &mut prompt, if !prompt_done => {
                prompt_done = true;
                result.map_err(|e| e.to_string())?;
            }
            item = rx.recv() => {
                let event = match item {
                    Some(ClientEvent::Event(envelope)) => envelope.event,
                    Some(ClientEvent::Connected) => continue,
                    Some(ClientEvent::Disconnected { .. }) | None if prompt_done => break,
                    Some(ClientEvent::Disconnected { .. }) | None => {
                        return Err("the server closed the event stream".into());
                    }
                };
                match handle(&client, args, &mut output, event).await {
                    Step::Go => {}
                    Step::Failed => failed = true,
                    Step::Idle => break,
                }
            }
        }
    }
    output.finish();
    Ok(u8::from(failed))
}

/// Waits until the event stream is open, so the turn's first events are not missed.
async fn connected(rx: &mut Receiver<ClientEvent>, base: &str) -> Result<(), String> {
    let first = tokio::time::timeout(CONNECT_LIMIT, rx.recv()).await;
    match first {
        Ok(Some(ClientEvent::Connected)) => Ok(()),
        Ok(Some(ClientEvent::Disconnected { error, .. })) => Err(format!(
            "could not open the event stream at {base}/event: {error}"
        )),
        Ok(_) => Err("the server closed the event stream".into()),
        Err(_) => Err(format!(
            "no events from {base} within {}s",
            CONNECT_LIMIT.as_secs()
        )),
    }
}

/// A new session on the server, with questions denied: nobody can answer them here.
async fn create_session(client: &HttpClient) -> Result<String, String> {
    let body = SessionCreateBody {
        permission: vec![PermissionRule {
            permission: "question".into(),
            pattern: "*".into(),
            action: "deny".into(),
        }],
        ..SessionCreateBody::default()
    };
    let session = client
        .create_session_with(&body)
        .await
        .map_err(|e| e.to_string())?;
    Ok(session.id)
}

enum Step {
    Go,
    Failed,
    Idle,
}

async fn handle(
    client: &HttpClient,
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
            let reply = if args.yes {
                PermissionReply::Once
            } else {
                PermissionReply::Reject
            };
            if !args.yes && args.format == Format::Default {
                eprintln!(
                    "strata: {} on {} needs permission; refused (pass --yes to allow)",
                    request.permission,
                    request.patterns.join(", ")
                );
            }
            // A reply that fails leaves the turn waiting; the server's own error says why.
            let _ = client.reply_permission(&request.id, reply, None).await;
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
