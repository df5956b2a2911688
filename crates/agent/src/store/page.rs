//! Windows of a session's message list, so that a long session is never read whole when only
//! a part of it is wanted: the newest messages before a cursor (a client's page), a run of
//! messages after one (a streamed list), one message, the newest message of a role, and the
//! messages a request's conversation starts from (compactions) and the tool results that
//! loaded tools. Every window keeps the list's order, `created_ms` then `id`.

use rusqlite::{Connection, OptionalExtension, params};

use super::read::{RawMessage, load_session, message_of, raw_message, role_of};
use super::rows::{PART_COLUMNS, RawPart, part_of, raw_part};
use super::types::{Message, Part, Role, StoreError};
use super::{SqlResult, Store};

/// A message with its parts, in order.
pub type Entry = (Message, Vec<Part>);

/// Some of a session's messages, oldest first; `more` when older ones exist before them.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub messages: Vec<Entry>,
    pub more: bool,
}

const COLUMNS: &str = "id, session_id, role, created_ms, data";

/// Where message `id` of `session_id` sits in the order: `(created_ms, id)`.
fn position(
    conn: &Connection,
    path: &std::path::Path,
    session_id: &str,
    id: &str,
) -> Result<(i64, String), StoreError> {
    conn.query_row(
        "SELECT created_ms FROM messages WHERE id = ?1 AND session_id = ?2",
        [id, session_id],
        |r| r.get(0),
    )
    .optional()
    .op(path, "finding a message")?
    .map(|ms| (ms, id.to_string()))
    .ok_or_else(|| StoreError::NotFound {
        path: path.to_path_buf(),
        what: "message",
        id: id.to_string(),
    })
}

type RawEntry = (RawMessage, Vec<RawPart>);

/// `raw` with each message's parts, read by message (the `parts_by_message` index), all
/// left as stored.
fn raw_parts(
    conn: &Connection,
    path: &std::path::Path,
    raw: Vec<RawMessage>,
) -> Result<Vec<RawEntry>, StoreError> {
    let mut stmt = conn
        .prepare_cached(&format!(
            "SELECT {PART_COLUMNS} FROM parts WHERE message_id = ?1 ORDER BY seq"
        ))
        .op(path, "reading parts")?;
    raw.into_iter()
        .map(|m| {
            let parts: Vec<RawPart> = stmt
                .query_map([&m.0], raw_part)
                .and_then(|rows| rows.collect())
                .op(path, "reading parts")?;
            Ok((m, parts))
        })
        .collect()
}

/// `raw` with each message's parts, read.
fn with_parts(
    conn: &Connection,
    path: &std::path::Path,
    raw: Vec<RawMessage>,
) -> Result<Vec<Entry>, StoreError> {
    raw_parts(conn, path, raw)?
        .into_iter()
        .map(|(m, parts)| {
            let parts = parts
                .into_iter()
                .map(|p| part_of(path, p))
                .collect::<Result<_, _>>()?;
            Ok((message_of(path, m)?, parts))
        })
        .collect()
}

/// The rows of up to `limit` messages after message `after` (from the first when `None`).
fn after_rows(
    conn: &Connection,
    path: &std::path::Path,
    session_id: &str,
    after: Option<&str>,
    limit: usize,
) -> Result<Vec<RawMessage>, StoreError> {
    load_session(conn, path, session_id)?;
    let take = i64::try_from(limit).unwrap_or(i64::MAX);
    match after {
        None => query(
            conn,
            path,
            &format!(
                "SELECT {COLUMNS} FROM messages WHERE session_id = ?1
                 ORDER BY created_ms, id LIMIT ?2"
            ),
            params![session_id, take],
        ),
        Some(cursor) => {
            let (ms, id) = position(conn, path, session_id, cursor)?;
            query(
                conn,
                path,
                &format!(
                    "SELECT {COLUMNS} FROM messages
                     WHERE session_id = ?1 AND (created_ms, id) > (?2, ?3)
                     ORDER BY created_ms, id LIMIT ?4"
                ),
                params![session_id, ms, id, take],
            )
        }
    }
}

/// A message with its data as stored (JSON text), and its parts likewise.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageText {
    pub id: String,
    pub session_id: String,
    pub role: Role,
    pub created_ms: i64,
    pub data: String,
    pub parts: Vec<PartText>,
}

/// A part with its data as stored (JSON text).
#[derive(Debug, Clone, PartialEq)]
pub struct PartText {
    pub id: String,
    pub message_id: String,
    pub session_id: String,
    pub kind: String,
    pub data: String,
}

impl MessageText {
    fn of(path: &std::path::Path, m: RawMessage, parts: Vec<RawPart>) -> Result<Self, StoreError> {
        let (id, session_id, role, created_ms, data) = m;
        let role = role_of(path, &id, &role)?;
        let parts = parts
            .into_iter()
            .map(|(id, message_id, session_id, _, kind, data, _)| PartText {
                id,
                message_id,
                session_id,
                kind,
                data,
            })
            .collect();
        Ok(Self {
            id,
            session_id,
            role,
            created_ms,
            data,
            parts,
        })
    }
}

fn query(
    conn: &Connection,
    path: &std::path::Path,
    sql: &str,
    args: impl rusqlite::Params,
) -> Result<Vec<RawMessage>, StoreError> {
    conn.prepare_cached(sql)
        .and_then(|mut s| s.query_map(args, raw_message)?.collect())
        .op(path, "reading messages")
}

impl Store {
    /// The last `limit` messages of the session before message `before` (before the end when
    /// `None`), oldest first, with their parts.
    pub fn message_page(
        &self,
        session_id: &str,
        limit: usize,
        before: Option<&str>,
    ) -> Result<Page, StoreError> {
        let path = self.path();
        let guard = self.conn();
        // One read transaction: the messages and their parts as of one moment, and one lock.
        let conn = guard.unchecked_transaction().op(path, "starting a read")?;
        load_session(&conn, path, session_id)?;
        // One more than asked says whether older ones exist.
        let take = i64::try_from(limit.saturating_add(1)).unwrap_or(i64::MAX);
        let mut raw = match before {
            None => query(
                &conn,
                path,
                &format!(
                    "SELECT {COLUMNS} FROM messages WHERE session_id = ?1
                     ORDER BY created_ms DESC, id DESC LIMIT ?2"
                ),
                params![session_id, take],
            )?,
            Some(cursor) => {
                let (ms, id) = position(&conn, path, session_id, cursor)?;
                query(
                    &conn,
                    path,
                    &format!(
                        "SELECT {COLUMNS} FROM messages
                         WHERE session_id = ?1 AND (created_ms, id) < (?2, ?3)
                         ORDER BY created_ms DESC, id DESC LIMIT ?4"
                    ),
                    params![session_id, ms, id, take],
                )?
            }
        };
        let more = raw.len() > limit;
        raw.truncate(limit);
        raw.reverse();
        Ok(Page {
            messages: with_parts(&conn, path, raw)?,
            more,
        })
    }

    /// Up to `limit` messages of the session after message `after` (from the first when
    /// `None`), in order, with their parts.
    pub fn messages_after(
        &self,
        session_id: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Entry>, StoreError> {
        let path = self.path();
        let guard = self.conn();
        let conn = guard.unchecked_transaction().op(path, "starting a read")?;
        let raw = after_rows(&conn, path, session_id, after, limit)?;
        with_parts(&conn, path, raw)
    }

    /// [`messages_after`](Self::messages_after) with the data of each message and part left
    /// as stored (JSON text), for a reader that passes it on.
    pub fn messages_after_text(
        &self,
        session_id: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<MessageText>, StoreError> {
        let path = self.path();
        let guard = self.conn();
        let conn = guard.unchecked_transaction().op(path, "starting a read")?;
        let raw = after_rows(&conn, path, session_id, after, limit)?;
        raw_parts(&conn, path, raw)?
            .into_iter()
            .map(|(m, parts)| MessageText::of(path, m, parts))
            .collect()
    }

    /// Message `message_id` of the session with its parts.
    pub fn message_with_parts(
        &self,
        session_id: &str,
        message_id: &str,
    ) -> Result<Entry, StoreError> {
        let path = self.path();
        let conn = self.conn();
        position(&conn, path, session_id, message_id)?;
        let raw = query(
            &conn,
            path,
            &format!("SELECT {COLUMNS} FROM messages WHERE id = ?1"),
            [message_id],
        )?;
        let mut one = with_parts(&conn, path, raw)?;
        one.pop().ok_or_else(|| StoreError::NotFound {
            path: path.to_path_buf(),
            what: "message",
            id: message_id.to_string(),
        })
    }

    /// Whether the session has any message.
    pub fn has_messages(&self, session_id: &str) -> Result<bool, StoreError> {
        self.conn()
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM messages WHERE session_id = ?1)",
                [session_id],
                |r| r.get(0),
            )
            .op(self.path(), "looking for messages")
    }

    /// The session's newest message of `role`, without its parts; `None` when it has none.
    /// Read backwards along the session's index, so it costs the same at any length.
    pub fn last_message(
        &self,
        session_id: &str,
        role: Role,
    ) -> Result<Option<Message>, StoreError> {
        self.last_message_where(session_id, role, "")
    }

    /// [`last_message`](Self::last_message) among the messages whose data names `key` (a
    /// prompt that names its `model`; older prompts and the loop's own notes do not). The
    /// stored JSON is searched for `"key"`, as the `parts_loading_tools` index does.
    pub fn last_message_naming(
        &self,
        session_id: &str,
        role: Role,
        key: &str,
    ) -> Result<Option<Message>, StoreError> {
        self.last_message_where(session_id, role, &format!("\"{key}\""))
    }

    /// The newest message of `role` whose stored data contains `text` (every one for "").
    fn last_message_where(
        &self,
        session_id: &str,
        role: Role,
        text: &str,
    ) -> Result<Option<Message>, StoreError> {
        let path = self.path();
        let conn = self.conn();
        load_session(&conn, path, session_id)?;
        let raw = query(
            &conn,
            path,
            &format!(
                "SELECT {COLUMNS} FROM messages
                 WHERE session_id = ?1 AND role = ?2 AND instr(data, ?3) > 0
                 ORDER BY created_ms DESC, id DESC LIMIT 1"
            ),
            params![session_id, role.as_str(), text],
        )?;
        raw.into_iter()
            .next()
            .map(|r| message_of(path, r))
            .transpose()
    }

    /// The session's assistant messages that hold a `compaction` part, newest first, without
    /// their parts: where a request's history may start.
    pub fn compaction_messages(&self, session_id: &str) -> Result<Vec<Message>, StoreError> {
        let path = self.path();
        let conn = self.conn();
        // `kind = 'compaction'` as written: the terms of the `parts_compactions` index.
        let raw = query(
            &conn,
            path,
            &format!(
                "SELECT {COLUMNS} FROM messages
                 WHERE role = 'assistant' AND id IN (
                     SELECT message_id FROM parts WHERE session_id = ?1 AND kind = 'compaction')
                 ORDER BY created_ms DESC, id DESC"
            ),
            [session_id],
        )?;
        raw.into_iter().map(|r| message_of(path, r)).collect()
    }

    /// The session's tool parts whose data names `"loadedTools"` (the deferred tools a
    /// result loaded), in the list's order, each with its message (without the message's
    /// other parts).
    pub fn parts_loading_tools(
        &self,
        session_id: &str,
    ) -> Result<Vec<(Message, Part)>, StoreError> {
        let path = self.path();
        let conn = self.conn();
        // The terms of the `parts_loading_tools` index, as written there.
        let mut stmt = conn
            .prepare_cached(&format!(
                "SELECT m.id, m.session_id, m.role, m.created_ms, m.data, p.{}
                 FROM parts p JOIN messages m ON m.id = p.message_id
                 WHERE p.session_id = ?1 AND p.kind = 'tool'
                   AND instr(p.data, '\"loadedTools\"') > 0
                 ORDER BY m.created_ms, m.id, p.seq",
                PART_COLUMNS.replace(", ", ", p.")
            ))
            .op(path, "reading parts")?;
        let rows: Vec<(RawMessage, _)> = stmt
            .query_map([session_id], |r| {
                let message = raw_message(r)?;
                let part = (
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                    r.get(9)?,
                    r.get(10)?,
                    r.get(11)?,
                );
                Ok((message, part))
            })
            .and_then(|rows| rows.collect())
            .op(path, "reading parts")?;
        rows.into_iter()
            .map(|(m, p)| Ok((message_of(path, m)?, part_of(path, p)?)))
            .collect()
    }
}
