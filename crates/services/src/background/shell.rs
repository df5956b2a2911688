//! One background shell: the task that feeds its output into its [`OutputLog`] and waits for
//! it, and the state the registry and the tools read.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::log::OutputLog;
use crate::process::sandbox::Sandbox;
use crate::process::{Child, Outcome};

/// After the shell itself exits, how long output still held open by a descendant is read
/// before the rest of its group is ended.
const DRAIN_GRACE: Duration = Duration::from_millis(500);

/// Where a background shell is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellStatus {
    Running,
    /// The command ended by itself; `code` is `None` when a signal ended it.
    Exited {
        code: Option<i32>,
    },
    /// `bash_kill`, the API or the end of the session or instance ended it.
    Killed,
}

impl ShellStatus {
    /// `running`, `exited` or `killed`, as the API shows it.
    pub fn name(self) -> &'static str {
        match self {
            ShellStatus::Running => "running",
            ShellStatus::Exited { .. } => "exited",
            ShellStatus::Killed => "killed",
        }
    }

    /// The exit code, once the command exited with one.
    pub fn exit_code(self) -> Option<i32> {
        match self {
            ShellStatus::Exited { code } => code,
            _ => None,
        }
    }

    /// Whether it has ended.
    pub fn ended(self) -> bool {
        self != ShellStatus::Running
    }

    /// A few words on how it stands, for the model.
    pub fn describe(self) -> String {
        match self {
            ShellStatus::Running => "running".into(),
            ShellStatus::Exited { code: Some(c) } => format!("exited with status {c}"),
            ShellStatus::Exited { code: None } => "ended by a signal".into(),
            ShellStatus::Killed => "killed".into(),
        }
    }
}

/// What the API and the status bar show of one shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellInfo {
    pub id: String,
    pub session_id: String,
    pub command: String,
    pub status: ShellStatus,
    /// When it started, in ms since the epoch.
    pub started_ms: i64,
}

/// The mutable part of a shell.
pub(crate) struct State {
    pub(crate) status: ShellStatus,
    pub(crate) log: OutputLog,
    /// The model was told how it ended (by a read, a kill or a notice).
    pub(crate) told: bool,
}

/// A background shell, shared by the registry and its task.
pub(crate) struct Shell {
    pub(crate) id: String,
    pub(crate) session_id: String,
    pub(crate) command: String,
    pub(crate) started_ms: i64,
    /// Set unless the command runs outside the sandbox: explains a refusal in its output.
    pub(crate) sandbox: Option<Sandbox>,
    pub(crate) cancel: CancellationToken,
    state: Mutex<State>,
    /// Bumped on every chunk and at the end, so waiters wake.
    changed: watch::Sender<u64>,
}

impl Shell {
    pub(crate) fn new(
        id: String,
        session_id: String,
        command: String,
        started_ms: i64,
        sandbox: Option<Sandbox>,
        log: OutputLog,
    ) -> Self {
        Self {
            id,
            session_id,
            command,
            started_ms,
            sandbox,
            cancel: CancellationToken::new(),
            state: Mutex::new(State {
                status: ShellStatus::Running,
                log,
                told: false,
            }),
            changed: watch::channel(0).0,
        }
    }

    /// The state; a holder that panicked leaves it usable (each update is one assignment).
    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn info(&self) -> ShellInfo {
        ShellInfo {
            id: self.id.clone(),
            session_id: self.session_id.clone(),
            command: self.command.clone(),
            status: self.state().status,
            started_ms: self.started_ms,
        }
    }

    pub(crate) fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    /// Waits until output arrives or the shell ends, at most `limit`; returns early on
    /// either, after a short pause so a burst of output is read whole.
    pub(crate) async fn settle(&self, limit: Duration) {
        let mut rx = self.subscribe();
        let deadline = Instant::now() + limit;
        loop {
            {
                let s = self.state();
                if s.status.ended() || s.log.has_unread() {
                    break;
                }
            }
            tokio::select! {
                r = rx.changed() => if r.is_err() { return },
                () = tokio::time::sleep_until(deadline) => return,
            }
        }
        if !self.state().status.ended() {
            let pause = Instant::now() + Duration::from_millis(50);
            let _ = tokio::time::timeout_at(pause.min(deadline), async {
                while !self.state().status.ended() {
                    if rx.changed().await.is_err() {
                        return;
                    }
                }
            })
            .await;
        }
    }

    /// Waits until the shell has ended.
    pub(crate) async fn ended(&self) {
        let mut rx = self.subscribe();
        while !self.state().status.ended() {
            if rx.changed().await.is_err() {
                return;
            }
        }
    }
}

/// Feeds `child`'s output into the shell until it ends or is cancelled, then ends what is
/// left of its process group and records the status.
pub(crate) async fn drive(shell: Arc<Shell>, mut child: Child) {
    let mut output = child.output();
    let mut open = true;
    let outcome = {
        let wait = child.wait(None, shell.cancel.clone());
        tokio::pin!(wait);
        loop {
            tokio::select! {
                chunk = output.recv(), if open => match chunk {
                    Some(chunk) => {
                        shell.state().log.push(&chunk.data);
                        shell.bump();
                    }
                    None => open = false,
                },
                outcome = &mut wait => break outcome,
            }
        }
    };
    // Output a descendant still holds open is read for a moment, then the group is ended.
    let deadline = Instant::now() + DRAIN_GRACE;
    while open {
        tokio::select! {
            chunk = output.recv() => match chunk {
                Some(chunk) => shell.state().log.push(&chunk.data),
                None => open = false,
            },
            () = tokio::time::sleep_until(deadline) => break,
        }
    }
    child.end_rest().await;
    while let Ok(Some(chunk)) = tokio::time::timeout(DRAIN_GRACE, output.recv()).await {
        shell.state().log.push(&chunk.data);
    }
    let status = match outcome {
        Ok(Outcome::Exited { code }) => ShellStatus::Exited { code },
        Ok(Outcome::Cancelled | Outcome::TimedOut) => ShellStatus::Killed,
        Err(e) => {
            tracing::warn!(shell = %shell.id, error = %e, "could not wait for a background shell");
            ShellStatus::Exited { code: None }
        }
    };
    shell.state().status = status;
    shell.bump();
    drop(child);
}
