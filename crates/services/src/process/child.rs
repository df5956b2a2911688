//! A running child: its merged output, waiting with a timeout or a cancellation token, and
//! stopping its whole process group (SIGTERM, grace, SIGKILL) so no descendant survives.

use std::future::pending;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use nix::sys::signal::Signal;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::ProcessError;
use super::group::Group;

/// Chunks buffered between the pipe readers and the consumer; beyond this the child blocks on
/// its pipe until the consumer catches up.
const CHANNEL_CHUNKS: usize = 64;
/// Largest chunk read from a pipe at once.
const READ_CHUNK: usize = 64 * 1024;
/// How often a stopping group is checked for survivors.
const POLL: Duration = Duration::from_millis(20);

/// Which pipe a chunk came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pipe {
    Stdout,
    Stderr,
}

/// A piece of output, in the order it arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub stream: Pipe,
    pub data: Bytes,
}

/// How a wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The process ended by itself; `code` is `None` when a signal killed it.
    Exited { code: Option<i32> },
    /// The timeout passed; the whole group was stopped.
    TimedOut,
    /// The token was cancelled; the whole group was stopped.
    Cancelled,
}

/// A started process, leader of its own process group.
///
/// Dropping it before [`Child::wait`] has returned kills the whole group with SIGKILL.
pub struct Child {
    inner: tokio::process::Child,
    group: Group,
    command: String,
    kill_grace: Duration,
    output: Option<mpsc::Receiver<Chunk>>,
    outcome: Option<Outcome>,
    /// The leader was reaped while stopping the group (by a wait that was then abandoned).
    leader_reaped: bool,
    /// Run once the child is dropped (after its group is stopped when it was unfinished).
    on_drop: Option<Box<dyn FnOnce() + Send + Sync>>,
}

impl Child {
    /// Takes over a freshly spawned child whose stdout and stderr are piped, and starts
    /// reading both pipes.
    pub(crate) fn start(
        mut inner: tokio::process::Child,
        group: Group,
        command: String,
        kill_grace: Duration,
    ) -> Self {
        let (tx, rx) = mpsc::channel(CHANNEL_CHUNKS);
        if let Some(out) = inner.stdout.take() {
            tokio::spawn(pump(out, Pipe::Stdout, tx.clone()));
        }
        if let Some(err) = inner.stderr.take() {
            tokio::spawn(pump(err, Pipe::Stderr, tx));
        }
        Self {
            inner,
            group,
            command,
            kill_grace,
            output: Some(rx),
            outcome: None,
            leader_reaped: false,
            on_drop: None,
        }
    }

    /// Runs `f` when this child is dropped, e.g. to forget a record of its process group.
    pub fn on_drop(&mut self, f: impl FnOnce() + Send + Sync + 'static) {
        self.on_drop = Some(Box::new(f));
    }

    /// Whether the process itself has ended (its group may live on), without waiting. The
    /// exit is noted but the group is left to [`Child::wait`] or the drop.
    pub fn has_exited(&mut self) -> bool {
        if self.outcome.is_some() || self.leader_reaped {
            return true;
        }
        match self.inner.try_wait() {
            Ok(Some(_)) => {
                // Reaped here: from now on the group id is trusted only while a member lives.
                self.leader_reaped = true;
                true
            }
            Ok(None) => false,
            // Not waitable any more: it is not running as our child.
            Err(_) => true,
        }
    }

    /// Process id, which is also the process group id.
    pub fn pid(&self) -> u32 {
        self.group.id().unsigned_abs()
    }

    /// The stdin pipe of a child spawned with [`CommandSpec::stdin_piped`](super::CommandSpec);
    /// `None` otherwise or once taken. Dropping it closes the child's input.
    pub fn stdin(&mut self) -> Option<tokio::process::ChildStdin> {
        self.inner.stdin.take()
    }

    /// The rendered command line.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The merged stdout and stderr, in arrival order; it ends once both pipes are closed
    /// (which a background descendant holding them can delay past the child's exit).
    ///
    /// Read it while waiting: the channel is bounded, so an unread receiver eventually makes
    /// the child block on its output. Only the first call gets the output; later calls get
    /// an empty receiver. If it was never taken, [`Child::wait`] discards the output.
    pub fn output(&mut self) -> mpsc::Receiver<Chunk> {
        match self.output.take() {
            Some(rx) => rx,
            None => mpsc::channel(1).1,
        }
    }

    /// Waits until the process exits, the timeout passes or `cancel` fires. On timeout or
    /// cancellation the whole group gets SIGTERM, then SIGKILL after the spec's kill grace,
    /// and the child is reaped before this returns. Calling it again returns the same outcome.
    pub async fn wait(
        &mut self,
        timeout: Option<Duration>,
        cancel: CancellationToken,
    ) -> Result<Outcome, ProcessError> {
        if let Some(done) = self.outcome {
            return Ok(done);
        }
        // Nobody asked for the output: let the readers discard it so the child never blocks.
        self.output = None;
        let timer = async {
            match timeout {
                Some(t) => tokio::time::sleep(t).await,
                None => pending().await,
            }
        };
        enum Event {
            Exit(std::io::Result<std::process::ExitStatus>),
            Timeout,
            Cancel,
        }
        let event = tokio::select! {
            biased;
            status = self.inner.wait() => Event::Exit(status),
            _ = cancel.cancelled() => Event::Cancel,
            _ = timer => Event::Timeout,
        };
        let outcome = match event {
            Event::Exit(Ok(status)) => Outcome::Exited {
                code: status.code(),
            },
            Event::Exit(Err(source)) => {
                return Err(ProcessError::Wait {
                    command: self.command.clone(),
                    source,
                });
            }
            Event::Timeout => {
                self.stop_group().await?;
                Outcome::TimedOut
            }
            Event::Cancel => {
                self.stop_group().await?;
                Outcome::Cancelled
            }
        };
        self.outcome = Some(outcome);
        Ok(outcome)
    }

    /// Once [`Child::wait`] has returned: ends what is left of the group (descendants the
    /// leader left running), SIGTERM then SIGKILL after the kill grace. The group id is
    /// signalled only while a member lives, so a reused id is never hit.
    pub async fn end_rest(&mut self) {
        if self.outcome.is_none() || !self.group.alive() {
            return;
        }
        self.group.signal(Signal::SIGTERM);
        let deadline = deadline_after(self.kill_grace);
        while self.group.alive() {
            if Instant::now() >= deadline {
                self.group.signal(Signal::SIGKILL);
                return;
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// SIGTERM to the group, SIGKILL once the grace has passed with members still alive,
    /// then reap the leader.
    async fn stop_group(&mut self) -> Result<(), ProcessError> {
        self.group.signal(Signal::SIGTERM);
        let deadline = deadline_after(self.kill_grace);
        loop {
            // Reap the leader as soon as it exits so it stops counting as a member.
            if let Ok(Some(_)) = self.inner.try_wait() {
                self.leader_reaped = true;
            }
            if !self.group.alive() {
                break;
            }
            if Instant::now() >= deadline {
                self.group.signal(Signal::SIGKILL);
                break;
            }
            tokio::time::sleep(POLL).await;
        }
        self.inner
            .wait()
            .await
            .map(|_| ())
            .map_err(|source| ProcessError::Wait {
                command: self.command.clone(),
                source,
            })
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        // An unreaped leader keeps the group id reserved; once it is reaped, the id still
        // names this child's group only while some member lives.
        if self.outcome.is_none() && (!self.leader_reaped || self.group.alive()) {
            self.group.signal(Signal::SIGKILL);
        }
        if let Some(f) = self.on_drop.take() {
            f();
        }
    }
}

impl std::fmt::Debug for Child {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Child")
            .field("pid", &self.pid())
            .field("command", &self.command)
            .field("outcome", &self.outcome)
            .finish()
    }
}

/// `now + d`, saturated to about thirty years so a huge duration cannot overflow.
pub(crate) fn deadline_after(d: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(d)
        .unwrap_or_else(|| now + Duration::from_secs(30 * 365 * 24 * 3600))
}

/// Copies one pipe into the channel until end of file. When the receiver is gone it keeps
/// reading and discards, so the child neither blocks nor dies of SIGPIPE.
async fn pump(mut pipe: impl AsyncRead + Unpin, stream: Pipe, tx: mpsc::Sender<Chunk>) {
    let mut buf = BytesMut::with_capacity(READ_CHUNK);
    let mut open = true;
    loop {
        buf.reserve(READ_CHUNK);
        match pipe.read_buf(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let data = buf.split().freeze();
                if open && tx.send(Chunk { stream, data }).await.is_err() {
                    open = false;
                }
            }
        }
    }
}
