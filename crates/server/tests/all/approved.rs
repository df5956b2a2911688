//! What was approved is what runs: an edit approved after its file changed on disk is asked
//! again with the fresh diff instead of writing the stale one, and a reply to a request that is
//! not pending is a 409 naming it.

use axum::http::StatusCode;
use serde_json::{Value, json};
use strata_testkit::model_server::Turn;

use super::fixture::{Server, Sse, TURN, idle, kind, server};

/// The `permission.asked` events up to the next one, and that one's request.
async fn asked(sse: &mut Sse) -> Value {
    let frames = sse.until(TURN, |i| kind(i) == "permission.asked").await;
    frames.last().unwrap().1["properties"].clone()
}

fn edit(call: &str, old: &str, new: &str) -> Turn {
    let args = json!({"filePath": "notes.txt", "oldString": old, "newString": new});
    Turn::tool_call(call, "edit", &args.to_string())
}

/// A server whose edits ask, with `notes.txt` holding `content`, one session, its event stream
/// open and `prompt` sent.
async fn prompted(turns: Vec<Turn>, content: &'static str) -> (Server, Sse) {
    let s = server(turns)
        .config(json!({"permission": {"edit": "ask"}, "tools": {"read_before_edit": false}}))
        .file("notes.txt", content)
        .start()
        .await;
    let id = s.session().await;
    let sse = s.sse("/event", None).await;
    s.post(
        &format!("/session/{id}/prompt_async"),
        Server::prompt("edit the notes"),
    )
    .await;
    (s, sse)
}

async fn approve(s: &Server, request: &Value) -> crate::fixture::Answer {
    let rid = request["id"].as_str().unwrap();
    s.post(
        &format!("/permission/{rid}/reply"),
        json!({"reply": "once"}),
    )
    .await
}

#[tokio::test]
async fn a_file_changed_during_the_ask_is_asked_again_with_the_fresh_diff() {
    let (s, mut sse) = prompted(
        vec![edit("call_1", "alpha", "ALPHA"), Turn::text("done")],
        "alpha\nbeta\n",
    )
    .await;
    let notes = s.dir.join("notes.txt");
    let first = asked(&mut sse).await;
    let diff = first["metadata"]["diff"].as_str().unwrap();
    assert!(diff.contains("-alpha") && !diff.contains("gamma"), "{diff}");
    assert!(first["metadata"].get("changedSinceAsk").is_none());

    // Someone else changes the file while the request waits.
    std::fs::write(&notes, "alpha\nbeta\ngamma\n").unwrap();
    assert_eq!(approve(&s, &first).await.status, StatusCode::OK);

    let second = asked(&mut sse).await;
    assert_ne!(second["id"], first["id"], "a fresh request");
    let meta = &second["metadata"];
    assert_eq!(
        meta["changedSinceAsk"],
        json!({"requestID": first["id"], "files": ["notes.txt"]})
    );
    assert!(
        meta["title"]
            .as_str()
            .unwrap()
            .starts_with("notes.txt changed since the last ask"),
        "{meta}"
    );
    let diff = meta["diff"].as_str().unwrap();
    assert!(diff.contains("-alpha") && diff.contains(" gamma"), "{diff}");
    // The stale diff was not written: the file is as the other writer left it.
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "alpha\nbeta\ngamma\n"
    );

    assert_eq!(approve(&s, &second).await.status, StatusCode::OK);
    sse.until(TURN, idle).await;
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "ALPHA\nbeta\ngamma\n"
    );
    let sent = s.model.sent();
    let result = &sent[1].results()[0].1;
    assert!(result.contains("Edit applied"), "{result}");
    s.shutdown().await;
}

#[tokio::test]
async fn an_unchanged_file_is_written_after_one_approval() {
    let (s, mut sse) = prompted(
        vec![edit("call_1", "alpha", "ALPHA"), Turn::text("done")],
        "alpha\nbeta\n",
    )
    .await;
    let first = asked(&mut sse).await;
    assert_eq!(approve(&s, &first).await.status, StatusCode::OK);
    let frames = sse.until(TURN, idle).await;
    let asks = frames
        .iter()
        .filter(|f| kind(&f.1) == "permission.asked")
        .count();
    assert_eq!(asks, 0, "no second ask");
    assert_eq!(
        std::fs::read_to_string(s.dir.join("notes.txt")).unwrap(),
        "ALPHA\nbeta\n"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn a_reply_to_a_request_that_is_not_pending_is_a_conflict() {
    let (s, mut sse) = prompted(
        vec![edit("call_1", "alpha", "ALPHA"), Turn::text("done")],
        "alpha\n",
    )
    .await;
    let first = asked(&mut sse).await;
    let rid = first["id"].as_str().unwrap();
    assert_eq!(approve(&s, &first).await.status, StatusCode::OK);
    sse.until(TURN, idle).await;

    let twice = approve(&s, &first).await;
    assert_eq!(twice.status, StatusCode::CONFLICT);
    assert_eq!(twice.body["name"], "NotPendingError");
    assert_eq!(twice.body["data"]["requestID"], rid);
    let message = twice.body["data"]["message"].as_str().unwrap();
    assert!(
        message.contains(rid) && message.contains("not pending"),
        "{message}"
    );

    let unknown = s
        .post("/permission/per_unknown/reply", json!({"reply": "once"}))
        .await;
    assert_eq!(unknown.status, StatusCode::CONFLICT);
    assert_eq!(unknown.body["data"]["requestID"], "per_unknown");
    // The older per-session route answers the same.
    let session = first["sessionID"].as_str().unwrap();
    let old = s
        .post(
            &format!("/session/{session}/permissions/{rid}"),
            json!({"response": "once"}),
        )
        .await;
    assert_eq!(old.status, StatusCode::CONFLICT);

    // The document says so.
    let doc = s.get("/doc").await.body;
    for (path, method) in [
        ("/permission/{id}/reply", "post"),
        ("/session/{id}/permissions/{permission}", "post"),
    ] {
        let conflict = &doc["paths"][path][method]["responses"]["409"];
        assert!(conflict["description"].is_string(), "{path}: {conflict}");
    }
    assert!(doc["paths"]["/doc"]["get"]["responses"]["409"].is_null());
    s.shutdown().await;
}
