//! What the agent loop tells front-ends, and the JSON views of stored rows they render.
//!
//! The loop writes every state change to the [`Store`](crate::store::Store), which commits it
//! with a numbered event. A front-end gets the same events live as [`LoopEvent::Stored`], in
//! commit order, plus the assistant's text as it streams ([`LoopEvent::TextDelta`], not stored:
//! the text part is stored whole when it ends). A front-end that falls behind or restarts reads
//! the rest with [`Store::events_since`](crate::store::Store::events_since).
//!
//! Parts and messages are shaped like opencode's (`type`, `callID`, `state.status`, …) so the
//! `--format json` output and session exports read the same as there.

use serde_json::{Map, Value, json};

use crate::store::{Event, Message, Part, Session};

/// Event kinds the loop records besides the store's own (see [`crate::store::kinds`]).
pub mod kinds {
    /// `{"sessionID", "status": {"type": "busy" | "idle" | "retry", "attempt"?, "message"?}}`
    pub const SESSION_STATUS: &str = "session.status";
    /// `{"sessionID", "error": {"name", "data": {"message"}}}`: the run failed or stopped.
    pub const SESSION_ERROR: &str = "session.error";
}

/// Part types (`Part::kind`).
pub mod part_kinds {
    pub const TEXT: &str = "text";
    pub const TOOL: &str = "tool";
    pub const STEP_START: &str = "step-start";
    pub const STEP_FINISH: &str = "step-finish";
}

/// One thing a front-end hears from a running loop, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum LoopEvent {
    /// A committed change, also in the `events` table under the same `seq`.
    Stored(Event),
    /// A piece of assistant text, streamed before its part is stored whole.
    TextDelta {
        session_id: String,
        message_id: String,
        part_id: String,
        delta: String,
    },
}

/// A part as opencode shows it: `{id, sessionID, messageID, type, …data}`.
pub fn part_json(part: &Part) -> Value {
    let mut out = Map::new();
    out.insert("id".into(), json!(part.id));
    out.insert("sessionID".into(), json!(part.session_id));
    out.insert("messageID".into(), json!(part.message_id));
    out.insert("type".into(), json!(part.kind));
    if let Value::Object(data) = &part.data {
        for (k, v) in data {
            out.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    Value::Object(out)
}

/// A message as opencode shows it: `{id, sessionID, role, …data}`.
pub fn message_json(message: &Message) -> Value {
    let mut out = Map::new();
    out.insert("id".into(), json!(message.id));
    out.insert("sessionID".into(), json!(message.session_id));
    out.insert("role".into(), json!(message.role.as_str()));
    if let Value::Object(data) = &message.data {
        for (k, v) in data {
            out.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    Value::Object(out)
}

/// A session as opencode shows it: `{id, directory, title, parentID?, time: {created, updated}}`.
pub fn session_json(session: &Session) -> Value {
    let mut out = json!({
        "id": session.id,
        "directory": session.directory.to_string_lossy(),
        "title": session.title,
        "time": {"created": session.created_ms, "updated": session.updated_ms},
    });
    if let Some(parent) = &session.parent_id {
        out["parentID"] = json!(parent);
    }
    out
}

/// The part carried by a `message.part.updated` event, if that is what `event` is.
pub fn event_part(event: &Event) -> Option<Part> {
    if event.kind != crate::store::kinds::PART_UPDATED {
        return None;
    }
    serde_json::from_value(event.data.get("part")?.clone()).ok()
}

/// An error as opencode names it: `{"name", "data": {"message"}}`.
pub fn error_json(name: &str, message: &str) -> Value {
    json!({"name": name, "data": {"message": message}})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::kinds as store_kinds;

    #[test]
    fn part_json_flattens_data_under_the_ids() {
        let part = Part {
            id: "prt_1".into(),
            message_id: "msg_1".into(),
            session_id: "ses_1".into(),
            seq: 2,
            kind: "tool".into(),
            data: json!({"callID": "c1", "tool": "read", "state": {"status": "completed"}}),
            updated_ms: 5,
        };
        let v = part_json(&part);
        assert_eq!(v["id"], "prt_1");
        assert_eq!(v["sessionID"], "ses_1");
        assert_eq!(v["messageID"], "msg_1");
        assert_eq!(v["type"], "tool");
        assert_eq!(v["callID"], "c1");
        assert_eq!(v["state"]["status"], "completed");
        let event = Event {
            session_id: "ses_1".into(),
            seq: 3,
            kind: store_kinds::PART_UPDATED.into(),
            data: json!({ "part": part }),
            created_ms: 5,
        };
        assert_eq!(event_part(&event), Some(part));
    }
}
