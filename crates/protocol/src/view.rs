//! The opencode-shaped JSON views of stored rows, as `--format json` lines and session exports
//! show them: a part is `{id, sessionID, messageID, type, …data}`, a message `{id, sessionID,
//! role, …data}`, a session `{id, directory, title, parentID?, time: {created, updated}}`.

use serde_json::{Map, Value, json};

use crate::store::{Message, Part, Session};

/// A part as opencode shows it: `{id, sessionID, messageID, type, …data}`.
pub fn part_json(part: &Part) -> Value {
    let mut out = Map::new();
    out.insert("id".into(), json!(part.id));
    out.insert("sessionID".into(), json!(part.session_id));
    out.insert("messageID".into(), json!(part.message_id));
    out.insert("type".into(), json!(part.kind));
    merge(&mut out, &part.data);
    Value::Object(out)
}

/// A message as opencode shows it: `{id, sessionID, role, …data}`.
pub fn message_json(message: &Message) -> Value {
    let mut out = Map::new();
    out.insert("id".into(), json!(message.id));
    out.insert("sessionID".into(), json!(message.session_id));
    out.insert("role".into(), json!(message.role.as_str()));
    merge(&mut out, &message.data);
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

/// Adds `data`'s fields after the ids; a field named like an id does not replace it.
fn merge(out: &mut Map<String, Value>, data: &Value) {
    if let Value::Object(data) = data {
        for (k, v) in data {
            out.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Event, kinds};

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
            kind: kinds::PART_UPDATED.into(),
            data: json!({ "part": part }),
            created_ms: 5,
        };
        assert_eq!(event.part(), Some(part));
    }
}
