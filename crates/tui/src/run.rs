//! The one event loop: terminal input, server events, action results and timers feed the
//! [`App`]; frames are drawn at most once per [`FRAME`] and only when something changed, so an
//! idle UI sleeps without any wake-up and a streaming reply does not redraw per token.

use std::io::{self, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream};
use futures::StreamExt;
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::sync::mpsc;
use tokio::time::sleep_until;

use crate::app::{Action, App, Reply, export_markdown};
use crate::client::{Client, ClientError, ClientEvent, Prompt};
use crate::model::{ModelChoice, Snapshot};
use crate::state::{MessageView, SessionState};
use crate::terminal::TerminalGuard;
use crate::view::{self, ViewState};
use strata_protocol::wire::{CommandBody, SummarizeBody};

/// The shortest time between two frames (~60 per second).
pub const FRAME: Duration = Duration::from_millis(16);
/// How often the busy spinner turns.
const SPIN: Duration = Duration::from_millis(120);
/// How long events may wait behind a missing one before the session is re-fetched.
const GAP_WAIT: Duration = Duration::from_millis(300);

/// How to start.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Open this session at start.
    pub session: Option<String>,
    /// Append one line per frame (`frame <draw µs> <input-to-frame µs or ->`) to this file.
    pub trace: Option<std::path::PathBuf>,
}

/// How the UI ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exit {
    /// The session that was open, to print "continue with …".
    pub session: Option<String>,
}

/// Runs the UI on this terminal until the user quits or SIGTERM or SIGHUP arrives.
pub async fn run(client: Arc<dyn Client>, opts: RunOptions) -> Result<Exit, ClientError> {
    let boot = client.bootstrap().await?;
    let mut events = client.events();
    let (tx, mut replies) = mpsc::unbounded_channel::<Reply>();
    if let Some(id) = &opts.session {
        spawn(&client, &tx, Action::Open(id.clone()));
    }
    let mut ui = Ui {
        app: App::new(boot),
        view: ViewState::default(),
        trace: open_trace(opts.trace.as_deref())?,
        guard: TerminalGuard::enter()
            .map_err(|e| ClientError::new("setting up the terminal", e.to_string()))?,
        dirty: true,
        last_frame: Instant::now() - FRAME,
        spin_at: None,
        gap_at: None,
        input_at: None,
    };
    let mut input = EventStream::new();
    let mut term = listen(SignalKind::terminate(), "SIGTERM")?;
    // The terminal went away: end like SIGTERM, so the caller can stop what is still running.
    let mut hup = listen(SignalKind::hangup(), "SIGHUP")?;
    loop {
        let frame_at = ui
            .dirty
            .then(|| (ui.last_frame + FRAME).max(Instant::now()));
        let actions = tokio::select! {
            // Replies first: a new session must be open before its events are applied.
            biased;
            Some(reply) = replies.recv() => {
                ui.app.on_reply(reply);
                ui.dirty = true;
                vec![]
            }
            ev = input.next() => match ev {
                Some(Ok(ev)) => ui.on_input(ev),
                // The terminal is gone: nothing left to draw to.
                Some(Err(_)) | None => break,
            },
            ev = events.recv() => {
                let Some(ev) = ev else { break };
                ui.on_events(ev, &mut events)
            }
            _ = wait(ui.gap_at) => {
                ui.gap_at = None;
                ui.app.on_gap_timer()
            }
            _ = wait(ui.spin_at) => {
                ui.spin_at = None;
                ui.app.on_spin();
                ui.dirty = true;
                vec![]
            }
            _ = wait(frame_at) => {
                ui.draw()?;
                ui.app.history_wanted()
            }
            _ = term.recv() => break,
            _ = hup.recv() => break,
        };
        for action in actions {
            match action {
                Action::Quit => return finish(ui.guard, &ui.app),
                Action::Export => export(&client, &ui.app, &tx),
                other => spawn(&client, &tx, other),
            }
        }
    }
    finish(ui.guard, &ui.app)
}

/// The loop's state: the app, what the view measured, the terminal, and when to act next.
struct Ui {
    app: App,
    view: ViewState,
    trace: Option<std::fs::File>,
    guard: TerminalGuard,
    /// Something changed since the last frame.
    dirty: bool,
    last_frame: Instant,
    spin_at: Option<Instant>,
    gap_at: Option<Instant>,
    /// The first input since the last frame, for the trace's input-to-frame latency.
    input_at: Option<Instant>,
}

impl Ui {
    /// A key, a paste or a resize.
    fn on_input(&mut self, ev: Event) -> Vec<Action> {
        match ev {
            Event::Key(key) => {
                self.input_at.get_or_insert_with(Instant::now);
                self.dirty = true;
                self.app.on_key(key)
            }
            Event::Paste(text) => {
                self.input_at.get_or_insert_with(Instant::now);
                self.app.on_paste(&text);
                self.dirty = true;
                vec![]
            }
            Event::Resize(..) => {
                self.dirty = true;
                vec![]
            }
            _ => vec![],
        }
    }

    /// A server event, with whatever else is already queued, so a burst costs one frame.
    fn on_events(
        &mut self,
        first: ClientEvent,
        events: &mut mpsc::Receiver<ClientEvent>,
    ) -> Vec<Action> {
        let mut actions = self.app.on_client_event(first);
        for _ in 0..4096 {
            match events.try_recv() {
                Ok(ev) => actions.extend(self.app.on_client_event(ev)),
                Err(_) => break,
            }
        }
        if self.app.state.held() > 0 && self.gap_at.is_none() {
            self.gap_at = Some(Instant::now() + GAP_WAIT);
        }
        self.dirty = true;
        actions
    }

    /// Draws a frame, traces it when asked, and sets the spinner's next turn.
    fn draw(&mut self) -> Result<(), ClientError> {
        let started = Instant::now();
        let (app, view) = (&self.app, &mut self.view);
        self.guard
            .terminal
            .draw(|f| view::draw(f, app, view))
            .map_err(|e| ClientError::new("drawing", e.to_string()))?;
        self.app.on_drawn(self.view.drawn());
        self.last_frame = Instant::now();
        self.dirty = false;
        if let Some(file) = self.trace.as_mut() {
            let latency = (self.input_at.take())
                .map_or("-".to_string(), |t| t.elapsed().as_micros().to_string());
            // A trace line lost is only a missing sample.
            let _ = writeln!(file, "frame {} {latency}", started.elapsed().as_micros());
        }
        if self.app.animating() && self.spin_at.is_none() {
            self.spin_at = Some(self.last_frame + SPIN);
        }
        Ok(())
    }
}

/// The frame trace file, opened for appending.
fn open_trace(path: Option<&std::path::Path>) -> Result<Option<std::fs::File>, ClientError> {
    let Some(path) = path else { return Ok(None) };
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map(Some)
        .map_err(|e| ClientError::new(format!("opening {}", path.display()), e.to_string()))
}

fn listen(kind: SignalKind, name: &str) -> Result<Signal, ClientError> {
    signal(kind).map_err(|e| ClientError::new(format!("listening for {name}"), e.to_string()))
}

fn finish(guard: TerminalGuard, app: &App) -> Result<Exit, ClientError> {
    drop(guard);
    Ok(Exit {
        session: app.state.session_id().map(str::to_string),
    })
}

async fn wait(at: Option<Instant>) {
    match at {
        Some(at) => sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

/// Writes the open session as markdown to `strata-<session>.md` in the working directory:
/// all of it, the messages not loaded yet fetched first (on its own task).
fn export(client: &Arc<dyn Client>, app: &App, tx: &mpsc::UnboundedSender<Reply>) {
    let Some(session) = &app.state.session else {
        return;
    };
    let mut whole = SessionState {
        info: session.info.clone(),
        messages: session.messages.clone(),
        todos: session.todos.clone(),
        ..Default::default()
    };
    let mut older = session.older.clone();
    let (client, tx) = (client.clone(), tx.clone());
    tokio::spawn(async move {
        while let Some(before) = older.take() {
            match client.older(&whole.info.id, &before).await {
                Ok(page) => {
                    let mut messages: Vec<MessageView> = page
                        .messages
                        .into_iter()
                        .map(|m| MessageView {
                            info: m.info,
                            parts: m.parts,
                            version: 0,
                        })
                        .collect();
                    messages.append(&mut whole.messages);
                    whole.messages = messages;
                    older = page.older;
                }
                Err(e) => {
                    let _ = tx.send(Reply::Failed(format!("exporting: {e}")));
                    return;
                }
            }
        }
        let path = format!("strata-{}.md", whole.info.id);
        let reply = match std::fs::write(&path, export_markdown(&whole)) {
            Ok(()) => Reply::Notice(format!("Exported to {path}")),
            Err(e) => Reply::Failed(format!("writing {path} failed: {e}")),
        };
        // The loop may have ended; then nobody needs the answer.
        let _ = tx.send(reply);
    });
}

/// Runs `action` on its own task; its result comes back as a [`Reply`].
fn spawn(client: &Arc<dyn Client>, tx: &mpsc::UnboundedSender<Reply>, action: Action) {
    let client = client.clone();
    let tx = tx.clone();
    tokio::spawn(async move {
        let reply = match execute(&*client, &tx, action).await {
            Ok(Some(r)) => r,
            Ok(None) => return,
            Err((refetch, e)) if refetch => Reply::RefetchFailed(e.to_string()),
            Err((_, e)) => Reply::Failed(e.to_string()),
        };
        // The loop may have ended; then nobody needs the answer.
        let _ = tx.send(reply);
    });
}

/// What an action gives back: a reply for the loop, or the error and whether it came from
/// fetching a session (shown differently).
type Outcome = Result<Option<Reply>, (bool, ClientError)>;

/// A request whose success needs no reply (its events tell the rest).
fn done(result: crate::client::Result<()>) -> Outcome {
    result.map(|()| None).map_err(|e| (false, e))
}

async fn execute(
    client: &dyn Client,
    tx: &mpsc::UnboundedSender<Reply>,
    action: Action,
) -> Outcome {
    match action {
        Action::Prompt {
            session_id,
            text,
            agent,
            model,
        } => {
            let prompt = Prompt { text, agent, model };
            done(send_prompt(client, tx, session_id, prompt).await)
        }
        Action::Command {
            session_id,
            name,
            arguments,
            agent,
            model,
        } => {
            let body = CommandBody {
                command: name,
                arguments,
                agent: Some(agent.clone()).filter(|a| !a.is_empty()),
                model: model.map(|m| m.label()),
                variant: None,
            };
            done(send_command(client, tx, session_id, &agent, body).await)
        }
        Action::Abort(id) => done(client.abort(&id).await),
        Action::ReplyPermission {
            request_id,
            reply,
            message,
        } => done(client.reply_permission(&request_id, reply, message).await),
        Action::ReplyQuestion {
            request_id,
            answers,
        } => done(client.reply_question(&request_id, answers).await),
        Action::RejectQuestion(id) => done(client.reject_question(&id).await),
        Action::Open(id) => open(client, &id).await,
        Action::LoadOlder { session_id, before } => {
            Ok(Some(older(client, session_id, &before).await))
        }
        Action::ListSessions => client
            .sessions()
            .await
            .map(|s| Some(Reply::Sessions(s)))
            .map_err(|e| (false, e)),
        Action::Revert {
            session_id,
            message_id,
        } => {
            done(client.revert(&session_id, &message_id).await)?;
            reopened(client, &session_id).await
        }
        Action::Unrevert(id) => {
            done(client.unrevert(&id).await)?;
            reopened(client, &id).await
        }
        Action::Tools(session_id) => match client.tools(&session_id).await {
            Ok(tools) => Ok(Some(Reply::Tools { session_id, tools })),
            Err(e) => Err((false, e)),
        },
        Action::Summarize {
            session_id,
            instructions,
            model,
        } => compact(client, &session_id, instructions, model).await,
        Action::End(session_id) => done(client.end(&session_id, "clear").await),
        Action::Export | Action::Quit => Ok(None),
    }
}

/// Runs a server command, in a new session when none is open.
async fn send_command(
    client: &dyn Client,
    tx: &mpsc::UnboundedSender<Reply>,
    session_id: Option<String>,
    agent: &str,
    body: CommandBody,
) -> crate::client::Result<()> {
    let id = open_session(client, tx, session_id, agent).await?;
    client.command(&id, body).await
}

/// Fetches session `id` to open it; a failure is a fetch's error.
async fn open(client: &dyn Client, id: &str) -> Outcome {
    client
        .snapshot(id)
        .await
        .map(|s| Some(Reply::Snapshot(Box::new(s))))
        .map_err(|e| (true, e))
}

/// The page of messages before cursor `before`, or why it could not be fetched.
async fn older(client: &dyn Client, session_id: String, before: &str) -> Reply {
    match client.older(&session_id, before).await {
        Ok(page) => Reply::Older { session_id, page },
        Err(e) => Reply::OlderFailed(e.to_string()),
    }
}

/// Compacts the session now with the user's instructions, then says so.
async fn compact(
    client: &dyn Client,
    session_id: &str,
    instructions: String,
    model: Option<ModelChoice>,
) -> Outcome {
    let body = SummarizeBody {
        provider_id: model.as_ref().map(|m| m.provider_id.clone()),
        model_id: model.map(|m| m.model_id),
        auto: None,
        instructions: Some(instructions).filter(|i| !i.is_empty()),
    };
    done(client.summarize(session_id, body).await)?;
    Ok(Some(Reply::Notice("Session compacted".into())))
}

/// Sends `prompt`, to a new session when none is open; the new session is opened before its
/// first event can arrive for it.
async fn send_prompt(
    client: &dyn Client,
    tx: &mpsc::UnboundedSender<Reply>,
    session_id: Option<String>,
    prompt: Prompt,
) -> crate::client::Result<()> {
    let id = open_session(client, tx, session_id, &prompt.agent).await?;
    client.prompt(&id, prompt).await
}

/// `session_id`, or a new session, opened before its first event can arrive for it.
async fn open_session(
    client: &dyn Client,
    tx: &mpsc::UnboundedSender<Reply>,
    session_id: Option<String>,
    agent: &str,
) -> crate::client::Result<String> {
    if let Some(id) = session_id {
        return Ok(id);
    }
    let session = client.create_session(agent).await?;
    let id = session.id.clone();
    let _ = tx.send(Reply::Snapshot(Box::new(Snapshot {
        session,
        ..Default::default()
    })));
    Ok(id)
}

/// The session as it is after an undo or redo.
async fn reopened(client: &dyn Client, session_id: &str) -> Outcome {
    let snapshot = client.snapshot(session_id).await.map_err(|e| (false, e))?;
    Ok(Some(Reply::Snapshot(Box::new(snapshot))))
}

/// Prints what to run to come back to the session, after the terminal is restored.
pub fn print_exit(exit: &Exit) {
    if let Some(id) = &exit.session {
        let mut out = io::stdout();
        let _ = writeln!(out, "Session  {id}\nContinue  strata --session {id}");
    }
}

/// `strata attach URL`: the UI on a remote server over HTTP + SSE. The password is `password`,
/// else the environment's, read as the server reads it (`ServerCredentials`); `directory` is the project
/// on the server's side (the server's own default when `None`).
pub async fn attach(
    url: &str,
    password: Option<String>,
    directory: Option<String>,
    opts: RunOptions,
) -> Result<Exit, ClientError> {
    let mut http = crate::client::HttpOptions::new(url);
    let credentials = strata_protocol::wire::ServerCredentials::from_env(|k| std::env::var(k).ok())
        .with_password(password);
    http.password = credentials.password;
    http.username = credentials.username;
    http.directory = directory;
    let client = crate::client::HttpClient::new(http)?;
    run(Arc::new(client), opts).await
}
