//! Hooks at the server's own events, with real shell scripts: `POST /session/:id/summarize`
//! compacts now and runs `PreCompact` with `trigger: "manual"`; `SessionEnd` runs once for a
//! session prompted here, when it is deleted and when the server shuts down (`reason:
//! "other"`), and never for one that was not.

use axum::http::StatusCode;
use serde_json::{Value, json};
use strata_agent::session::compact::SUMMARY_PROMPT;
use strata_testkit::model_server::Turn;

use super::fixture::{MODEL, Server, server};

/// A script for `event` that appends its stdin, one JSON object a line, to `<event>.log`.
fn logging(event: &str) -> Value {
    let command = format!("input=$(cat); echo \"$input\" >> {event}.log");
    json!({event: [{"hooks": [{"command": command}]}]})
}

/// A server whose project config has `hooks`, trusted.
async fn with_hooks(script: Vec<Turn>, hooks: Value) -> Server {
    let s = server(script).config(json!({"hooks": hooks})).start().await;
    let entry = s.core.instance(&s.dir).await.unwrap();
    assert!(entry.services.hooks.trust().unwrap());
    s
}

fn logged(s: &Server, event: &str) -> Vec<Value> {
    std::fs::read_to_string(s.dir.join(format!("{event}.log")))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

async fn prompted_session(s: &Server, text: &str) -> String {
    let id = s.session().await;
    let path = format!("/session/{id}/message");
    let answer = s.post(&path, Server::prompt(text)).await;
    assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    id
}

#[tokio::test]
async fn summarize_compacts_now_and_runs_pre_compact_with_trigger_manual() {
    let s = with_hooks(vec![Turn::text("Hello.")], logging("PreCompact")).await;
    let needle = SUMMARY_PROMPT.split('.').nth(1).unwrap().trim();
    s.model
        .answer_when(needle, Turn::text("SUMMARY: a greeting."));
    let empty = s.session().await;
    let refused = s
        .post(&format!("/session/{empty}/summarize"), json!({}))
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{refused:?}");
    assert!(
        refused
            .body
            .to_string()
            .contains("no messages to summarize"),
        "{refused:?}"
    );

    let id = prompted_session(&s, "hi").await;
    let body = json!({"providerID": MODEL.0, "modelID": MODEL.1, "instructions": "keep the names"});
    let answer = s.post(&format!("/session/{id}/summarize"), body).await;
    assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    assert_eq!(answer.body, json!(true));

    let input = logged(&s, "PreCompact");
    assert_eq!(input.len(), 1, "{input:?}");
    assert_eq!(input[0]["session_id"], id.as_str());
    assert_eq!(input[0]["trigger"], "manual");
    assert_eq!(input[0]["custom_instructions"], "keep the names");
    let requests = s.model.requests();
    assert_eq!(requests.len(), 2, "the prompt's step, then the summary");
    assert!(requests[1].to_string().contains("keep the names"));
    let messages = s.get(&format!("/session/{id}/message")).await.body;
    let last = messages.as_array().unwrap().last().unwrap();
    assert_eq!(last["info"]["summary"], true, "{last}");
    let part = &last["parts"][0];
    assert_eq!(
        (&part["type"], &part["auto"], &part["summary"]),
        (
            &json!("compaction"),
            &json!(false),
            &json!("SUMMARY: a greeting.")
        )
    );
    s.shutdown().await;
}

#[tokio::test]
async fn session_end_runs_when_a_prompted_session_is_deleted_and_at_shutdown_once_each() {
    let script = vec![Turn::text("one"), Turn::text("two")];
    let s = with_hooks(script, logging("SessionEnd")).await;
    let deleted = prompted_session(&s, "first").await;
    let kept = prompted_session(&s, "second").await;
    let never_prompted = s.session().await;

    let gone = s.call("DELETE", &format!("/session/{deleted}"), None).await;
    assert_eq!(gone.status, StatusCode::OK, "{gone:?}");
    let unprompted = s
        .call("DELETE", &format!("/session/{never_prompted}"), None)
        .await;
    assert_eq!(unprompted.status, StatusCode::OK, "{unprompted:?}");
    let ended = logged(&s, "SessionEnd");
    assert_eq!(ended.len(), 1, "{ended:?}");
    assert_eq!(
        (ended[0]["session_id"].as_str(), ended[0]["reason"].as_str()),
        (Some(deleted.as_str()), Some("other"))
    );

    let core = s.core.clone();
    core.shutdown().await;
    let ended = logged(&s, "SessionEnd");
    let who: Vec<(&str, &str)> = ended
        .iter()
        .map(|e| {
            (
                e["session_id"].as_str().unwrap(),
                e["reason"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(who, [(deleted.as_str(), "other"), (kept.as_str(), "other")]);
    // The run at shutdown is recorded in the session like any other hook run.
    let recorded = strata_agent::session::hooks::runs(core.store(), &kept).unwrap();
    assert_eq!(recorded.len(), 1);
    assert_eq!(
        (recorded[0].event.as_str(), recorded[0].exit_code),
        ("SessionEnd", Some(0))
    );
}
