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
