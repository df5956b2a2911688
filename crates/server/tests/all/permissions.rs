//! Permission requests over HTTP: listed, answered once, always (never wider than asked) or
//! rejected with a message the model gets; replies checked against the request.

use axum::http::StatusCode;
use serde_json::{Value, json};
use strata_testkit::model_server::Turn;

use super::fixture::{Server, Sse, TURN, idle, kind, server};

async fn asked(sse: &mut Sse) -> Value {
    let frames = sse.until(TURN, |i| kind(i) == "permission.asked").await;
    frames.last().unwrap().1["properties"].clone()
}

fn bash(call: &str, command: &str) -> Turn {
    let args = json!({"command": command, "description": "a command"});
    Turn::tool_call(call, "bash", &args.to_string())
}

/// A server whose bash asks, with one session, its event stream open and `prompt` sent.
async fn prompted(turns: Vec<Turn>, prompt: &str) -> (Server, String, Sse) {
    let s = server(turns)
        .config(json!({"permission": {"bash": "ask"}, "sandbox": {"auto_allow": false}}))
        .start()
        .await;
    let id = s.session().await;
    let sse = s.sse("/event", None).await;
    s.post(
        &format!("/session/{id}/prompt_async"),
        Server::prompt(prompt),
    )
    .await;
    (s, id, sse)
}

#[tokio::test]
async fn a_rejection_with_a_message_reaches_the_model() {
    let (s, id, mut sse) = prompted(
        vec![bash("call_1", "echo hi"), Turn::text("understood")],
        "run it",
    )
    .await;
    let request = asked(&mut sse).await;
    assert_eq!(request["permission"], "bash");
    assert_eq!(request["sessionID"], id.as_str());
    let pending = s.get("/permission").await;
    assert_eq!(pending.body[0]["id"], request["id"]);
    let rid = request["id"].as_str().unwrap();

    // A reply naming another session is refused and leaves the request pending.
    let other = s.session().await;
    let wrong = s
        .post(
            &format!("/session/{other}/permissions/{rid}"),
            json!({"response": "once"}),
        )
        .await;
    assert_eq!(wrong.status, StatusCode::BAD_REQUEST);
    assert_eq!(s.get("/permission").await.body.as_array().unwrap().len(), 1);

    let reply = s
        .post(
            &format!("/permission/{rid}/reply"),
            json!({"reply": "reject", "message": "use printf instead"}),
        )
        .await;
    assert_eq!(reply.body, json!(true));
    let frames = sse.until(TURN, idle).await;
    assert!(frames.iter().any(|f| kind(&f.1) == "permission.replied"));
    let sent = s.model.sent();
    assert_eq!(sent.len(), 2, "the model is called again with the feedback");
    let result = &sent[1].results()[0].1;
    assert!(result.contains("use printf instead"), "{result}");
    // Answered requests are gone.
    let again = s
        .post(
            &format!("/permission/{rid}/reply"),
            json!({"reply": "once"}),
        )
        .await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    s.shutdown().await;
}

#[tokio::test]
async fn always_approves_only_what_was_asked() {
    let (s, _, mut sse) = prompted(
        vec![
            bash("call_1", "npm test"),
            bash("call_2", "npm test"),
            bash("call_3", "touch x"),
            Turn::text("done"),
        ],
        "test",
    )
    .await;
    let first = asked(&mut sse).await;
    assert!(
        first["always"].as_array().unwrap().iter().all(|p| p != "*"),
        "{first}"
    );
    let rid = first["id"].as_str().unwrap();
    s.post(
        &format!("/permission/{rid}/reply"),
        json!({"reply": "always"}),
    )
    .await;
    // The second `npm test` runs without asking; `touch x` asks again.
    let second = asked(&mut sse).await;
    assert_eq!(second["patterns"], json!(["touch x"]));
    let rid = second["id"].as_str().unwrap();
    s.post(
        &format!("/permission/{rid}/reply"),
        json!({"reply": "once"}),
    )
    .await;
    sse.until(TURN, idle).await;
    assert_eq!(s.model.sent().len(), 4);
    s.shutdown().await;
}

#[tokio::test]
async fn pending_requests_are_rejected_when_the_server_shuts_down() {
    let (s, id, mut sse) = prompted(
        vec![bash("call_1", "echo hi"), Turn::text("never")],
        "run it",
    )
    .await;
    asked(&mut sse).await;
    let core = s.core.clone();
    let store = core.store().clone();
    s.shutdown().await;
    strata_testkit::poll_with_timeout("the turn to end", TURN, || async {
        let parts = store.messages(&id).unwrap();
        let tool = parts
            .iter()
            .flat_map(|(_, p)| p)
            .find(|p| p.kind == "tool")?;
        (tool.data["state"]["status"] == "error").then_some(())
    })
    .await;
    assert!(core.pending_permissions().await.is_empty());
}
