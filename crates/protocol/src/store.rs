//! The rows of the session database as the store hands them out and as its events carry them
//! (`{"session": …}`, `{"message": …}`, `{"part": …}`): [`Session`], [`Message`], [`Part`],
//! [`Event`]. A message's and a part's `data` is the opencode-shaped payload typed in
//! [`message`](crate::message), [`part`](crate::part) and [`tool`](crate::tool).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Event kinds the store writes itself; callers may record others (see
/// [`event::kinds`](crate::event::kinds)).
pub mod kinds {
    pub const SESSION_CREATED: &str = "session.created";
    pub const SESSION_UPDATED: &str = "session.updated";
    pub const MESSAGE_UPDATED: &str = "message.updated";
    pub const PART_UPDATED: &str = "message.part.updated";
    /// `{"sessionID", "todos": [{content, status, priority}]}`: the session's todo list was
    /// replaced (committed together with the list).
    pub const TODO_UPDATED: &str = "todo.updated";
    /// `{"sessionID", "messageID"}`: a message left the conversation for good (a prompt after
    /// a revert); the row stays in the store, hidden.
    pub const MESSAGE_REMOVED: &str = "message.removed";
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

    /// The role named `text` (`user`, `assistant`), if any.
    pub fn parse(text: &str) -> Option<Role> {
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
    /// A [`UserMessage`](crate::UserMessage) or [`AssistantMessage`](crate::AssistantMessage).
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
    /// One of [`part::kinds`](crate::part::kinds).
    pub kind: String,
    /// The payload for `kind`; [`PartData::of`](crate::PartData::of) reads it typed.
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

impl Event {
    /// The part carried by a `message.part.updated` event, if that is what this is.
    pub fn part(&self) -> Option<Part> {
        if self.kind != kinds::PART_UPDATED {
            return None;
        }
        Part::deserialize(self.data.get("part")?).ok()
    }
}
