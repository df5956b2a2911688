//! `POST /session/:id/shell`: the command runs as the user's own `bash` call through the normal
//! tool path (no model call, every state stored and streamed, the permission rules applied),
//! the next prompt sends it to the model, a second request while one runs is a 409, and abort
//! stops it.

use axum::http::StatusCode;
use serde_json::{Value, json};
use strata_testkit::model_server::Turn;

use super::fixture::{Server, TURN, idle, kind, server};

fn tool_part(message: &Value) -> &Value {
    message["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["type"] == "tool")
        .unwrap_or_else(|| panic!("no tool part in {message}"))
}

#[tokio::test]
async fn a_command_runs_as_the_users_bash_call_and_the_next_prompt_sees_it() {
    let s = server(vec![Turn::text("I see it.")]).start().await;
    let id = s.session().await;
    let mut sse = s.sse("/event", None).await;
    let command = "echo made > made.txt && echo shell-output";
    let answer = s
        .post(
            &format!("/session/{id}/shell"),
            json!({"agent": "build", "command": command}),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    assert_eq!(answer.body["info"]["role"], "assistant");
    let part = tool_part(&answer.body);
    assert_eq!(part["tool"], "bash");
    assert_eq!(part["state"]["status"], "completed");
    assert_eq!(part["state"]["input"]["command"], command);
    let output = part["state"]["output"].as_str().unwrap();
    assert!(output.contains("shell-output"), "{output}");
    assert_eq!(
        std::fs::read_to_string(s.dir.join("made.txt")).unwrap(),
        "made\n"
    );
    assert!(s.model.sent().is_empty(), "the model is not called");

    // Streamed like a turn's call: busy, the part's states, idle.
    let frames = sse.until(TURN, idle).await;
    let mut states: Vec<&str> = frames
        .iter()
        .filter(|f| kind(&f.1) == "message.part.updated")
        .filter_map(|f| f.1["properties"]["part"]["state"]["status"].as_str())
        .collect();
    // Running repeats as the output streams in.
    states.dedup();
    assert_eq!(states, ["pending", "running", "completed"]);
    assert!(
        frames.iter().any(
            |f| kind(&f.1) == "session.status" && f.1["properties"]["status"]["type"] == "busy"
        )
    );

    // Stored: the user's message naming the command, then the call.
    let messages = s.get(&format!("/session/{id}/message")).await.body;
    assert_eq!(messages.as_array().unwrap().len(), 2);
    assert_eq!(messages[0]["info"]["role"], "user");
    let said = messages[0]["parts"][0]["text"].as_str().unwrap();
    assert!(said.contains(command), "{said}");

    // The next prompt sends the call and its output to the model.
    let next = s
        .post(
            &format!("/session/{id}/message"),
            Server::prompt("what happened?"),
        )
        .await;
    assert_eq!(next.status, StatusCode::OK, "{next:?}");
    let sent = s.model.sent();
    let results = sent[0].results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].1.contains("shell-output"), "{results:?}");
    s.shutdown().await;
}

#[tokio::test]
async fn a_command_asks_permission_and_a_second_one_meanwhile_is_refused() {
    let s = server(vec![])
        .config(json!({"permission": {"bash": "ask"}, "sandbox": {"auto_allow": false}}))
        .start()
        .await;
    let id = s.session().await;
    let mut sse = s.sse("/event", None).await;
    let path = format!("/session/{id}/shell");
    let first = s.post(
        &path,
        json!({"agent": "build", "command": "echo no > refused.txt"}),
    );
    let meanwhile = async {
        let frames = sse.until(TURN, |i| kind(i) == "permission.asked").await;
        let asked = frames.last().unwrap().1["properties"].clone();
        assert_eq!(asked["permission"], "bash");
        assert_eq!(asked["patterns"], json!(["echo no > refused.txt"]));
        let second = s
            .post(
                &format!("/session/{id}/shell"),
                json!({"agent": "build", "command": "ls"}),
            )
            .await;
        assert_eq!(second.status, StatusCode::CONFLICT);
        assert_eq!(second.body["name"], "SessionBusyError");
        let rid = asked["id"].as_str().unwrap();
        let reply = s
            .post(
                &format!("/permission/{rid}/reply"),
                json!({"reply": "reject"}),
            )
            .await;
        assert_eq!(reply.body, json!(true));
    };
    let (answer, ()) = tokio::join!(first, meanwhile);
    assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    let part = tool_part(&answer.body);
    assert_eq!(part["state"]["status"], "error");
    assert!(!s.dir.join("refused.txt").exists());
    assert_eq!(s.get("/session/status").await.body, json!({}));
    s.shutdown().await;
}

#[tokio::test]
async fn abort_stops_a_running_command() {
    let s = server(vec![]).start().await;
    let id = s.session().await;
    let mut sse = s.sse("/event", None).await;
    let path = format!("/session/{id}/shell");
    let started = std::time::Instant::now();
    let first = s.post(&path, json!({"agent": "build", "command": "sleep 60"}));
    let abort = async {
        sse.until(TURN, |i| {
            kind(i) == "message.part.updated"
                && i["properties"]["part"]["state"]["status"] == "running"
        })
        .await;
        let aborted = s.post(&format!("/session/{id}/abort"), json!({})).await;
        assert_eq!(aborted.body, json!(true));
    };
    let (answer, ()) = tokio::join!(first, abort);
    assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    assert_eq!(tool_part(&answer.body)["state"]["status"], "error");
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    s.shutdown().await;
}

#[tokio::test]
async fn an_agent_no_one_has_is_a_400_naming_the_agents_and_nothing_runs() {
    // Found by schemathesis: an empty `agent` used to end the request in a 500.
    let s = server(Vec::new()).start().await;
    let id = s.session().await;
    for agent in ["", "nobody"] {
        let answer = s
            .post(
                &format!("/session/{id}/shell"),
                json!({"agent": agent, "command": "echo ran > ran.txt"}),
            )
            .await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{answer:?}");
        let message = answer.body["data"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("no agent named `{agent}`")) && message.contains("build"),
            "{message}"
        );
    }
    assert!(!s.dir.join("ran.txt").exists());
}
