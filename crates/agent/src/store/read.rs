//! Queries: sessions, the ordered messages with their parts, events after a seq, export.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde_json::{Value, json};

use super::rows::{EVENT_COLUMNS, PART_COLUMNS, event_of, json_of, part_of, raw_event, raw_part};
use super::types::{Event, Message, Part, Role, Session, StoreError};
use super::{SqlResult, Store};

const SESSION_COLUMNS: &str = "id, directory, title, created_ms, updated_ms, parent_id";

fn session_row(r: &Row<'_>) -> rusqlite::Result<Session> {
    Ok(Session {
        id: r.get(0)?,
        directory: PathBuf::from(r.get::<_, String>(1)?),
        title: r.get(2)?,
        created_ms: r.get(3)?,
        updated_ms: r.get(4)?,
        parent_id: r.get(5)?,
    })
}

pub(super) type RawMessage = (String, String, String, i64, String);

pub(super) fn raw_message(r: &Row<'_>) -> rusqlite::Result<RawMessage> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
}

/// A message row's role, or a `Corrupt` error naming the message.
pub(super) fn role_of(path: &Path, id: &str, role: &str) -> Result<Role, StoreError> {
    Role::parse(role).ok_or_else(|| StoreError::Corrupt {
        path: path.to_path_buf(),
        table: "messages",
        detail: format!("message `{id}` has unknown role `{role}`"),
    })
}

pub(super) fn message_of(path: &Path, raw: RawMessage) -> Result<Message, StoreError> {
    let (id, session_id, role, created_ms, data) = raw;
    let role = role_of(path, &id, &role)?;
    Ok(Message {
        id,
        session_id,
        role,
        created_ms,
        data: json_of(path, "messages", &data)?,
    })
}

pub(crate) fn load_session(
    conn: &Connection,
    path: &Path,
    id: &str,
) -> Result<Session, StoreError> {
    conn.query_row(
        &format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?1"),
        [id],
        session_row,
    )
    .optional()
    .op(path, "reading a session")?
    .ok_or_else(|| StoreError::NotFound {
        path: path.to_path_buf(),
        what: "session",
        id: id.to_string(),
    })
}

pub(crate) fn load_message(
    conn: &Connection,
    path: &Path,
    id: &str,
) -> Result<Message, StoreError> {
    let raw = conn
        .query_row(
            "SELECT id, session_id, role, created_ms, data FROM messages WHERE id = ?1",
            [id],
            raw_message,
        )
        .optional()
        .op(path, "reading a message")?
        .ok_or_else(|| StoreError::NotFound {
            path: path.to_path_buf(),
            what: "message",
            id: id.to_string(),
        })?;
    message_of(path, raw)
}

impl Store {
    /// The session with this id.
    pub fn session(&self, id: &str) -> Result<Session, StoreError> {
        load_session(&self.conn(), self.path(), id)
    }

    /// Sessions (children included), most recently changed first; only those of `directory`
    /// when given.
    pub fn list_sessions(&self, directory: Option<&Path>) -> Result<Vec<Session>, StoreError> {
        let path = self.path();
        let conn = self.conn();
        let order = "ORDER BY updated_ms DESC, id DESC";
        let rows = match directory {
            Some(dir) => {
                let mut stmt = conn
                    .prepare(&format!(
                        "SELECT {SESSION_COLUMNS} FROM sessions WHERE directory = ?1 {order}"
                    ))
                    .op(path, "listing sessions")?;
                stmt.query_map([dir.to_string_lossy()], session_row)
                    .op(path, "listing sessions")?
                    .collect::<rusqlite::Result<Vec<_>>>()
            }
            None => {
                let mut stmt = conn
                    .prepare(&format!("SELECT {SESSION_COLUMNS} FROM sessions {order}"))
                    .op(path, "listing sessions")?;
                stmt.query_map([], session_row)
                    .op(path, "listing sessions")?
                    .collect::<rusqlite::Result<Vec<_>>>()
            }
        };
        rows.op(path, "reading sessions")
    }

    /// The most recently changed top-level session (no parent) of `directory`, if any.
    pub fn last_session(&self, directory: &Path) -> Result<Option<Session>, StoreError> {
        let path = self.path();
        self.conn()
            .query_row(
                &format!(
                    "SELECT {SESSION_COLUMNS} FROM sessions WHERE directory = ?1 AND parent_id IS NULL
                     ORDER BY updated_ms DESC, id DESC LIMIT 1"
                ),
                [directory.to_string_lossy()],
                session_row,
            )
            .optional()
            .op(path, "finding the last session")
    }

    /// The session's messages in order, each with its parts in order.
    pub fn messages(&self, session_id: &str) -> Result<Vec<(Message, Vec<Part>)>, StoreError> {
        let path = self.path();
        let conn = self.conn();
        load_session(&conn, path, session_id)?;
        let raw: Vec<RawMessage> = conn
            .prepare(
                "SELECT id, session_id, role, created_ms, data FROM messages
                 WHERE session_id = ?1 ORDER BY created_ms, id",
            )
            .and_then(|mut s| s.query_map([session_id], raw_message)?.collect())
            .op(path, "reading messages")?;
        let raw_parts: Vec<_> = conn
            .prepare(&format!(
                "SELECT {PART_COLUMNS} FROM parts WHERE session_id = ?1 ORDER BY message_id, seq"
            ))
            .and_then(|mut s| s.query_map([session_id], raw_part)?.collect())
            .op(path, "reading parts")?;
        let mut parts: HashMap<String, Vec<Part>> = HashMap::new();
        for raw in raw_parts {
            let part = part_of(path, raw)?;
            parts.entry(part.message_id.clone()).or_default().push(part);
        }
        raw.into_iter()
            .map(|r| {
                let message = message_of(path, r)?;
                let own = parts.remove(&message.id).unwrap_or_default();
                Ok((message, own))
            })
            .collect()
    }

    /// The id of the session's latest user message created before message `id` (created at
    /// `created_ms`): the prompt an assistant message answers.
    pub fn user_message_before(
        &self,
        session_id: &str,
        created_ms: i64,
        id: &str,
    ) -> Result<Option<String>, StoreError> {
        self.conn()
            .query_row(
                "SELECT id FROM messages
                 WHERE session_id = ?1 AND role = 'user'
                   AND (created_ms < ?2 OR (created_ms = ?2 AND id < ?3))
                 ORDER BY created_ms DESC, id DESC LIMIT 1",
                params![session_id, created_ms, id],
                |r| r.get(0),
            )
            .optional()
            .op(self.path(), "finding the prompt a message answers")
    }

    /// Events of the session with `seq > after_seq`, in order (`after_seq = 0`: all of them).
    pub fn events_since(&self, session_id: &str, after_seq: i64) -> Result<Vec<Event>, StoreError> {
        let path = self.path();
        let raw: Vec<_> = self
            .conn()
            .prepare(&format!(
                "SELECT {EVENT_COLUMNS} FROM events WHERE session_id = ?1 AND seq > ?2 ORDER BY seq"
            ))
            .and_then(|mut s| {
                s.query_map(params![session_id, after_seq], raw_event)?
                    .collect()
            })
            .op(path, "reading events")?;
        raw.into_iter().map(|r| event_of(path, r)).collect()
    }

    /// The session as one JSON document: `{"info": session, "messages": [{"info", "parts"}]}`.
    pub fn export(&self, session_id: &str) -> Result<Value, StoreError> {
        let session = self.session(session_id)?;
        let messages: Vec<Value> = self
            .messages(session_id)?
            .into_iter()
            .map(|(m, parts)| json!({ "info": m, "parts": parts }))
            .collect();
        Ok(json!({ "info": session, "messages": messages }))
    }
}
