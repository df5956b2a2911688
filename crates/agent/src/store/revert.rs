//! Undo bookkeeping: a session's active revert (`reverts`) and the messages a later prompt
//! dropped for good (`hidden_messages`). Rows are never deleted from `messages`: a hidden
//! message still shows in exports, it is only left out of the conversation.

use std::collections::HashSet;

use rusqlite::{OptionalExtension, params};
use serde_json::{Value, json};

use super::read::load_session;
use super::types::{Event, StoreError, kinds};
use super::{SqlResult, Store};

/// A session's active revert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revert {
    /// The first message taken back (it and every later one are hidden while reverted).
    pub message_id: String,
    /// The files as they were before the revert, restored by unrevert.
    pub snapshot: String,
}

impl Revert {
    /// `{"messageID", "snapshot"}`, as the session's `revert` field shows it.
    pub fn to_json(&self) -> Value {
        json!({"messageID": self.message_id, "snapshot": self.snapshot})
    }
}

impl Store {
    /// Sets (or moves) the session's revert. Event: `session.updated` with `revert`.
    pub fn set_revert(&self, session_id: &str, revert: &Revert) -> Result<Event, StoreError> {
        let (_, event) = self.change(
            session_id,
            kinds::SESSION_UPDATED,
            |tx, _, path| {
                let session = load_session(tx, path, session_id)?;
                tx.execute(
                    "INSERT INTO reverts (session_id, message_id, snapshot) VALUES (?1, ?2, ?3)
                     ON CONFLICT(session_id) DO UPDATE SET message_id = ?2, snapshot = ?3",
                    params![session_id, revert.message_id, revert.snapshot],
                )
                .op(path, "recording a revert")?;
                Ok(session)
            },
            |session| json!({"session": session, "revert": revert.to_json()}),
        )?;
        Ok(event)
    }

    /// Clears the session's revert. Event: `session.updated` with `revert: null`.
    pub fn clear_revert(&self, session_id: &str) -> Result<Event, StoreError> {
        let (_, event) = self.change(
            session_id,
            kinds::SESSION_UPDATED,
            |tx, _, path| {
                let session = load_session(tx, path, session_id)?;
                tx.execute("DELETE FROM reverts WHERE session_id = ?1", [session_id])
                    .op(path, "clearing a revert")?;
                Ok(session)
            },
            |session| json!({"session": session, "revert": Value::Null}),
        )?;
        Ok(event)
    }

    /// The session's active revert, if any.
    pub fn revert_of(&self, session_id: &str) -> Result<Option<Revert>, StoreError> {
        let path = self.path();
        let conn = self.conn();
        conn.query_row(
            "SELECT message_id, snapshot FROM reverts WHERE session_id = ?1",
            [session_id],
            |r| {
                Ok(Revert {
                    message_id: r.get(0)?,
                    snapshot: r.get(1)?,
                })
            },
        )
        .optional()
        .op(path, "reading a revert")
    }

    /// Hides `message_id` for good. Event: `message.removed`.
    pub fn hide_message(&self, session_id: &str, message_id: &str) -> Result<Event, StoreError> {
        let (_, event) = self.change(
            session_id,
            kinds::MESSAGE_REMOVED,
            |tx, _, path| {
                load_session(tx, path, session_id)?;
                tx.execute(
                    "INSERT OR IGNORE INTO hidden_messages (message_id, session_id) VALUES (?1, ?2)",
                    params![message_id, session_id],
                )
                .op(path, "hiding a message")?;
                Ok(())
            },
            |()| json!({"sessionID": session_id, "messageID": message_id}),
        )?;
        Ok(event)
    }

    /// The ids of the session's messages hidden for good.
    pub fn hidden_messages(&self, session_id: &str) -> Result<HashSet<String>, StoreError> {
        let path = self.path();
        let conn = self.conn();
        conn.prepare("SELECT message_id FROM hidden_messages WHERE session_id = ?1")
            .and_then(|mut s| s.query_map([session_id], |r| r.get(0))?.collect())
            .op(path, "reading hidden messages")
    }
}
