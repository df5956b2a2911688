//! The one event loop: terminal input, server events, action results and timers feed the
//! [`App`]; frames are drawn at most once per [`FRAME`] and only when something changed, so an
//! idle UI sleeps without any wake-up and a streaming reply does not redraw per token.

use std::io::{self, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream};
use futures::StreamExt;
use tokio::sync::mpsc;
use tokio::time::sleep_until;

use crate::app::{Action, App, Reply, export_markdown};
use crate::client::{Client, ClientError, Prompt};
use crate::model::Snapshot;
use crate::terminal::TerminalGuard;
use crate::view::{self, ViewState};

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
    let mut app = App::new(boot);
    let mut view_state = ViewState::default();
    let mut events = client.events();
    let (tx, mut replies) = mpsc::unbounded_channel::<Reply>();
    if let Some(id) = &opts.session {
        spawn(&client, &tx, Action::Open(id.clone()));
    }
    let mut trace = match &opts.trace {
        Some(p) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| ClientError::new(format!("opening {}", p.display()), e.to_string()))?,
        ),
        None => None,
    };
    let mut guard = TerminalGuard::enter()
        .map_err(|e| ClientError::new("setting up the terminal", e.to_string()))?;
    let mut input = EventStream::new();
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| ClientError::new("listening for SIGTERM", e.to_string()))?;
    // The terminal went away: end like SIGTERM, so the caller can stop what is still running.
    let mut hup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
        .map_err(|e| ClientError::new("listening for SIGHUP", e.to_string()))?;

    let mut dirty = true;
    let mut last_frame = Instant::now() - FRAME;
    let mut spin_at: Option<Instant> = None;
    let mut gap_at: Option<Instant> = None;
    let mut input_at: Option<Instant> = None;
    loop {
        let frame_at = dirty.then(|| (last_frame + FRAME).max(Instant::now()));
        let mut actions = vec![];
        tokio::select! {
            // Replies first: a new session must be open before its events are applied.
            biased;
            Some(reply) = replies.recv() => {
                app.on_reply(reply);
                dirty = true;
            }
            ev = input.next() => match ev {
                Some(Ok(Event::Key(key))) => {
                    input_at.get_or_insert_with(Instant::now);
                    actions = app.on_key(key);
                    dirty = true;
                }
                Some(Ok(Event::Paste(text))) => {
                    input_at.get_or_insert_with(Instant::now);
                    app.on_paste(&text);
                    dirty = true;
                }
                Some(Ok(Event::Resize(..))) => dirty = true,
                Some(Ok(_)) => {}
                // The terminal is gone: nothing left to draw to.
                Some(Err(_)) | None => break,
            },
            ev = events.recv() => {
                let Some(ev) = ev else { break };
                actions = app.on_client_event(ev);
                // Take whatever else is already queued, so a burst costs one frame.
                for _ in 0..4096 {
                    match events.try_recv() {
                        Ok(ev) => actions.extend(app.on_client_event(ev)),
                        Err(_) => break,
                    }
                }
                if app.state.held() > 0 && gap_at.is_none() {
                    gap_at = Some(Instant::now() + GAP_WAIT);
                }
                dirty = true;
            }
            _ = wait(gap_at) => {
                gap_at = None;
                actions = app.on_gap_timer();
            }
            _ = wait(spin_at) => {
                spin_at = None;
                app.on_spin();
                dirty = true;
            }
            _ = wait(frame_at) => {
                let started = Instant::now();
                guard
                    .terminal
                    .draw(|f| view::draw(f, &app, &mut view_state))
                    .map_err(|e| ClientError::new("drawing", e.to_string()))?;
                app.on_drawn(view_state.drawn());
                last_frame = Instant::now();
                dirty = false;
                if let Some(file) = trace.as_mut() {
                    let latency = input_at.take().map_or("-".to_string(), |t| t.elapsed().as_micros().to_string());
                    // A trace line lost is only a missing sample.
                    let _ = writeln!(file, "frame {} {latency}", started.elapsed().as_micros());
                }
                if app.animating() && spin_at.is_none() {
                    spin_at = Some(last_frame + SPIN);
                }
            }
            _ = sigterm(&mut term) => break,
            _ = sigterm(&mut hup) => break,
        }
        for action in actions {
            match action {
                Action::Quit => return finish(guard, &app),
                Action::Export => export(&app, &tx),
                other => spawn(&client, &tx, other),
            }
        }
    }
    finish(guard, &app)
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

async fn sigterm(s: &mut tokio::signal::unix::Signal) {
    s.recv().await;
}

/// Writes the open session as markdown to `strata-<session>.md` in the working directory.
fn export(app: &App, tx: &mpsc::UnboundedSender<Reply>) {
    let Some(session) = &app.state.session else {
        return;
    };
    let path = format!("strata-{}.md", session.info.id);
    let reply = match std::fs::write(&path, export_markdown(session)) {
        Ok(()) => Reply::Notice(format!("Exported to {path}")),
        Err(e) => Reply::Failed(format!("writing {path} failed: {e}")),
    };
    let _ = tx.send(reply);
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

type Outcome = Result<Option<Reply>, (bool, ClientError)>;

async fn execute(
    client: &dyn Client,
    tx: &mpsc::UnboundedSender<Reply>,
    action: Action,
) -> Outcome {
    let plain = |e| (false, e);
    match action {
        Action::Prompt {
            session_id,
            text,
            agent,
            model,
        } => {
            let prompt = Prompt { text, agent, model };
            let id = match session_id {
                Some(id) => id,
                None => {
                    let session = client.create_session(&prompt.agent).await.map_err(plain)?;
                    let id = session.id.clone();
                    // Open the new session before its first event can arrive for it.
                    let _ = tx.send(Reply::Snapshot(Snapshot {
                        session,
                        ..Default::default()
                    }));
                    id
                }
            };
            client.prompt(&id, prompt).await.map_err(plain)?;
            Ok(None)
        }
        Action::Abort(id) => client.abort(&id).await.map(|_| None).map_err(plain),
        Action::ReplyPermission {
            request_id,
            reply,
            message,
        } => client
            .reply_permission(&request_id, reply, message)
            .await
            .map(|_| None)
            .map_err(plain),
        Action::ReplyQuestion {
            request_id,
            answers,
        } => client
            .reply_question(&request_id, answers)
            .await
            .map(|_| None)
            .map_err(plain),
        Action::RejectQuestion(id) => client
            .reject_question(&id)
            .await
            .map(|_| None)
            .map_err(plain),
        Action::Open(id) => client
            .snapshot(&id)
            .await
            .map(|s| Some(Reply::Snapshot(s)))
            .map_err(|e| (true, e)),
        Action::ListSessions => client
            .sessions()
            .await
            .map(|s| Some(Reply::Sessions(s)))
            .map_err(plain),
        Action::Revert {
            session_id,
            message_id,
        } => {
            client
                .revert(&session_id, &message_id)
                .await
                .map_err(plain)?;
            Ok(Some(Reply::Snapshot(
                client.snapshot(&session_id).await.map_err(plain)?,
            )))
        }
        Action::Unrevert(id) => {
            client.unrevert(&id).await.map_err(plain)?;
            Ok(Some(Reply::Snapshot(
                client.snapshot(&id).await.map_err(plain)?,
            )))
        }
        Action::Export | Action::Quit => Ok(None),
    }
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
