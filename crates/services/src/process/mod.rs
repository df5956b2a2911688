//! ChildProcessSpawner: the only way tools run processes.
//!
//! Every child runs in its own process group with stdin closed and stdout/stderr piped and
//! merged in arrival order. Waiting takes a timeout and a cancellation token; on either the
//! whole group is stopped (SIGTERM, then SIGKILL after a grace) so no descendant survives,
//! and dropping an unfinished [`Child`] kills its group (spec §7.1, §7.2).

mod child;
mod error;
mod group;
mod identity;
mod live;
pub mod sandbox;
mod spec;

#[cfg(test)]
mod tests;

use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

pub use child::{Child, Chunk, Outcome, Pipe};
pub use error::ProcessError;
pub use group::live_members;
pub use identity::{ProcessIdentity, end_orphan_group};
pub use spec::{CommandSpec, DEFAULT_KILL_GRACE};

/// What a spawner implementation provides.
#[async_trait]
pub trait SpawnApi: Send + Sync + 'static {
    /// Starts the command; errors name the command, and the cwd when that is what is missing.
    async fn spawn(&self, spec: CommandSpec) -> Result<Child, ProcessError>;
}

/// Handle to the process spawner.
#[derive(Clone)]
pub struct ChildProcessSpawner(Arc<dyn SpawnApi>);

impl strata_graph::Service for ChildProcessSpawner {
    const KEY: &'static str = "ChildProcessSpawner";
}

/// Everything a short helper command produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// Exit code; `None` when a signal ended the process.
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Output {
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// Stdout as text, invalid UTF-8 replaced.
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Stderr as text, invalid UTF-8 replaced.
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

impl ChildProcessSpawner {
    /// Wraps any implementation.
    pub fn new(api: impl SpawnApi) -> Self {
        Self(Arc::new(api))
    }

    /// Spawns real processes.
    pub fn live() -> Self {
        Self::new(live::LiveSpawner)
    }

    /// Runs a short command (git and the like) to completion and collects its output. Past
    /// `timeout` its group is stopped and the call fails with `TimedOut`. Output still held
    /// open by a background descendant after the exit is collected until the same deadline.
    pub async fn run(&self, spec: CommandSpec, timeout: Duration) -> Result<Output, ProcessError> {
        self.run_with_input(spec, None, timeout).await
    }

    /// Like [`ChildProcessSpawner::run`], with `input` written to the child's stdin, which is
    /// then closed (hooks read their JSON object this way).
    pub async fn run_with_input(
        &self,
        spec: CommandSpec,
        input: Option<Vec<u8>>,
        timeout: Duration,
    ) -> Result<Output, ProcessError> {
        let spec = if input.is_some() {
            spec.stdin_piped()
        } else {
            spec
        };
        let mut child = self.spawn(spec).await?;
        if let (Some(bytes), Some(mut stdin)) = (input, child.stdin()) {
            // On its own task: a child that never reads its input must not hold up the wait,
            // and one that exits early only breaks the pipe.
            tokio::spawn(async move {
                use tokio::io::AsyncWriteExt;
                let _ = stdin.write_all(&bytes).await;
            });
        }
        let deadline = child::deadline_after(timeout);
        let mut rx = child.output();
        let collect = async move {
            let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
            loop {
                tokio::select! {
                    chunk = rx.recv() => match chunk {
                        Some(Chunk { stream: Pipe::Stdout, data }) => stdout.extend_from_slice(&data),
                        Some(Chunk { stream: Pipe::Stderr, data }) => stderr.extend_from_slice(&data),
                        None => break,
                    },
                    _ = tokio::time::sleep_until(deadline) => break,
                }
            }
            (stdout, stderr)
        };
        let (outcome, (stdout, stderr)) =
            tokio::join!(child.wait(Some(timeout), CancellationToken::new()), collect);
        match outcome? {
            Outcome::Exited { code } => Ok(Output {
                code,
                stdout,
                stderr,
            }),
            Outcome::TimedOut | Outcome::Cancelled => Err(ProcessError::TimedOut {
                command: child.command().to_string(),
                timeout,
            }),
        }
    }
}

impl Deref for ChildProcessSpawner {
    type Target = dyn SpawnApi;

    fn deref(&self) -> &Self::Target {
        &*self.0
    }
}

impl std::fmt::Debug for ChildProcessSpawner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ChildProcessSpawner")
    }
}
