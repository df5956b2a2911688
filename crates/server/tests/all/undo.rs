//! Undo over HTTP against real git: the session's diff, revert (files restored, later
//! messages hidden, `revert` on the session) and unrevert.

use axum::http::StatusCode;
use serde_json::json;
use strata_testkit::model_server::Turn;

use super::fixture::{Server, server};

#[tokio::test]
async fn revert_and_unrevert_a_file_change_over_http() {
    strata_testkit::require_external!("git", "apt-get install git");
    let s = server(vec![
        Turn::tool_call(
            "call_1",
            "write",
            r#"{"filePath":"new.txt","content":"hello\n"}"#,
        ),
        Turn::text("written"),
    ])
    .file("keep.txt", "kept\n")
    .start()
    .await;
    let id = s.session().await;
    let done = s
        .post(
            &format!("/session/{id}/message"),
            Server::prompt("write it"),
        )
        .await;
    assert_eq!(done.status, StatusCode::OK, "{:?}", done.body);
    assert_eq!(
        std::fs::read_to_string(s.dir.join("new.txt")).unwrap(),
        "hello\n"
    );

    let diff = s.get(&format!("/session/{id}/diff")).await;
    assert_eq!(diff.body[0]["path"], "new.txt", "{:?}", diff.body);
    assert_eq!(diff.body[0]["status"], "added");
    assert_eq!(diff.body[0]["additions"], 1);
    assert_eq!(diff.body.as_array().unwrap().len(), 1);

    let messages = s.get(&format!("/session/{id}/message")).await;
    let first = messages.body[0]["info"]["id"].as_str().unwrap().to_string();
    let reverted = s
        .post(
            &format!("/session/{id}/revert"),
            json!({"messageID": first}),
        )
        .await;
    assert_eq!(reverted.status, StatusCode::OK, "{:?}", reverted.body);
    assert_eq!(reverted.body["revert"]["messageID"], first.as_str());
    assert!(!s.dir.join("new.txt").exists(), "the written file is gone");
    assert_eq!(
        std::fs::read_to_string(s.dir.join("keep.txt")).unwrap(),
        "kept\n"
    );
    let info = s.get(&format!("/session/{id}")).await;
    assert_eq!(info.body["revert"]["messageID"], first.as_str());

    let back = s.post(&format!("/session/{id}/unrevert"), json!({})).await;
    assert_eq!(back.status, StatusCode::OK, "{:?}", back.body);
    assert!(back.body.get("revert").is_none(), "{:?}", back.body);
    assert_eq!(
        std::fs::read_to_string(s.dir.join("new.txt")).unwrap(),
        "hello\n"
    );

    // Nothing to unrevert now, and an unknown message is a 404 naming it.
    let again = s.post(&format!("/session/{id}/unrevert"), json!({})).await;
    assert_eq!(again.status, StatusCode::BAD_REQUEST);
    let unknown = s
        .post(
            &format!("/session/{id}/revert"),
            json!({"messageID": "msg_nope"}),
        )
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert_eq!(unknown.body["name"], "NotFoundError");
    assert!(
        unknown.body["data"]["message"]
            .as_str()
            .unwrap()
            .contains("msg_nope")
    );
}
