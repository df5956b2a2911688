//! Stored rows built by hand for the unit tests of history and compaction.

use serde_json::Value;

use crate::store::{Message, Part, Role};

/// A message of session `s`.
pub(crate) fn message(id: &str, role: Role, data: Value) -> Message {
    Message {
        id: id.into(),
        session_id: "s".into(),
        role,
        created_ms: 0,
        data,
    }
}

/// Part `seq` of `message` in session `s`.
pub(crate) fn part(message: &str, seq: i64, kind: &str, data: Value) -> Part {
    Part {
        id: format!("p{message}{seq}"),
        message_id: message.into(),
        session_id: "s".into(),
        seq,
        kind: kind.into(),
        data,
        updated_ms: 0,
    }
}
