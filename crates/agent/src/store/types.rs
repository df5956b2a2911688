//! The rows the store hands out (`Session`, `Message`, `Part`, `Event`) and `StoreError`.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Event kinds the store writes itself; callers may record others with `record_event`.
pub mod kinds {
    pub const SESSION_CREATED: &str = "session.created";
    pub const SESSION_UPDATED: &str = "session.updated";
    pub const MESSAGE_UPDATED: &str = "message.updated";
    pub const PART_UPDATED: &str = "message.part.updated";
    pub const TODO_UPDATED: &str = strata_services::todo::TODO_UPDATED;
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    pub id: String,
    /// The project directory the session ran in.
    pub directory: PathBuf,
    pub title: String,
    pub created_ms: i64,
    /// Bumped by every change to the session, its messages or parts.
    pub updated_ms: i64,
    /// The session that spawned this one (subagents), if any.
    pub parent_id: Option<String>,
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }

    pub(crate) fn parse(text: &str) -> Option<Role> {
        match text {
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub id: String,
    pub session_id: String,
    pub role: Role,
    pub created_ms: i64,
    /// Whatever the loop keeps about the message (model, finish reason, usage, …).
    pub data: Value,
}

/// One piece of a message (text, a tool call and its state, …), ordered by `seq`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    pub id: String,
    pub message_id: String,
    pub session_id: String,
    /// Position within the message, from 1, fixed when the part is first written.
    pub seq: i64,
    pub kind: String,
    pub data: Value,
    pub updated_ms: i64,
}

/// A committed state change, numbered without gaps per session from 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub session_id: String,
    pub seq: i64,
    pub kind: String,
    pub data: Value,
    pub created_ms: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("could not create the folder {} for the session database: {source}", path.display())]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("could not open the session database {}: {source}; check that the data directory is writable", path.display())]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("session database {}: {op} failed: {source}", path.display())]
    Sqlite {
        path: PathBuf,
        op: &'static str,
        source: rusqlite::Error,
    },
    #[error(
        "session database {} has schema version {found}, newer than this strata understands ({supported}); upgrade strata or use another data directory",
        path.display()
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    #[error("{what} `{id}` does not exist in the session database {}", path.display())]
    NotFound {
        path: PathBuf,
        what: &'static str,
        id: String,
    },
    #[error("session database {}: {detail}", path.display())]
    Invalid { path: PathBuf, detail: String },
    #[error("session database {} holds unreadable data in table {table}: {detail}", path.display())]
    Corrupt {
        path: PathBuf,
        table: &'static str,
        detail: String,
    },
}
