//! The signals that end a run early: Ctrl-C (SIGINT), SIGTERM and SIGHUP. Each cancels the run
//! the same way, so the running tool's process group is stopped and the events are committed;
//! the exit code then says which signal it was (128 + its number).

use tokio::signal::unix::{SignalKind, signal};

/// A signal that asked the process to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Interrupt {
    Int,
    Term,
    Hup,
}

impl Interrupt {
    /// 128 + the signal number, as shells report a process ended by it.
    pub(crate) fn exit_code(self) -> u8 {
        match self {
            Interrupt::Int => 130,
            Interrupt::Term => 143,
            Interrupt::Hup => 129,
        }
    }
}

/// Waits for the first of SIGINT, SIGTERM or SIGHUP. A signal whose handler cannot be
/// installed is left to its default action rather than failing the run.
pub(crate) async fn interrupted() -> Interrupt {
    let wait = |kind: SignalKind, what: Interrupt| async move {
        match signal(kind) {
            Ok(mut s) => {
                s.recv().await;
                what
            }
            Err(e) => {
                tracing::warn!("could not listen for {what:?}: {e}");
                std::future::pending().await
            }
        }
    };
    tokio::select! {
        s = wait(SignalKind::interrupt(), Interrupt::Int) => s,
        s = wait(SignalKind::terminate(), Interrupt::Term) => s,
        s = wait(SignalKind::hangup(), Interrupt::Hup) => s,
    }
}
