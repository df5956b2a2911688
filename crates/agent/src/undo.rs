//! Undo for a session, over the Snapshots service and the store:
//! - [`Undo::revert`] goes back to a message: the files return to the snapshot taken before
//!   that message (or the first later one) changed anything, and that message and every later
//!   one leave the conversation while the revert stands;
//! - [`Undo::unrevert`] puts the files back as they were before the revert and shows the
//!   messages again;
//! - a new prompt on a reverted session makes the revert final ([`commit_revert`]): the taken
//!   back messages are hidden for good (still in the store and in exports).
//! - [`Undo::diff`] is what the session changed, from its first snapshot to the files now.
//!
//! A revert says what it did to the files ([`FilesNote`]): what it restored, what the
//! snapshots leave out, and when it changed no file, why; it never claims a restore it did
//! not make.

mod note;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use strata_services::snapshot::{FileChange, SnapshotError, Snapshots};

use crate::store::{Message, Part, Revert, Store, StoreError};
pub use note::{FilesNote, Restore, files_note};

/// A revert that was made, with what it did to the files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevertOutcome {
    pub revert: Revert,
    pub files: FilesNote,
}

/// Why an undo operation could not be done.
#[derive(Debug, thiserror::Error)]
pub enum UndoError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}; the files were left as they are")]
    Snapshot(#[from] SnapshotError),
    #[error(
        "session `{session}` has no message `{message}`; list its messages with GET /session/{session}/message"
    )]
    UnknownMessage { session: String, message: String },
    #[error("session `{session}` is not reverted, so there is nothing to unrevert")]
    NotReverted { session: String },
}

/// Undo over one project's worktree.
#[derive(Debug, Clone)]
pub struct Undo {
    store: Store,
    snapshots: Snapshots,
    worktree: PathBuf,
}

impl Undo {
    pub fn new(store: Store, snapshots: Snapshots, worktree: PathBuf) -> Self {
        Self {
            store,
            snapshots,
            worktree,
        }
    }

    /// Reverts the session to just before `message_id`.
    pub async fn revert(
        &self,
        session_id: &str,
        message_id: &str,
    ) -> Result<RevertOutcome, UndoError> {
        let messages = self.store.messages(session_id)?;
        let Some(index) = messages.iter().position(|(m, _)| m.id == message_id) else {
            return Err(UndoError::UnknownMessage {
                session: session_id.into(),
                message: message_id.into(),
            });
        };
        let existing = self.store.revert_of(session_id)?;
        if let Some(refused) = self.snapshots.refused(&self.worktree) {
            // No snapshot can exist here: take back the conversation and say so.
            let revert = Revert {
                message_id: message_id.to_string(),
                snapshot: existing.map(|r| r.snapshot).unwrap_or_default(),
            };
            self.store.set_revert(session_id, &revert)?;
            let files = files_note(Restore::Refused(&refused.detail), &[], false);
            return Ok(RevertOutcome { revert, files });
        }
        let marks = self.snapshots.marks(&self.worktree, session_id).await?;
        let marks: HashMap<String, String> = marks.into_iter().collect();
        // The first mark among the taken-back messages, in conversation order, is the state
        // before any of them changed a file.
        let target = messages[index..]
            .iter()
            .find_map(|(m, _)| marks.get(&m.id).cloned());
        // Unrevert must return to the files before the FIRST revert, however often it moved;
        // that tree is kept, so the store's budget never collects it.
        let before = match &existing {
            Some(r) => r.snapshot.clone(),
            None => self.snapshots.keep(&self.worktree, session_id).await?,
        };
        let tree = target.or(existing.map(|r| r.snapshot));
        let restored = match tree.filter(|t| !t.is_empty()) {
            Some(tree) => Some(self.snapshots.restore(&self.worktree, &tree).await?),
            None => None,
        };
        let revert = Revert {
            message_id: message_id.to_string(),
            snapshot: before,
        };
        self.store.set_revert(session_id, &revert)?;
        let skipped = self.snapshots.skipped(&self.worktree).await?;
        let restore = restored
            .as_deref()
            .map_or(Restore::NoSnapshot, Restore::Done);
        let git = self.worktree.join(".git").exists();
        let files = files_note(restore, &skipped, git);
        Ok(RevertOutcome { revert, files })
    }

    /// Undoes the session's revert.
    pub async fn unrevert(&self, session_id: &str) -> Result<(), UndoError> {
        let Some(revert) = self.store.revert_of(session_id)? else {
            return Err(UndoError::NotReverted {
                session: session_id.into(),
            });
        };
        // An empty snapshot: the revert was made where snapshots are off, and moved no file.
        if !revert.snapshot.is_empty() {
            self.snapshots
                .restore(&self.worktree, &revert.snapshot)
                .await?;
        }
        self.store.clear_revert(session_id)?;
        Ok(())
    }

    /// The session's file changes: from its first snapshot to the files now (empty when it
    /// never changed a file while snapshots were on, or snapshots are refused in its folder).
    pub async fn diff(&self, session_id: &str) -> Result<Vec<FileChange>, UndoError> {
        // A refused folder (home, root) has no snapshots, so no change to show.
        if self.snapshots.refused(&self.worktree).is_some() {
            return Ok(Vec::new());
        }
        let marks = self.snapshots.marks(&self.worktree, session_id).await?;
        let Some((_, first)) = marks.first() else {
            return Ok(Vec::new());
        };
        Ok(self.snapshots.changes(&self.worktree, first, None).await?)
    }
}

/// The messages of the conversation: without those hidden for good, and without those an
/// active revert took back.
pub fn conversation(
    store: &Store,
    session_id: &str,
) -> Result<Vec<(Message, Vec<Part>)>, StoreError> {
    let messages = store.messages(session_id)?;
    let hidden = store.hidden_messages(session_id)?;
    let revert = store.revert_of(session_id)?;
    Ok(visible(messages, &hidden, revert.as_ref()))
}

/// The rule of [`visible`] for one message at a time, for readers of part of a session: a
/// message is shown unless hidden for good or at or after a standing revert's message.
#[derive(Debug, Clone, Default)]
pub struct Shown {
    hidden: HashSet<String>,
    /// The revert's message, `(created_ms, id)`, when it exists in the session.
    cut: Option<(i64, String)>,
}

impl Shown {
    pub fn of(store: &Store, session_id: &str) -> Result<Self, StoreError> {
        let hidden = store.hidden_messages(session_id)?;
        let cut = match store.revert_of(session_id)? {
            Some(r) => match store.message_with_parts(session_id, &r.message_id) {
                Ok((m, _)) => Some((m.created_ms, m.id)),
                // As in `visible`: a revert to a message the session lacks cuts nothing.
                Err(StoreError::NotFound { .. }) => None,
                Err(e) => return Err(e),
            },
            None => None,
        };
        Ok(Self { hidden, cut })
    }

    pub fn keeps(&self, m: &Message) -> bool {
        !self.hidden.contains(&m.id)
            && self
                .cut
                .as_ref()
                .is_none_or(|(ms, id)| (m.created_ms, m.id.as_str()) < (*ms, id.as_str()))
    }
}

/// Makes a standing revert final before a new prompt: the taken-back messages are hidden for
/// good (each with a `message.removed` event) and the revert is cleared.
pub fn commit_revert(store: &Store, session_id: &str) -> Result<(), StoreError> {
    let Some(revert) = store.revert_of(session_id)? else {
        return Ok(());
    };
    let messages = store.messages(session_id)?;
    if let Some(index) = messages.iter().position(|(m, _)| m.id == revert.message_id) {
        for (message, _) in &messages[index..] {
            store.hide_message(session_id, &message.id)?;
        }
    }
    store.clear_revert(session_id)?;
    Ok(())
}

/// `messages` without the hidden ones and, under a revert, without its message and the later
/// ones (plain function: the rule alone, tested alone).
pub fn visible(
    messages: Vec<(Message, Vec<Part>)>,
    hidden: &HashSet<String>,
    revert: Option<&Revert>,
) -> Vec<(Message, Vec<Part>)> {
    let cut = revert
        .and_then(|r| messages.iter().position(|(m, _)| m.id == r.message_id))
        .unwrap_or(messages.len());
    messages
        .into_iter()
        .take(cut)
        .filter(|(m, _)| !hidden.contains(&m.id))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::store::Role;

    fn message(id: &str) -> (Message, Vec<Part>) {
        let m = Message {
            id: id.into(),
            session_id: "s".into(),
            role: Role::User,
            created_ms: 0,
            data: json!({}),
        };
        (m, Vec::new())
    }

    fn ids(messages: &[(Message, Vec<Part>)]) -> Vec<&str> {
        messages.iter().map(|(m, _)| m.id.as_str()).collect()
    }

    #[test]
    fn a_revert_cuts_at_its_message_and_hidden_messages_stay_out() {
        let all = || vec![message("a"), message("b"), message("c"), message("d")];
        let hidden: HashSet<String> = ["b".to_string()].into();
        assert_eq!(ids(&visible(all(), &hidden, None)), ["a", "c", "d"]);
        let revert = Revert {
            message_id: "c".into(),
            snapshot: "t".into(),
        };
        assert_eq!(
            ids(&visible(all(), &HashSet::new(), Some(&revert))),
            ["a", "b"]
        );
        assert_eq!(ids(&visible(all(), &hidden, Some(&revert))), ["a"]);
        // A revert to a message that is gone changes nothing.
        let stale = Revert {
            message_id: "zz".into(),
            snapshot: "t".into(),
        };
        assert_eq!(
            ids(&visible(all(), &HashSet::new(), Some(&stale))),
            ["a", "b", "c", "d"]
        );
    }
}
