//! Undo through the core: revert a session to a message, unrevert, and the session's file
//! changes, over the agent's [`Undo`] for the session's project. A busy session is refused:
//! files must not move under a running turn.

use serde_json::Value;
use strata_agent::undo::{Undo, UndoError};
use strata_protocol::wire::{FileDiff, SessionInfo};
use strata_services::snapshot::Snapshots;

use super::{CoreError, ServerCore};

impl ServerCore {
    /// The undo of session `id`'s project (its instance is built if needed).
    async fn undo_of(&self, id: &str) -> Result<Undo, CoreError> {
        let row = self.session_row(id)?;
        let entry = self.instance(&row.directory).await?;
        let snapshots = entry
            .instance
            .get::<Snapshots>()
            .map_err(|e| CoreError::Internal(e.to_string()))?;
        Ok(Undo::new(
            self.store().clone(),
            snapshots,
            entry.services.info.worktree.clone(),
        ))
    }

    /// `POST /session/:id/revert`: files back to before `message_id`, later messages hidden.
    /// The reply's `revert.files` says what was restored and what the snapshots do not cover.
    pub async fn revert(&self, id: &str, message_id: &str) -> Result<SessionInfo, CoreError> {
        self.ensure_idle(id).await?;
        let outcome = self
            .undo_of(id)
            .await?
            .revert(id, message_id)
            .await
            .map_err(undo_error)?;
        let mut info = self.session(id)?;
        if let Some(Value::Object(revert)) = info.extra.get_mut("revert") {
            revert.insert("files".into(), outcome.files.to_json());
        }
        Ok(info)
    }

    /// `POST /session/:id/unrevert`: files and messages as they were before the revert.
    pub async fn unrevert(&self, id: &str) -> Result<SessionInfo, CoreError> {
        self.ensure_idle(id).await?;
        self.undo_of(id)
            .await?
            .unrevert(id)
            .await
            .map_err(undo_error)?;
        self.session(id)
    }

    /// `GET /session/:id/diff`: what the session changed in the project so far.
    pub async fn diff(&self, id: &str) -> Result<Vec<FileDiff>, CoreError> {
        let changes = self.undo_of(id).await?.diff(id).await.map_err(undo_error)?;
        Ok(changes
            .into_iter()
            .map(|c| FileDiff {
                path: c.path,
                status: c.status.to_string(),
                additions: c.additions,
                deletions: c.deletions,
                patch: c.patch,
            })
            .collect())
    }
}

fn undo_error(e: UndoError) -> CoreError {
    match e {
        UndoError::UnknownMessage { message, .. } => CoreError::not_found("message", &message),
        UndoError::NotReverted { .. } => CoreError::BadRequest(e.to_string()),
        UndoError::Store(s) => CoreError::Store(s),
        UndoError::Snapshot(_) => CoreError::Internal(e.to_string()),
    }
}
