//! Compaction the user asks for (`POST /session/:id/summarize`): a turn of its own in the
//! session's queue, so it never runs beside a prompt, under the session's last agent and the
//! model named (else the config's). The `PreCompact` hooks see `trigger: "manual"`.

use std::sync::atomic::Ordering;

use serde::Deserialize;
use strata_agent::store::Role;
use strata_protocol::message::UserMessage;
use strata_protocol::wire::ModelChoice;

use super::turns::{TurnHandle, Work, turn_id};
use super::{CoreError, ServerCore};

impl ServerCore {
    /// Queues a summary of the session and returns at once; `instructions` (may be empty) go
    /// to the summary request and to the hooks as `custom_instructions`.
    pub async fn summarize(
        &self,
        session_id: &str,
        model: Option<&ModelChoice>,
        instructions: String,
    ) -> Result<TurnHandle, CoreError> {
        self.session_row(session_id)?;
        // Only the last prompt is read, whatever the session's length.
        let Some(last_prompt) = self.store().last_message(session_id, Role::User)? else {
            return Err(CoreError::BadRequest(format!(
                "session {session_id} has no messages to summarize yet; send a prompt first"
            )));
        };
        // The agent of the last prompt, as opencode does.
        let agent = UserMessage::deserialize(&last_prompt.data)
            .ok()
            .map(|m| m.agent)
            .filter(|a| !a.is_empty());
        let (runner, directory) = self.runner_for(session_id, agent, model).await?;
        let slot = self.inner.turns.slot(session_id);
        slot.waiting.fetch_add(1, Ordering::SeqCst);
        let work = Work::Compact(instructions);
        Ok(self.spawn_turn(turn_id(), slot, session_id, directory, runner, work))
    }
}
