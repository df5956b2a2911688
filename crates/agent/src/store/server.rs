//! What the HTTP server needs beyond the loop's own reads and writes: events in their global
//! order (the `/global/event` cursor, kept by migration 3's trigger), per-session permission
//! rules, deleting a session, the leftovers of a process that died mid-turn, and SQLite's own
//! consistency check (run by the crash tests after every restart).

use rusqlite::{OptionalExtension, params};
use serde_json::{Value, json};
use strata_protocol::message::Tokens;

use super::read::load_session;
use super::rows::{EVENT_COLUMNS, PART_COLUMNS, event_of, json_of, part_of, raw_event, raw_part};
use super::types::{Event, Part, StoreError};
use super::{SqlResult, Store};

/// An event with its place in the order of all sessions' events (from 1, without gaps for
/// events written by this schema version).
#[derive(Debug, Clone, PartialEq)]
pub struct GlobalEvent {
    pub gseq: i64,
    pub event: Event,
}

/// The kind of the event recorded when a session is deleted: `{"sessionID", "info"}`.
pub const SESSION_DELETED: &str = "session.deleted";

impl Store {
    /// Up to `limit` events with a global sequence number above `after`, in that order.
    pub fn global_events_after(
        &self,
        after: i64,
        limit: usize,
    ) -> Result<Vec<GlobalEvent>, StoreError> {
        self.global_events_between(after, i64::MAX, limit)
    }

    /// Up to `limit` events with a global sequence number above `after` and at most `upto`, in
    /// that order (a reader that must not run ahead of `upto` reads nothing past it).
    pub fn global_events_between(
        &self,
        after: i64,
        upto: i64,
        limit: usize,
    ) -> Result<Vec<GlobalEvent>, StoreError> {
        let path = self.path();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let raw: Vec<(i64, _)> = self
            .conn()
            .prepare_cached(&format!(
                "SELECT {EVENT_COLUMNS}, gseq FROM events WHERE gseq > ?1 AND gseq <= ?2
                 ORDER BY gseq LIMIT ?3"
            ))
            .and_then(|mut s| {
                s.query_map(params![after, upto, limit], |r| {
                    Ok((r.get(5)?, raw_event(r)?))
                })?
                .collect()
            })
            .op(path, "reading events in global order")?;
        raw.into_iter()
            .map(|(gseq, raw)| {
                Ok(GlobalEvent {
                    gseq,
                    event: event_of(path, raw)?,
                })
            })
            .collect()
    }

    /// The highest global sequence number so far (0 when there are no events).
    pub fn global_last(&self) -> Result<i64, StoreError> {
        self.conn()
            .query_row("SELECT COALESCE(MAX(gseq), 0) FROM events", [], |r| {
                r.get(0)
            })
            .op(self.path(), "reading the last event number")
    }

    /// The session's usage summed over its assistant messages: tokens and cost in US dollars.
    pub fn usage(&self, session_id: &str) -> Result<(Tokens, f64), StoreError> {
        let sum = |path: &str| format!("COALESCE(SUM(json_extract(data, '$.{path}')), 0)");
        let sql = format!(
            "SELECT {}, {}, {}, {}, {}, {} FROM messages
             WHERE session_id = ?1 AND role = 'assistant'",
            sum("cost"),
            sum("tokens.input"),
            sum("tokens.output"),
            sum("tokens.reasoning"),
            sum("tokens.cache.read"),
            sum("tokens.cache.write"),
        );
        let count = |v: i64| u64::try_from(v).unwrap_or(0);
        self.conn()
            .query_row(&sql, [session_id], |r| {
                let mut tokens = Tokens {
                    input: count(r.get(1)?),
                    output: count(r.get(2)?),
                    reasoning: count(r.get(3)?),
                    ..Tokens::default()
                };
                tokens.cache.read = count(r.get(4)?);
                tokens.cache.write = count(r.get(5)?);
                Ok((tokens, r.get(0)?))
            })
            .op(self.path(), "summing a session's usage")
    }

    /// The permission rules a client gave the session (`[{permission, pattern, action}]`).
    pub fn session_rules(&self, session_id: &str) -> Result<Option<Value>, StoreError> {
        let path = self.path();
        let text: Option<String> = self
            .conn()
            .query_row(
                "SELECT rules FROM session_rules WHERE session_id = ?1",
                [session_id],
                |r| r.get(0),
            )
            .optional()
            .op(path, "reading a session's rules")?;
        text.map(|t| json_of(path, "session_rules", &t)).transpose()
    }

    /// Replaces the session's permission rules.
    pub fn set_session_rules(&self, session_id: &str, rules: &Value) -> Result<(), StoreError> {
        let path = self.path();
        let conn = self.conn();
        load_session(&conn, path, session_id)?;
        conn.execute(
            "INSERT INTO session_rules (session_id, rules) VALUES (?1, ?2)
             ON CONFLICT(session_id) DO UPDATE SET rules = excluded.rules",
            params![session_id, rules.to_string()],
        )
        .op(path, "storing a session's rules")?;
        Ok(())
    }

    /// Deletes the session with its messages, parts, todos, rules, runs and undo state, after
    /// its children.
    /// The events stay, ending with `session.deleted`, so replaying clients learn of it.
    pub fn delete_session(&self, session_id: &str) -> Result<(), StoreError> {
        let children: Vec<String> = self
            .conn()
            .prepare("SELECT id FROM sessions WHERE parent_id = ?1")
            .and_then(|mut s| s.query_map([session_id], |r| r.get(0))?.collect())
            .op(self.path(), "listing a session's children")?;
        for child in children {
            self.delete_session(&child)?;
        }
        self.change(
            session_id,
            SESSION_DELETED,
            |tx, _, path| {
                let session = load_session(tx, path, session_id)?;
                // Every table that refers to the session goes first (foreign keys).
                for sql in [
                    "DELETE FROM runs WHERE session_id = ?1",
                    "DELETE FROM reverts WHERE session_id = ?1",
                    "DELETE FROM hidden_messages WHERE session_id = ?1",
                    "DELETE FROM parts WHERE session_id = ?1",
                    "DELETE FROM messages WHERE session_id = ?1",
                    "DELETE FROM todos WHERE session_id = ?1",
                    "DELETE FROM session_rules WHERE session_id = ?1",
                    "DELETE FROM sessions WHERE id = ?1",
                ] {
                    tx.execute(sql, [session_id])
                        .op(path, "deleting a session")?;
                }
                Ok(session)
            },
            |s| json!({ "sessionID": s.id, "session": s }),
        )?;
        Ok(())
    }

    /// Tool parts still `pending` or `running`: left behind by a process that stopped mid-call.
    pub fn unfinished_tool_parts(&self) -> Result<Vec<Part>, StoreError> {
        let path = self.path();
        let raw: Vec<_> = self
            .conn()
            .prepare(&format!(
                "SELECT {PART_COLUMNS} FROM parts
                 WHERE kind = 'tool'
                   AND json_extract(data, '$.state.status') IN ('pending', 'running')
                 ORDER BY session_id, message_id, seq"
            ))
            .and_then(|mut s| s.query_map([], raw_part)?.collect())
            .op(path, "finding unfinished tool calls")?;
        raw.into_iter().map(|r| part_of(path, r)).collect()
    }

    /// Sessions whose latest `session.status` event is not `idle`: a turn was running when its
    /// process stopped.
    pub fn busy_sessions(&self) -> Result<Vec<String>, StoreError> {
        self.conn()
            .prepare(
                "SELECT e.session_id FROM events e
                 JOIN sessions s ON s.id = e.session_id
                 WHERE e.kind = 'session.status'
                   AND e.seq = (SELECT MAX(seq) FROM events x
                                WHERE x.session_id = e.session_id AND x.kind = 'session.status')
                   AND json_extract(e.data, '$.status.type') != 'idle'
                 ORDER BY e.session_id",
            )
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .op(self.path(), "finding sessions left busy")
    }

    /// SQLite's `PRAGMA integrity_check`: the problems it lists, none when the file is sound.
    pub fn integrity_check(&self) -> Result<Vec<String>, StoreError> {
        let rows: Vec<String> = self
            .conn()
            .prepare("PRAGMA integrity_check")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .op(self.path(), "checking the database's integrity")?;
        Ok(rows.into_iter().filter(|r| r != "ok").collect())
    }

    /// Whether the session's latest `session.status` event is `idle` (or it has none).
    pub fn session_idle(&self, session_id: &str) -> Result<bool, StoreError> {
        let status: Option<String> = self
            .conn()
            .query_row(
                "SELECT json_extract(data, '$.status.type') FROM events
                 WHERE session_id = ?1 AND kind = 'session.status'
                 ORDER BY seq DESC LIMIT 1",
                [session_id],
                |r| r.get(0),
            )
            .optional()
            .op(self.path(), "reading a session's status")?;
        Ok(status.is_none_or(|s| s == "idle"))
    }
}
