//! The session in the API says which sandbox the project's commands run in.

use serde_json::json;
use strata_services::process::sandbox::Support;

use super::fixture::server;

#[tokio::test]
async fn a_session_reports_its_projects_sandbox_mode() {
    let s = server(vec![]).start().await;
    let created = s.post("/session", json!({"title": "boxed"})).await;
    let expected = if Support::probe().enforceable() {
        "workspace-write"
    } else {
        "off"
    };
    assert_eq!(created.body["sandbox"], expected, "{}", created.body);
    let id = created.body["id"].as_str().unwrap().to_string();
    let fetched = s.get(&format!("/session/{id}")).await;
    assert_eq!(fetched.body["sandbox"], expected, "{}", fetched.body);
    let listed = s.get("/session").await;
    assert_eq!(listed.body[0]["sandbox"], expected, "{}", listed.body);
    s.shutdown().await;
}

#[tokio::test]
async fn the_configured_mode_is_the_one_reported() {
    let s = server(vec![])
        .config(json!({"sandbox": {"mode": "off"}}))
        .start()
        .await;
    let created = s.post("/session", json!({})).await;
    assert_eq!(created.body["sandbox"], "off", "{}", created.body);
    s.shutdown().await;
}

#[tokio::test]
async fn a_session_whose_project_is_not_open_yet_reports_the_mode_it_will_get() {
    let s = server(vec![]).start().await;
    let other = s.dir.parent().unwrap().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("strata.json"),
        r#"{"sandbox": {"mode": "read-only"}}"#,
    )
    .unwrap();
    let other = std::fs::canonicalize(other).unwrap();
    // Stored directly, so no instance of `other` is built in this server.
    let row = s.core.store().create_session(&other, None).unwrap();
    let expected = if Support::probe().enforceable() {
        "read-only"
    } else {
        "off"
    };
    let fetched = s.get(&format!("/session/{}", row.id)).await;
    assert_eq!(fetched.body["sandbox"], expected, "{}", fetched.body);
    s.shutdown().await;
}

#[tokio::test]
async fn deleting_a_session_removes_its_sandbox_temp_dir() {
    if !Support::probe().enforceable() {
        println!("skipped: the sandbox is not enforced here");
        return;
    }
    let s = server(vec![]).start().await;
    let id = s.session().await;
    let answer = s
        .post(
            &format!("/session/{id}/shell"),
            json!({"agent": "build", "command": "touch \"$TMPDIR/mark\" && echo \"$TMPDIR\""}),
        )
        .await;
    let part = answer.body["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["type"] == "tool")
        .unwrap()
        .clone();
    let output = part["state"]["output"].as_str().unwrap();
    let tmp = std::path::PathBuf::from(output.lines().next().unwrap().trim());
    assert!(tmp.join("mark").exists(), "{output}");
    assert!(tmp.ends_with(&id), "per session: {}", tmp.display());
    let deleted = s.call("DELETE", &format!("/session/{id}"), None).await;
    assert!(deleted.status.is_success(), "{deleted:?}");
    assert!(!tmp.exists(), "{} is left behind", tmp.display());
    s.shutdown().await;
}
