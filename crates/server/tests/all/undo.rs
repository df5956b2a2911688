//! Undo over HTTP against real git: the session's diff, revert (files restored, later
//! messages hidden, `revert` on the session) and unrevert.

use axum::http::StatusCode;
use serde_json::json;
use strata_services::snapshot::disk_usage;
use strata_testkit::model_server::{Turn, call};

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

/// The first user message of session `id`.
async fn first_message(s: &Server, id: &str) -> String {
    let messages = s.get(&format!("/session/{id}/message")).await;
    messages.body[0]["info"]["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_revert_outside_git_says_what_it_restored_and_what_it_could_not() {
    strata_testkit::require_external!("git", "apt-get install git");
    let s = server(vec![
        Turn::TextAndToolCalls(
            String::new(),
            vec![
                call(
                    "c1",
                    "write",
                    r#"{"filePath":"new.txt","content":"hello\n"}"#,
                ),
                call(
                    "c2",
                    "write",
                    r#"{"filePath":"node_modules/extra.js","content":"x\n"}"#,
                ),
            ],
        ),
        Turn::text("written"),
    ])
    .start()
    .await;
    // A forgotten node_modules: untracked (the folder is no git repository) and crowded.
    std::fs::create_dir_all(s.dir.join("node_modules")).unwrap();
    for i in 0..201 {
        std::fs::write(s.dir.join(format!("node_modules/f{i}.js")), "0\n").unwrap();
    }
    let id = s.session().await;
    let done = s
        .post(&format!("/session/{id}/message"), Server::prompt("write"))
        .await;
    assert_eq!(done.status, StatusCode::OK, "{:?}", done.body);
    let first = first_message(&s, &id).await;
    let reverted = s
        .post(
            &format!("/session/{id}/revert"),
            json!({"messageID": first}),
        )
        .await;
    assert_eq!(reverted.status, StatusCode::OK, "{:?}", reverted.body);
    let files = &reverted.body["revert"]["files"];
    assert_eq!(files["restored"], json!(["new.txt"]), "{files}");
    assert_eq!(files["notCovered"], json!(["node_modules/"]), "{files}");
    let note = files["note"].as_str().unwrap();
    assert!(note.starts_with("Restored 1 file "), "{note}");
    assert!(note.contains("node_modules/ (202 entries"), "{note}");
    assert!(note.contains("not a git repository"), "{note}");
    // What it said: the written file is gone, the one in the skipped folder is not.
    assert!(!s.dir.join("new.txt").exists());
    assert!(s.dir.join("node_modules/extra.js").exists());
}

#[tokio::test]
async fn a_revert_with_no_snapshot_claims_no_file_change() {
    strata_testkit::require_external!("git", "apt-get install git");
    let s = server(vec![Turn::text("just words")])
        .file("keep.txt", "kept\n")
        .start()
        .await;
    let id = s.session().await;
    s.post(&format!("/session/{id}/message"), Server::prompt("hi"))
        .await;
    std::fs::write(s.dir.join("keep.txt"), "changed by hand\n").unwrap();
    let first = first_message(&s, &id).await;
    let reverted = s
        .post(
            &format!("/session/{id}/revert"),
            json!({"messageID": first}),
        )
        .await;
    assert_eq!(reverted.status, StatusCode::OK, "{:?}", reverted.body);
    let files = &reverted.body["revert"]["files"];
    assert_eq!(files["restored"], json!([]), "{files}");
    let note = files["note"].as_str().unwrap();
    assert!(note.contains("no file was changed"), "{note}");
    assert_eq!(
        std::fs::read_to_string(s.dir.join("keep.txt")).unwrap(),
        "changed by hand\n"
    );
}

/// Bytes that do not compress (xorshift), so the store really grows by their size.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[tokio::test]
async fn past_max_mb_a_deleted_sessions_snapshots_go_and_a_live_one_still_reverts() {
    strata_testkit::require_external!("git", "apt-get install git");
    let write = |id: &str, path: &str| {
        let args = json!({"filePath": path, "content": "x\n"}).to_string();
        Turn::tool_call(id, "write", &args)
    };
    let s = server(vec![
        write("a1", "a.txt"),
        Turn::text("a done"),
        write("b1", "b.txt"),
        Turn::text("b done"),
    ])
    .config(json!({"snapshot": {"max_mb": 1}}))
    .start()
    .await;
    // Session A's undo point holds 1.5 MB that does not compress.
    std::fs::write(s.dir.join("big.bin"), noise(7, 1_500_000)).unwrap();
    let a = s.session().await;
    let done = s
        .post(&format!("/session/{a}/message"), Server::prompt("a"))
        .await;
    assert_eq!(done.status, StatusCode::OK, "{:?}", done.body);
    let store = s.root().join("data/snapshot");
    assert!(disk_usage(&store) > 1024 * 1024, "{}", disk_usage(&store));
    let deleted = s.call("DELETE", &format!("/session/{a}"), None).await;
    assert_eq!(deleted.status, StatusCode::OK, "{:?}", deleted.body);
    std::fs::remove_file(s.dir.join("big.bin")).unwrap();

    let b = s.session().await;
    let done = s
        .post(&format!("/session/{b}/message"), Server::prompt("b"))
        .await;
    assert_eq!(done.status, StatusCode::OK, "{:?}", done.body);
    assert!(disk_usage(&store) <= 1024 * 1024, "{}", disk_usage(&store));
    let first = first_message(&s, &b).await;
    let reverted = s
        .post(&format!("/session/{b}/revert"), json!({"messageID": first}))
        .await;
    assert_eq!(reverted.status, StatusCode::OK, "{:?}", reverted.body);
    assert!(
        !s.dir.join("b.txt").exists(),
        "session B's change is undone"
    );
    assert!(s.dir.join("a.txt").exists());
}

#[tokio::test]
async fn in_a_home_directory_a_revert_takes_back_only_the_conversation_and_says_so() {
    strata_testkit::require_external!("git", "apt-get install git");
    let s = server(vec![
        Turn::tool_call(
            "c1",
            "write",
            r#"{"filePath":"new.txt","content":"hello\n"}"#,
        ),
        Turn::text("written"),
    ])
    .home_is_project()
    .start()
    .await;
    let id = s.session().await;
    let done = s
        .post(&format!("/session/{id}/message"), Server::prompt("write"))
        .await;
    assert_eq!(done.status, StatusCode::OK, "{:?}", done.body);
    assert!(
        !s.root().join("data/snapshot").exists(),
        "no snapshot taken"
    );
    let diff = s.get(&format!("/session/{id}/diff")).await;
    assert_eq!(diff.status, StatusCode::OK, "{:?}", diff.body);
    assert_eq!(diff.body, json!([]));

    let first = first_message(&s, &id).await;
    let reverted = s
        .post(
            &format!("/session/{id}/revert"),
            json!({"messageID": first}),
        )
        .await;
    assert_eq!(reverted.status, StatusCode::OK, "{:?}", reverted.body);
    let note = reverted.body["revert"]["files"]["note"].as_str().unwrap();
    assert!(note.starts_with("No file was changed"), "{note}");
    assert!(note.contains("home directory"), "{note}");
    assert!(s.dir.join("new.txt").exists(), "the file was not touched");
    let back = s.post(&format!("/session/{id}/unrevert"), json!({})).await;
    assert_eq!(back.status, StatusCode::OK, "{:?}", back.body);
}
