use serde_json::{Value, json};

use super::*;
use crate::part::PartData;
use crate::wire::request::PermissionReply;
use crate::wire::view::PartView;

/// Decodes `value` as an envelope and checks that encoding it again gives the same JSON.
fn round_trip(value: Value) -> Envelope {
    let envelope: Envelope = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(serde_json::to_value(&envelope).unwrap(), value);
    envelope
}

#[test]
fn opencode_shaped_events_round_trip() {
    let part = round_trip(json!({
        "id": "evt_1", "type": "message.part.updated",
        "properties": {
            "sessionID": "ses_1",
            "part": {"id": "prt_1", "sessionID": "ses_1", "messageID": "msg_1", "type": "text",
                     "text": "hi", "time": {"start": 1, "end": 2}},
            "time": 5
        }
    }));
    let ServerEvent::PartUpdated { part, .. } = part.event else {
        panic!("not a part update: {part:?}");
    };
    assert!(matches!(part.typed(), Some(PartData::Text(t)) if t.text == "hi" && t.is_finished()));

    let asked = round_trip(json!({
        "id": "evt_2", "type": "permission.asked",
        "properties": {
            "id": "per_1", "sessionID": "ses_1", "permission": "edit", "patterns": ["src/app.py"],
            "metadata": {"filepath": "src/app.py"}, "always": ["*"],
            "tool": {"messageID": "msg_1", "callID": "call_1"}
        }
    }));
    assert_eq!(asked.event.session_id(), Some("ses_1"));

    let replied = round_trip(json!({
        "id": "evt_3", "type": "permission.replied",
        "properties": {"sessionID": "ses_1", "requestID": "per_1", "reply": "once"}
    }));
    assert!(matches!(
        replied.event,
        ServerEvent::PermissionReplied {
            reply: PermissionReply::Once,
            ..
        }
    ));

    round_trip(json!({"id": "evt_4", "type": "server.connected", "properties": {}}));
    round_trip(json!({
        "id": "evt_5", "type": "session.status",
        "properties": {"sessionID": "ses_1", "status": {"type": "busy"}}
    }));
    round_trip(json!({
        "id": "evt_6", "type": "message.part.delta",
        "properties": {"sessionID": "ses_1", "messageID": "msg_1", "partID": "prt_1",
                       "field": "text", "delta": "Do"}
    }));
    round_trip(json!({
        "id": "evt_7", "type": "session.updated", "seq": 4,
        "properties": {"sessionID": "ses_1", "info": {
            "id": "ses_1", "slug": "s", "projectID": "p", "directory": "/x", "title": "t",
            "version": "1", "cost": 0.5,
            "tokens": {"input": 1, "output": 2, "reasoning": 0, "cache": {"read": 0, "write": 0}},
            "time": {"created": 1, "updated": 2}, "agent": "build"
        }}
    }));
    round_trip(json!({
        "id": "evt_8", "type": "question.asked",
        "properties": {"id": "que_1", "sessionID": "ses_1", "questions": [
            {"question": "Which?", "header": "Pick", "options": [{"label": "a", "description": "A"}],
             "multiple": true}
        ]}
    }));
    round_trip(json!({
        "id": "evt_9", "type": "todo.updated",
        "properties": {"sessionID": "ses_1", "todos": [
            {"content": "x", "status": "pending", "priority": "high"}
        ]}
    }));
}

#[test]
fn unknown_types_are_skipped_and_bad_known_ones_are_errors() {
    let plugin = r#"{"id":"evt_1","type":"plugin.added","properties":{"id":"x"}}"#;
    assert_eq!(
        Decoded::event(plugin).unwrap(),
        Decoded::Unknown {
            kind: "plugin.added".into()
        }
    );
    let broken =
        r#"{"id":"evt_1","type":"session.status","properties":{"status":{"type":"busy"}}}"#;
    assert!(Decoded::event(broken).is_err(), "sessionID is missing");
}

#[test]
fn global_items_carry_their_directory() {
    let item = r#"{"directory":"/p","payload":{"id":"evt_1","type":"session.idle","properties":{"sessionID":"ses_1"}}}"#;
    let (dir, decoded) = Decoded::global(item).unwrap();
    assert_eq!(dir.as_deref(), Some("/p"));
    let Decoded::Known(envelope) = decoded else {
        panic!("not decoded: {decoded:?}");
    };
    assert_eq!(envelope.event.session_id(), Some("ses_1"));
    let global = GlobalEnvelope {
        directory: Some("/p".into()),
        project: None,
        payload: *envelope,
    };
    assert_eq!(serde_json::to_string(&global).unwrap(), item);
}

#[test]
fn every_known_type_is_listed() {
    // One sample per variant; its `type` must be in KNOWN so a bad body is reported, not skipped.
    let samples = [
        json!({"type": "server.heartbeat", "properties": {}}),
        json!({"type": "server.instance.disposed", "properties": {"directory": "/p"}}),
        json!({"type": "session.error", "properties": {"error": {"name": "E", "data": {"message": "m"}}}}),
        json!({"type": "session.diff", "properties": {"sessionID": "s", "diff": []}}),
        json!({"type": "message.removed", "properties": {"sessionID": "s", "messageID": "m"}}),
        json!({"type": "message.part.removed", "properties": {"sessionID": "s", "messageID": "m", "partID": "p"}}),
        json!({"type": "question.replied", "properties": {"sessionID": "s", "requestID": "q", "answers": [["a"]]}}),
        json!({"type": "question.rejected", "properties": {"sessionID": "s", "requestID": "q"}}),
    ];
    for mut sample in samples {
        sample["id"] = json!("evt_1");
        let kind = sample["type"].as_str().unwrap().to_string();
        assert!(KNOWN.contains(&kind.as_str()), "{kind} missing from KNOWN");
        round_trip(sample);
    }
}

#[test]
fn a_stored_part_views_as_part_json_shows_it() {
    let part = crate::store::Part {
        id: "prt_1".into(),
        message_id: "msg_1".into(),
        session_id: "ses_1".into(),
        seq: 3,
        kind: "tool".into(),
        data: json!({"callID": "c", "tool": "read", "state": {"status": "pending", "input": {}, "raw": ""}}),
        updated_ms: 9,
    };
    let view = PartView::of(&part);
    assert_eq!(
        serde_json::to_value(&view).unwrap(),
        crate::view::part_json(&part)
    );
    assert!(matches!(view.typed(), Some(PartData::Tool(t)) if t.tool == "read"));
}
