//! State changes: each one commits together with its event (see [`Store::change`]).

use std::path::Path;

use rusqlite::{OptionalExtension, Transaction, params};
use serde::Serialize;
use serde_json::{Value, json};

use super::ids::{IdKind, new_id};
use super::read::{load_message, load_session};
use super::types::{Event, Message, Part, Role, Session, StoreError, kinds};
use super::{SqlResult, Store};

/// The next session time: `now`, or just past the latest session time when that is later, so
/// "most recently changed" is well defined across sessions even within one millisecond.
const NEXT_SESSION_MS: &str = "MAX(?2, (SELECT COALESCE(MAX(updated_ms), 0) + 1 FROM sessions))";

/// A change's event: its kind, and the key its data carries the changed value under.
type Recorded = (&'static str, &'static str);
const SESSION: Recorded = (kinds::SESSION_UPDATED, "session");
const MESSAGE: Recorded = (kinds::MESSAGE_UPDATED, "message");
const PART: Recorded = (kinds::PART_UPDATED, "part");

/// Marks the session changed (see [`NEXT_SESSION_MS`]).
fn touch(tx: &Transaction<'_>, path: &Path, session_id: &str, now: i64) -> Result<(), StoreError> {
    let changed = tx
        .execute(
            &format!("UPDATE sessions SET updated_ms = {NEXT_SESSION_MS} WHERE id = ?1"),
            params![session_id, now],
        )
        .op(path, "updating a session's time")?;
    if changed == 0 {
        return Err(not_found(path, "session", session_id));
    }
    Ok(())
}

fn not_found(path: &Path, what: &'static str, id: &str) -> StoreError {
    StoreError::NotFound {
        path: path.to_path_buf(),
        what,
        id: id.to_string(),
    }
}

/// Fails unless `message_id` exists and belongs to `session_id`.
fn check_message(
    tx: &Transaction<'_>,
    path: &Path,
    session_id: &str,
    message_id: &str,
) -> Result<(), StoreError> {
    let owner: Option<String> = tx
        .query_row(
            "SELECT session_id FROM messages WHERE id = ?1",
            [message_id],
            |r| r.get(0),
        )
        .optional()
        .op(path, "looking up a message")?;
    match owner {
        None => Err(not_found(path, "message", message_id)),
        Some(owner) if owner != session_id => Err(StoreError::Invalid {
            path: path.to_path_buf(),
            detail: format!(
                "message `{message_id}` belongs to session `{owner}`, not `{session_id}`"
            ),
        }),
        Some(_) => Ok(()),
    }
}

impl Store {
    /// [`change`](Self::change) to session `session_id`, which must exist: marks it changed
    /// first, and records an event of the given kind whose data holds the value `apply`
    /// returns under the given key.
    fn session_change<T: Serialize>(
        &self,
        session_id: &str,
        (kind, key): Recorded,
        apply: impl FnOnce(&Transaction<'_>, i64, &Path) -> Result<T, StoreError>,
    ) -> Result<(T, Event), StoreError> {
        self.change(
            session_id,
            kind,
            |tx, now, path| {
                touch(tx, path, session_id, now)?;
                apply(tx, now, path)
            },
            |value| json!({ key: value }),
        )
    }

    /// Creates a session for `directory`, optionally as the child of `parent`.
    /// Event: `session.created`, seq 1 of the new session.
    pub fn create_session(
        &self,
        directory: &Path,
        parent: Option<&str>,
    ) -> Result<Session, StoreError> {
        let id = new_id(IdKind::Session);
        let (session, _) = self.change(
            &id,
            kinds::SESSION_CREATED,
            |tx, now, path| {
                if let Some(parent) = parent {
                    load_session(tx, path, parent)?;
                }
                tx.execute(
                    &format!(
                        "INSERT INTO sessions (id, created_ms, updated_ms, directory, title, parent_id)
                         VALUES (?1, ?2, {NEXT_SESSION_MS}, ?3, '', ?4)"
                    ),
                    params![id, now, directory.to_string_lossy(), parent],
                )
                .op(path, "creating a session")?;
                let updated_ms: i64 = tx
                    .query_row("SELECT updated_ms FROM sessions WHERE id = ?1", [&id], |r| {
                        r.get(0)
                    })
                    .op(path, "creating a session")?;
                Ok(Session {
                    id: id.clone(),
                    directory: directory.to_path_buf(),
                    title: String::new(),
                    created_ms: now,
                    updated_ms,
                    parent_id: parent.map(str::to_string),
                })
            },
            |s| json!({ "session": s }),
        )?;
        Ok(session)
    }

    /// Sets the session's title. Event: `session.updated`.
    pub fn update_session_title(
        &self,
        session_id: &str,
        title: &str,
    ) -> Result<Session, StoreError> {
        Ok(self.update_session_title_with_event(session_id, title)?.0)
    }

    /// [`update_session_title`](Self::update_session_title), also returning the event.
    pub fn update_session_title_with_event(
        &self,
        session_id: &str,
        title: &str,
    ) -> Result<(Session, Event), StoreError> {
        self.session_change(session_id, SESSION, |tx, _, path| {
            tx.execute(
                "UPDATE sessions SET title = ?2 WHERE id = ?1",
                params![session_id, title],
            )
            .op(path, "setting a session title")?;
            load_session(tx, path, session_id)
        })
    }

    /// Sets the directory a session runs in (a subagent moved into its own worktree).
    /// Event: `session.updated`.
    pub fn move_session(
        &self,
        session_id: &str,
        directory: &std::path::Path,
    ) -> Result<Session, StoreError> {
        let directory = directory.to_string_lossy().into_owned();
        let (session, _) = self.session_change(session_id, SESSION, |tx, _, path| {
            tx.execute(
                "UPDATE sessions SET directory = ?2 WHERE id = ?1",
                params![session_id, directory],
            )
            .op(path, "setting a session's directory")?;
            load_session(tx, path, session_id)
        })?;
        Ok(session)
    }

    /// Adds a message at the end of the session. Event: `message.updated`.
    pub fn append_message(
        &self,
        session_id: &str,
        role: Role,
        data: Value,
    ) -> Result<Message, StoreError> {
        Ok(self.append_message_with_event(session_id, role, data)?.0)
    }

    /// [`append_message`](Self::append_message), also returning the committed event.
    pub fn append_message_with_event(
        &self,
        session_id: &str,
        role: Role,
        data: Value,
    ) -> Result<(Message, Event), StoreError> {
        self.session_change(session_id, MESSAGE, |tx, now, path| {
            let message = Message {
                id: new_id(IdKind::Message),
                session_id: session_id.to_string(),
                role,
                created_ms: now,
                data,
            };
            tx.execute(
                "INSERT INTO messages (id, session_id, role, created_ms, data) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![message.id, session_id, role.as_str(), now, message.data.to_string()],
            )
            .op(path, "adding a message")?;
            Ok(message)
        })
    }

    /// Replaces a message's data (e.g. when the step finishes). Event: `message.updated`.
    pub fn update_message(
        &self,
        session_id: &str,
        message_id: &str,
        data: Value,
    ) -> Result<Message, StoreError> {
        Ok(self
            .update_message_with_event(session_id, message_id, data)?
            .0)
    }

    /// [`update_message`](Self::update_message), also returning the committed event.
    pub fn update_message_with_event(
        &self,
        session_id: &str,
        message_id: &str,
        data: Value,
    ) -> Result<(Message, Event), StoreError> {
        self.session_change(session_id, MESSAGE, |tx, _, path| {
            check_message(tx, path, session_id, message_id)?;
            tx.execute(
                "UPDATE messages SET data = ?2 WHERE id = ?1",
                params![message_id, data.to_string()],
            )
            .op(path, "updating a message")?;
            load_message(tx, path, message_id)
        })
    }

    /// Writes a part of `message_id`: a new part at the end of the message when `part_id` is
    /// `None` or unknown, else a replacement of that part's kind and data (its position is
    /// kept). Event: `message.part.updated`.
    pub fn upsert_part(
        &self,
        session_id: &str,
        message_id: &str,
        part_id: Option<&str>,
        kind: &str,
        data: Value,
    ) -> Result<Part, StoreError> {
        Ok(self
            .upsert_part_with_event(session_id, message_id, part_id, kind, data)?
            .0)
    }

    /// [`upsert_part`](Self::upsert_part), also returning the committed event.
    pub fn upsert_part_with_event(
        &self,
        session_id: &str,
        message_id: &str,
        part_id: Option<&str>,
        kind: &str,
        data: Value,
    ) -> Result<(Part, Event), StoreError> {
        self.session_change(session_id, PART, |tx, now, path| {
            check_message(tx, path, session_id, message_id)?;
            let id = part_id.map_or_else(|| new_id(IdKind::Part), str::to_string);
            let existing: Option<(String, i64)> = tx
                .query_row(
                    "SELECT message_id, seq FROM parts WHERE id = ?1",
                    [&id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()
                .op(path, "looking up a part")?;
            let seq = match existing {
                Some((owner, _)) if owner != message_id => {
                    return Err(StoreError::Invalid {
                        path: path.to_path_buf(),
                        detail: format!(
                            "part `{id}` belongs to message `{owner}`, not `{message_id}`"
                        ),
                    });
                }
                Some((_, seq)) => {
                    tx.execute(
                        "UPDATE parts SET kind = ?2, data = ?3, updated_ms = ?4 WHERE id = ?1",
                        params![id, kind, data.to_string(), now],
                    )
                    .op(path, "updating a part")?;
                    seq
                }
                None => {
                    let seq: i64 = tx
                        .query_row(
                            "SELECT COALESCE(MAX(seq), 0) + 1 FROM parts WHERE message_id = ?1",
                            [message_id],
                            |r| r.get(0),
                        )
                        .op(path, "numbering a part")?;
                    tx.execute(
                        "INSERT INTO parts (id, message_id, session_id, seq, kind, data, updated_ms)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                        params![id, message_id, session_id, seq, kind, data.to_string(), now],
                    )
                    .op(path, "adding a part")?;
                    seq
                }
            };
            Ok(Part {
                id,
                message_id: message_id.to_string(),
                session_id: session_id.to_string(),
                seq,
                kind: kind.to_string(),
                data,
                updated_ms: now,
            })
        })
    }

    /// Appends an event that changes no stored state (status, errors, permission requests…).
    pub fn record_event(
        &self,
        session_id: &str,
        kind: &str,
        data: Value,
    ) -> Result<Event, StoreError> {
        if kind.trim().is_empty() {
            return Err(StoreError::Invalid {
                path: self.path().to_path_buf(),
                detail: format!("an event for session `{session_id}` needs a non-empty kind"),
            });
        }
        let (_, event) = self.change(
            session_id,
            kind,
            |tx, _, path| load_session(tx, path, session_id).map(drop),
            |_| data,
        )?;
        Ok(event)
    }
}
