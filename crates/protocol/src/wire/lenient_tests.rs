//! What a client may meet from a server other than this build (opencode's, an older or newer
//! Strata): fields it does not know, optional fields left out, event types it does not know.
//! These samples are opencode-shaped; the TUI reads them through these types alone.

use serde_json::json;

use super::*;
use crate::message::ErrorInfo;

fn decode(value: serde_json::Value) -> Decoded {
    Decoded::event(&value.to_string()).unwrap()
}

fn known(value: serde_json::Value) -> ServerEvent {
    match decode(value) {
        Decoded::Known(e) => e.event,
        other => panic!("not a known event: {other:?}"),
    }
}

#[test]
fn unknown_fields_are_ignored_or_kept() {
    let todos = known(
        json!({"id": "evt_1", "type": "todo.updated", "properties": {
            "sessionID": "ses_1",
            "todos": [{"id": "1", "content": "Write it", "status": "pending", "priority": "high"}],
        }}),
    );
    let ServerEvent::TodoUpdated { todos, .. } = todos else {
        panic!("not todos: {todos:?}");
    };
    assert_eq!(todos[0].content, "Write it");

    let session = known(
        json!({"id": "evt_2", "type": "session.updated", "properties": {
            "sessionID": "ses_1",
            "info": {"id": "ses_1", "title": "T", "directory": "/p", "time": {"created": 1, "updated": 2},
                     "share": {"url": "x"}},
            "unknownTopLevel": true,
        }}),
    );
    let ServerEvent::SessionUpdated { info, .. } = session else {
        panic!("not a session: {session:?}");
    };
    assert_eq!(info.extra["share"], json!({"url": "x"}));
    assert_eq!((info.slug.as_str(), info.parent_id), ("", None));
}

#[test]
fn optional_fields_may_be_left_out() {
    let asked = known(
        json!({"id": "evt_1", "type": "permission.asked", "properties": {
            "id": "per_1", "sessionID": "ses_1", "permission": "bash", "patterns": ["ls"],
        }}),
    );
    let ServerEvent::PermissionAsked(request) = asked else {
        panic!("not a permission: {asked:?}");
    };
    assert!(request.metadata.is_empty() && request.always.is_empty() && request.tool.is_none());

    let question = known(
        json!({"id": "evt_2", "type": "question.asked", "properties": {
            "id": "que_1", "sessionID": "ses_1", "questions": [{"question": "Which?"}],
        }}),
    );
    let ServerEvent::QuestionAsked(request) = question else {
        panic!("not a question: {question:?}");
    };
    let q = &request.questions[0];
    assert!(q.options.is_empty() && q.header.is_empty());
    assert!(!q.is_multiple() && q.allows_custom());
    let strict: QuestionInfo =
        serde_json::from_value(json!({"question": "?", "multiple": true, "custom": false}))
            .unwrap();
    assert!(strict.is_multiple() && !strict.allows_custom());
}

#[test]
fn unknown_event_types_are_skipped_by_name() {
    let sync = json!({"id": "evt_1", "type": "sync", "properties": {"syncEvent": {}}});
    assert_eq!(
        decode(sync.clone()),
        Decoded::Unknown {
            kind: "sync".into()
        }
    );
    let global = json!({"directory": "/p", "payload": sync});
    let (directory, decoded) = Decoded::global(&global.to_string()).unwrap();
    assert_eq!(directory.as_deref(), Some("/p"));
    assert!(matches!(decoded, Decoded::Unknown { kind } if kind == "sync"));
    // A known type with a body that does not fit is an error, not a skip.
    assert!(Decoded::event(r#"{"id":"e","type":"session.status","properties":{}}"#).is_err());
}

#[test]
fn an_opencode_message_with_a_bare_error_reads() {
    let entry: MessageEntry = serde_json::from_value(json!({
        "info": {"id": "msg_1", "sessionID": "ses_1", "role": "assistant",
                 "time": {"created": 1, "completed": 2}, "parentID": "msg_0",
                 "modelID": "m", "providerID": "p", "mode": "build", "path": {"cwd": "/p"},
                 "cost": 0, "tokens": {"input": 1, "output": 2, "reasoning": 0,
                                       "cache": {"read": 0, "write": 0}},
                 "error": {"name": "MessageOutputLengthError", "data": {}}},
        "parts": [{"id": "prt_1", "sessionID": "ses_1", "messageID": "msg_1",
                   "type": "snapshot", "snapshot": "abc"}],
    }))
    .unwrap();
    assert_eq!(entry.parts[0].kind, "snapshot");
    assert!(
        entry.parts[0].typed().is_none(),
        "a kind this build does not know"
    );
    let error: ErrorInfo = serde_json::from_value(entry.info.data["error"].clone()).unwrap();
    assert_eq!(error.text(), "MessageOutputLengthError");
    assert_eq!(ErrorInfo::new("APIError", "boom").text(), "boom");
}

#[test]
fn the_api_document_still_lists_an_error_message_as_sent() {
    let schema = schemars::schema_for!(crate::message::ErrorData);
    assert_eq!(schema.get("required"), Some(&json!(["message"])));
    assert_eq!(
        schema.get("properties"),
        Some(&json!({"message": {"type": "string"}}))
    );
}

#[test]
fn a_prompts_files_are_its_file_parts_with_data_urls() {
    let body: super::request::PromptBody = serde_json::from_value(serde_json::json!({
        "parts": [
            {"type": "text", "text": "look"},
            {"type": "file", "mime": "image/png", "filename": "a.png",
             "url": "data:image/png;base64,iVBO"},
            {"type": "file", "mime": "text/plain", "url": "file:///p/notes.txt"},
            {"type": "agent", "name": "plan"},
        ]
    }))
    .unwrap();
    let files = body.files();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0].filename.as_deref(), Some("a.png"));
    assert_eq!(files[0].url, "data:image/png;base64,iVBO");
    assert_eq!(body.text(), "look");
}
