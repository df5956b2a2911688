//! `strata run --attach URL`: the same run, on a `strata serve` elsewhere. Creates (or picks)
//! the session, follows the session's events, posts the prompt, and renders the events with
//! the local renderers, so the output formats are the same as a local run. Asks are answered
//! as a local run answers them: `once` with `--yes`; with `--format json` each ask and reply is
//! a JSON line, and with `--answers stdin` the reply lines read from stdin go to the server's
//! reply routes (`POST /permission/:id/reply`, `POST /question/:id/reply`, `…/reject`);
//! otherwise asks are refused (no one can be asked through the stream). The session's events
//! are followed with those of the subagent sessions it starts, so, as in a local run, a
//! subagent's parts are shown and its asks answered. The server is reached through
//! the TUI's [`HttpClient`]; credentials come from the environment, read as the server reads
//! them ([`ServerCredentials`]: `STRATA_SERVER_PASSWORD`, else `OPENCODE_SERVER_PASSWORD`, and
//! the matching `…_USERNAME`).

use std::collections::HashSet;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;
use strata_agent::events::LoopEvent;
use strata_agent::store::{Event, kinds};
use strata_protocol::event::SessionStatus;
use strata_protocol::wire::{
    ModelChoice, PermissionRequest, PermissionRule, QuestionRequest, ServerCredentials,
    ServerEvent, SessionCreateBody,
};
use strata_server::core::asks::permission_reply;
use strata_services::permission::Reply;
use strata_services::question::Answer;
use strata_tui::client::{Client, ClientEvent, HttpClient, HttpOptions, Prompt};
use tokio::sync::mpsc::Receiver;

use super::instance::project_dir;
use crate::args::{Answers, Format, RunArgs};
use crate::render::headless::{self, Replier, StdinLine, Waiting};
use crate::render::prompt::AskMode;
use crate::render::{Output, next_line, question, read_stdin};

/// How long to wait for the server's event stream to open.
const CONNECT_LIMIT: Duration = Duration::from_secs(30);

pub(super) async fn run(args: RunArgs) -> u8 {
    if let Some(usage) = super::run::answers_usage(&args) {
        eprintln!("strata: {usage}");
        return 2;
    }
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
    let on_stdin = args.answers == Some(Answers::Stdin);
    let session_id = match &args.session {
        Some(id) => id.clone(),
        None => create_session(&client, on_stdin).await?,
    };
    let mut rx = client.session_events(&session_id);
    connected(&mut rx, &base).await?;
    let prompt = client.prompt_and_wait(&session_id, prompt(args));
    tokio::pin!(prompt);
    let mut output = Output::new(args.format);
    let mut asks = Asks::new(args, &client, &session_id);
    let mut replies = on_stdin.then(read_stdin);
    let mut prompt_done = false;
    let mut failed = false;
    loop {
        tokio::select! {
            result = &mut prompt, if !prompt_done => {
                prompt_done = true;
                result.map_err(|e| e.to_string())?;
            }
            line = next_line(&mut replies), if replies.is_some() => {
                if matches!(line, StdinLine::Closed) {
                    replies = None;
                }
                asks.waiting.on_stdin(line, &session_id, &asks.replier).await;
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
                match handle(&mut asks, &mut output, event, &session_id).await {
                    Step::Go => {}
                    Step::Failed => failed = true,
                    Step::Idle => break,
                }
            }
        }
    }
    output.finish();
    Ok(u8::from(failed || asks.stopped_own_turn()))
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

/// A new session on the server; questions are denied unless replies come from stdin, since
/// nobody could answer them.
async fn create_session(client: &HttpClient, on_stdin: bool) -> Result<String, String> {
    let deny_questions = PermissionRule {
        permission: "question".into(),
        pattern: "*".into(),
        action: "deny".into(),
    };
    let body = SessionCreateBody {
        permission: if on_stdin {
            Vec::new()
        } else {
            vec![deny_questions]
        },
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

/// Shows or answers one event of the run's session or of a subagent's; only the run's own
/// session ends the run (idle) or fails it (an error).
async fn handle(asks: &mut Asks<'_>, output: &mut Output, event: ServerEvent, root: &str) -> Step {
    let own = event.session_id() == Some(root);
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
            if own {
                return Step::Failed;
            }
        }
        ServerEvent::PermissionAsked(_)
        | ServerEvent::PermissionReplied { .. }
        | ServerEvent::QuestionAsked(_)
        | ServerEvent::QuestionReplied { .. }
        | ServerEvent::QuestionRejected { .. } => asks.on_event(event).await,
        ServerEvent::SessionStatus {
            status: SessionStatus::Idle,
            ..
        } if own => return Step::Idle,
        _ => {}
    }
    Step::Go
}

/// How the attached run answers asks, and the asks waiting for a reply from stdin.
struct Asks<'a> {
    mode: AskMode,
    json: bool,
    replier: Remote<'a>,
    waiting: Waiting,
    /// The run's own session, and the asks it made (a subagent's are answered too).
    root: String,
    own: HashSet<String>,
}

impl<'a> Asks<'a> {
    fn new(args: &RunArgs, client: &'a HttpClient, root: &str) -> Self {
        // No prompt on a terminal here: the asks arrive through the server's stream.
        let mode = if args.yes {
            AskMode::Yes
        } else if args.answers == Some(Answers::Stdin) {
            AskMode::Stdin
        } else {
            AskMode::Refuse
        };
        Asks {
            mode,
            json: args.format == Format::Json,
            replier: Remote {
                client,
                stopped: Mutex::default(),
            },
            waiting: Waiting::default(),
            root: root.to_string(),
            own: HashSet::new(),
        }
    }

    /// Whether a reply stopped the run's own turn, which fails the run as a local run fails.
    /// A subagent's refused ask ends only the subagent: its parent goes on.
    fn stopped_own_turn(&self) -> bool {
        let stopped = self
            .replier
            .stopped
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        stopped.iter().any(|id| self.own.contains(id))
    }

    /// A permission or question event: a line in JSON runs; an ask is answered or held.
    async fn on_event(&mut self, event: ServerEvent) {
        if self.json {
            headless::emit(&headless::event_line(&event));
        }
        match event {
            ServerEvent::PermissionAsked(req) => {
                self.note_own(&req.session_id, &req.id);
                self.permission(&req).await;
            }
            ServerEvent::QuestionAsked(req) => {
                self.note_own(&req.session_id, &req.id);
                self.question(&req).await;
            }
            ServerEvent::PermissionReplied { request_id, .. }
            | ServerEvent::QuestionReplied { request_id, .. }
            | ServerEvent::QuestionRejected { request_id, .. } => self.waiting.forget(&request_id),
            _ => {}
        }
    }

    fn note_own(&mut self, session_id: &str, request_id: &str) {
        if session_id == self.root {
            self.own.insert(request_id.to_string());
        }
    }

    async fn permission(&mut self, req: &PermissionRequest) {
        match self.mode {
            // A reply that fails leaves the turn waiting; the server's own error says why.
            AskMode::Yes => {
                let _ = self.replier.permission(&req.id, Reply::Once).await;
            }
            AskMode::Stdin => self.waiting.hold_permission(req, &self.replier).await,
            AskMode::Prompt | AskMode::Refuse if self.json => {
                headless::refuse_permission(req, headless::NO_ANSWERS, &self.replier).await;
            }
            AskMode::Prompt | AskMode::Refuse => {
                eprintln!(
                    "strata: {} on {} needs permission; refused (pass --yes to allow)",
                    req.permission,
                    req.patterns.join(", ")
                );
                let refused = Reply::Reject { feedback: None };
                let _ = self.replier.permission(&req.id, refused).await;
            }
        }
    }

    async fn question(&mut self, req: &QuestionRequest) {
        if self.mode == AskMode::Stdin {
            self.waiting.hold_question(req, &self.replier).await;
        } else if self.json {
            headless::refuse_question(req, headless::NO_ANSWERS, &self.replier).await;
        } else {
            eprintln!("{}", question::refusal(req));
            let _ = self.replier.dismiss(&req.id).await;
        }
    }
}

/// Replies through the server's routes. A reply the server took that stops its turn (a
/// rejection without a message, a dismissed question) is noted by request id.
struct Remote<'a> {
    client: &'a HttpClient,
    stopped: Mutex<Vec<String>>,
}

impl Remote<'_> {
    /// Notes `request_id` as stopping its turn once `sent` says the server took the reply.
    fn stops(&self, request_id: &str, sent: Result<(), String>) -> Result<(), String> {
        if sent.is_ok() {
            let mut stopped = self.stopped.lock().unwrap_or_else(PoisonError::into_inner);
            stopped.push(request_id.to_string());
        }
        sent
    }
}

#[async_trait]
impl Replier for Remote<'_> {
    async fn permission(&self, request_id: &str, reply: Reply) -> Result<(), String> {
        let wire = permission_reply(&reply);
        let (stops, message) = match reply {
            Reply::Reject { feedback } => (feedback.is_none(), feedback),
            Reply::Once | Reply::Always => (false, None),
        };
        let sent = self
            .client
            .reply_permission(request_id, wire, message)
            .await;
        let sent = sent.map_err(|e| e.to_string());
        if stops {
            self.stops(request_id, sent)
        } else {
            sent
        }
    }

    async fn answer(&self, request_id: &str, answers: Vec<Answer>) -> Result<(), String> {
        (self.client.reply_question(request_id, answers).await).map_err(|e| e.to_string())
    }

    async fn dismiss(&self, request_id: &str) -> Result<(), String> {
        let sent = self.client.reject_question(request_id).await;
        self.stops(request_id, sent.map_err(|e| e.to_string()))
    }
}
