//! `SessionEnd` from the server: a session that took a prompt in this process ends when it is
//! deleted (`reason: "other"`), when the front-end that drove it quits (the TUI says
//! `prompt_input_exit`) or when the server shuts down (`other`), once each. A session
//! that only had shell commands or was never prompted here never started, so it does not end.

use std::collections::HashSet;
use std::sync::{Mutex, PoisonError};

use super::ServerCore;

/// The sessions prompted in this process and not ended yet.
#[derive(Debug, Default)]
pub(crate) struct Active(Mutex<HashSet<String>>);

impl Active {
    pub(crate) fn add(&self, session_id: &str) {
        // Each critical section is one insert or removal: a poisoned set is still whole.
        let mut set = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        set.insert(session_id.to_string());
    }

    /// Takes `session_id` out: `true` when it was active.
    fn take(&self, session_id: &str) -> bool {
        let mut set = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        set.remove(session_id)
    }

    /// Takes every session out, in id order.
    fn take_all(&self) -> Vec<String> {
        let mut set = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let mut ids: Vec<String> = set.drain().collect();
        ids.sort();
        ids
    }
}

impl ServerCore {
    /// Runs the `SessionEnd` hooks of `session_id` with `reason`, if it was prompted in this
    /// process and has not ended yet. A hook's failure is a warning in its record; a session
    /// whose hooks cannot be reached is logged and skipped, never an error for the caller.
    pub async fn end_session(&self, session_id: &str, reason: &str) {
        if self.inner.active.take(session_id) {
            self.run_session_end(session_id, reason).await;
        }
    }

    /// [`end_session`](Self::end_session) for every session still active, one after another.
    pub async fn end_sessions(&self, reason: &str) {
        for id in self.inner.active.take_all() {
            self.run_session_end(&id, reason).await;
        }
    }

    async fn run_session_end(&self, session_id: &str, reason: &str) {
        let entry = match self.session_instance(session_id).await {
            Ok(entry) => entry,
            Err(e) => {
                tracing::warn!(
                    session = session_id,
                    "the SessionEnd hooks did not run: {e}"
                );
                return;
            }
        };
        let hooks = &entry.services.hooks;
        let ended =
            strata_agent::session::hooks::session_end(hooks, self.store(), session_id, reason);
        if let Err(e) = ended.await {
            tracing::warn!(
                session = session_id,
                "the SessionEnd hooks were not recorded: {e}"
            );
        }
    }
}
