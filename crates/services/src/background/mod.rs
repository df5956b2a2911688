//! BackgroundShells: the commands `bash` started with `run_in_background` (spec §7.6), per
//! instance and keyed by session.
//!
//! Each shell runs in its own process group through the ChildProcessSpawner (so the sandbox
//! and the crash-recovery record apply as to any bash call) and is driven by a task of the
//! instance scope. Its output goes to an [`OutputLog`](log) that keeps memory bounded and
//! the complete output in a Truncate file. Shells end with the instance (its scope's
//! finalizer), with their session ([`BackgroundShells::end_session`]), or on request.

mod log;
mod shell;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use regex::Regex;
use serde_json::Value;
use strata_graph::{BoxError, Node, Scope, Tier};
use tokio::task::JoinSet;

use crate::clock::Clock;
use crate::config::Config;
use crate::process::sandbox::Sandbox;
use crate::process::{ChildProcessSpawner, CommandSpec, ProcessError};
use crate::truncate::{Limits, Truncate};

pub use log::Unread;
use shell::Shell;
pub use shell::{ShellInfo, ShellStatus};

/// Background shells a session may have running at once unless `limits.background_shells`
/// says otherwise.
pub const DEFAULT_MAX: usize = 8;
/// How long a start waits for the first output or the exit.
pub const FIRST_OUTPUT: Duration = Duration::from_secs(1);
/// Lines of output a notice shows.
pub const NOTICE_LINES: usize = 10;

/// Why a background shell could not be started, read or killed.
#[derive(Debug, thiserror::Error)]
pub enum BackgroundError {
    #[error(
        "this session already has {max} background shells running, the most it may have \
         (config `limits.background_shells`); end one with `bash_kill` first, or wait for one \
         to finish"
    )]
    TooMany { max: usize },
    #[error(
        "no background shell `{id}` in this session; `bash` with `run_in_background: true` \
         returns the id of each shell it starts"
    )]
    Unknown { id: String },
    #[error(transparent)]
    Spawn(#[from] ProcessError),
}

/// What a start returns.
#[derive(Debug, Clone)]
pub struct Started {
    pub id: String,
    /// How it stands after the first-output wait.
    pub status: ShellStatus,
    /// The output of the first-output wait.
    pub output: Unread,
    /// The sandbox's explanation, when it ended already and its output shows a refusal.
    pub hint: Option<String>,
}

/// What a read returns.
#[derive(Debug, Clone)]
pub struct Read {
    pub status: ShellStatus,
    pub output: Unread,
    /// The sandbox's explanation, when it ended with a failure its output blames on it.
    pub hint: Option<String>,
}

/// What the next model request of a session is told about a shell that ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub id: String,
    pub command: String,
    pub status: ShellStatus,
    pub last_lines: String,
    pub hint: Option<String>,
    /// The file with the complete output, when it outgrew memory.
    pub file: Option<std::path::PathBuf>,
}

/// Handle to the registry. Cheap to clone.
#[derive(Clone)]
pub struct BackgroundShells(Arc<Inner>);

struct Inner {
    spawner: ChildProcessSpawner,
    truncate: Truncate,
    clock: Clock,
    max: usize,
    /// Memory bound of each shell's output.
    cap: usize,
    next: AtomicU64,
    shells: Mutex<BTreeMap<u64, Arc<Shell>>>,
    tasks: Mutex<JoinSet<()>>,
}

impl strata_graph::Service for BackgroundShells {
    const KEY: &'static str = "BackgroundShells";
}

impl std::fmt::Debug for BackgroundShells {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BackgroundShells")
            .field("max", &self.0.max)
            .finish()
    }
}

/// Reads `limits.background_shells` from the merged config: a whole number above 0.
pub fn max_from_config(raw: &Value) -> Result<usize, String> {
    match raw.get("limits").and_then(|l| l.get("background_shells")) {
        None | Some(Value::Null) => Ok(DEFAULT_MAX),
        Some(v) => v
            .as_u64()
            .filter(|n| *n > 0)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                format!(
                    "in strata.json, `limits.background_shells` must be a whole number above 0 \
                     (the default is {DEFAULT_MAX}), but it is {v}; fix it or remove it"
                )
            }),
    }
}

impl BackgroundShells {
    /// At most `max` running shells per session, each keeping at most `limits.max_bytes` of
    /// output in memory.
    pub fn new(
        spawner: ChildProcessSpawner,
        truncate: Truncate,
        clock: Clock,
        max: usize,
        limits: Limits,
    ) -> Self {
        Self(Arc::new(Inner {
            spawner,
            truncate,
            clock,
            max,
            cap: limits.max_bytes,
            next: AtomicU64::new(1),
            shells: Mutex::default(),
            tasks: Mutex::new(JoinSet::new()),
        }))
    }

    /// The instance-tier node: the limit from config, and every shell ended with the scope.
    pub fn node() -> Node {
        Node::new(
            Tier::Instance,
            |(spawner, truncate, clock, config): (ChildProcessSpawner, Truncate, Clock, Config),
             scope: Scope| async move {
                let max = max_from_config(&config.raw).map_err(BoxError::from)?;
                let limits =
                    Limits::new(config.tool_output.max_lines, config.tool_output.max_bytes);
                let shells = BackgroundShells::new(spawner, truncate, clock, max, limits);
                let this = shells.clone();
                scope.add_finalizer("end background shells", move || async move {
                    this.end_all().await;
                });
                Ok::<_, BoxError>(shells)
            },
        )
    }

    /// The most shells a session may have running.
    pub fn max(&self) -> usize {
        self.0.max
    }

    fn shells(&self) -> MutexGuard<'_, BTreeMap<u64, Arc<Shell>>> {
        self.0.shells.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn find(&self, session_id: &str, id: &str) -> Result<Arc<Shell>, BackgroundError> {
        self.shells()
            .values()
            .find(|s| s.id == id && s.session_id == session_id)
            .cloned()
            .ok_or_else(|| BackgroundError::Unknown { id: id.to_string() })
    }

    /// Starts `spec` (already placed in the sandbox when one applies; `sandbox` then explains
    /// its refusals) for `session_id`, and waits up to [`FIRST_OUTPUT`] for its first output.
    pub async fn start(
        &self,
        session_id: &str,
        command: &str,
        spec: CommandSpec,
        sandbox: Option<Sandbox>,
    ) -> Result<Started, BackgroundError> {
        let running = self
            .shells()
            .values()
            .filter(|s| s.session_id == session_id && !s.state().status.ended())
            .count();
        if running >= self.0.max {
            return Err(BackgroundError::TooMany { max: self.0.max });
        }
        let child = self.0.spawner.spawn(spec).await?;
        let n = self.0.next.fetch_add(1, Ordering::Relaxed);
        let log = log::OutputLog::new(self.0.truncate.clone(), self.0.cap);
        let started_ms = i64::try_from(self.0.clock.now_ms()).unwrap_or(i64::MAX);
        let shell = Arc::new(Shell::new(
            format!("bg_{n}"),
            session_id.to_string(),
            command.to_string(),
            started_ms,
            sandbox,
            log,
        ));
        self.shells().insert(n, shell.clone());
        self.0
            .tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .spawn(shell::drive(shell.clone(), child));
        shell.settle(FIRST_OUTPUT).await;
        let read = read_from(&shell, None);
        Ok(Started {
            id: shell.id.clone(),
            status: read.status,
            output: read.output,
            hint: read.hint,
        })
    }

    /// The output of shell `id` since the last read (only lines matching `filter` when
    /// given), and how it stands.
    pub fn read(
        &self,
        session_id: &str,
        id: &str,
        filter: Option<&Regex>,
    ) -> Result<Read, BackgroundError> {
        let shell = self.find(session_id, id)?;
        Ok(read_from(&shell, filter))
    }

    /// Ends shell `id` of `session_id` and its whole process group; returns how it ended
    /// (already ended: how it did).
    pub async fn kill(&self, session_id: &str, id: &str) -> Result<ShellInfo, BackgroundError> {
        let shell = self.find(session_id, id)?;
        shell.cancel.cancel();
        shell.ended().await;
        shell.state().told = true;
        Ok(shell.info())
    }

    /// The session's shells, in the order they started.
    pub fn list(&self, session_id: &str) -> Vec<ShellInfo> {
        self.shells()
            .values()
            .filter(|s| s.session_id == session_id)
            .map(|s| s.info())
            .collect()
    }

    /// Notices for the session's shells that ended since the model last heard of them; each
    /// shell gives one notice at most.
    pub fn take_notices(&self, session_id: &str) -> Vec<Notice> {
        let shells: Vec<Arc<Shell>> = self.shells().values().cloned().collect();
        let mut out = Vec::new();
        for shell in shells.iter().filter(|s| s.session_id == session_id) {
            let mut state = shell.state();
            if !state.status.ended() || state.told {
                continue;
            }
            state.told = true;
            let last_lines = state.log.last_lines(NOTICE_LINES);
            let hint = hint_for(shell, state.status, &last_lines);
            out.push(Notice {
                id: shell.id.clone(),
                command: shell.command.clone(),
                status: state.status,
                last_lines,
                hint,
                file: state.log.file(),
            });
        }
        out
    }

    /// Ends every shell of `session_id` and waits until they are gone.
    pub async fn end_session(&self, session_id: &str) {
        let shells: Vec<Arc<Shell>> = self
            .shells()
            .values()
            .filter(|s| s.session_id == session_id)
            .cloned()
            .collect();
        end(&shells).await;
    }

    /// Ends every shell and waits until they are gone.
    pub async fn end_all(&self) {
        let shells: Vec<Arc<Shell>> = self.shells().values().cloned().collect();
        end(&shells).await;
        let mut tasks =
            std::mem::take(&mut *self.0.tasks.lock().unwrap_or_else(PoisonError::into_inner));
        while tasks.join_next().await.is_some() {}
    }
}

async fn end(shells: &[Arc<Shell>]) {
    for s in shells {
        s.cancel.cancel();
    }
    for s in shells {
        s.ended().await;
    }
}

fn read_from(shell: &Shell, filter: Option<&Regex>) -> Read {
    let mut state = shell.state();
    let status = state.status;
    let output = state.log.read(filter, status.ended());
    if status.ended() {
        state.told = true;
    }
    // The refusal may have been read already; the last lines still hold it.
    let hint = hint_for(shell, status, &state.log.last_lines(NOTICE_LINES));
    Read {
        status,
        output,
        hint,
    }
}

/// The sandbox's line for a shell that exited with a failure its `output` blames on it.
fn hint_for(shell: &Shell, status: ShellStatus, output: &str) -> Option<String> {
    match status {
        ShellStatus::Exited { code } if code != Some(0) => shell.sandbox.as_ref()?.hint(output),
        _ => None,
    }
}
