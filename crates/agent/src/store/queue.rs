//! Prompts a server accepted and has not started yet (`queued_prompts`), with the process that
//! holds them. A row lives from the moment the prompt is accepted until its turn begins, so a
//! server that dies with prompts waiting leaves them for its successor to report.

use rusqlite::params;
use strata_services::process::ProcessIdentity;

use super::ids::now_ms;
use super::runs::{identity, ticks};
use super::{SqlResult, Store, StoreError};

/// A prompt waiting for its turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedPrompt {
    pub id: String,
    pub session_id: String,
    pub text: String,
    pub owner: ProcessIdentity,
    pub queued_ms: i64,
}

impl Store {
    /// Records that `owner` accepted prompt `id` for the session and will run it.
    pub fn queue_prompt(
        &self,
        id: &str,
        session_id: &str,
        text: &str,
        owner: &ProcessIdentity,
    ) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "INSERT INTO queued_prompts
                 (id, session_id, text, pid, start_ticks, boot_id, queued_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    id,
                    session_id,
                    text,
                    owner.pid,
                    ticks(owner.start_ticks),
                    owner.boot_id,
                    now_ms()
                ],
            )
            .op(self.path(), "recording a queued prompt")?;
        Ok(())
    }

    /// Forgets prompt `id`: its turn began, or its loss was reported.
    pub fn unqueue_prompt(&self, id: &str) -> Result<(), StoreError> {
        self.conn()
            .execute("DELETE FROM queued_prompts WHERE id = ?1", [id])
            .op(self.path(), "forgetting a queued prompt")?;
        Ok(())
    }

    /// Every queued prompt, of all owners, oldest first.
    pub fn queued_prompts(&self) -> Result<Vec<QueuedPrompt>, StoreError> {
        self.conn()
            .prepare(
                "SELECT id, session_id, text, pid, start_ticks, boot_id, queued_ms
                 FROM queued_prompts ORDER BY queued_ms, id",
            )
            .and_then(|mut s| {
                s.query_map([], |r| {
                    Ok(QueuedPrompt {
                        id: r.get(0)?,
                        session_id: r.get(1)?,
                        text: r.get(2)?,
                        owner: identity(r.get(3)?, r.get(4)?, r.get(5)?),
                        queued_ms: r.get(6)?,
                    })
                })?
                .collect()
            })
            .op(self.path(), "reading queued prompts")
    }
}
