//! `strata run` end to end: the built binary against the scripted model server through
//! `OPENAI_BASE_URL`, in both output formats, with permissions and failures.

use crate::common::Project;
use crate::e2e_run_support::*;
use serde_json::json;
use strata_testkit::model_server::{ModelServer, Turn, call};

fn read_then_answer() -> Vec<Turn> {
    vec![
        Turn::TextAndToolCalls(
            "Looking.".into(),
            vec![call("c1", "read", r#"{"filePath":"a.txt"}"#)],
        ),
        Turn::text("The file says alpha."),
    ]
}

#[test]
fn the_default_format_streams_text_and_a_line_per_tool_call() {
    let p = Project::new();
    p.file("a.txt", "alpha\n");
    let server = ModelServer::start(read_then_answer());
    let run = run(&p, &server, &["what", "is", "in", "a.txt?"]);
    run.expect_code(0);
    assert_eq!(
        run.stdout, "Looking.\n→ read a.txt\nThe file says alpha.\n",
        "{run:#?}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0]["messages"][1]["content"], "what is in a.txt?");
    assert_eq!(requests[0]["model"], "scripted-model");
}

#[test]
fn the_json_format_prints_opencode_events() {
    let p = Project::new();
    p.file("a.txt", "alpha\n");
    let server = ModelServer::start(read_then_answer());
    let run = run(&p, &server, &["--format", "json", "read a.txt"]);
    run.expect_code(0);
    let events = json_lines(&run);
    assert_eq!(
        types(&events),
        [
            "step_start",
            "text",
            "tool_use",
            "step_finish",
            "step_start",
            "text",
            "step_finish"
        ]
    );
    let session = events[0]["sessionID"].as_str().unwrap();
    assert!(session.starts_with("ses_"));
    for e in &events {
        assert_eq!(e["sessionID"], session);
        assert!(e["timestamp"].as_i64().unwrap() > 0);
        assert_eq!(e["part"]["sessionID"], session);
        assert!(e["part"]["id"].as_str().unwrap().starts_with("prt_"));
        assert!(e["part"]["messageID"].as_str().unwrap().starts_with("msg_"));
    }
    assert_eq!(events[0]["part"]["type"], "step-start");
    assert_eq!(events[1]["part"]["type"], "text");
    assert_eq!(events[1]["part"]["text"], "Looking.");
    assert!(events[1]["part"]["time"]["end"].as_i64().is_some());
    let tool = &events[2]["part"];
    assert_eq!(tool["type"], "tool");
    assert_eq!(tool["tool"], "read");
    assert_eq!(tool["callID"], "c1");
    let state = &tool["state"];
    assert_eq!(state["status"], "completed");
    assert_eq!(state["input"], json!({"filePath": "a.txt"}));
    assert!(state["output"].as_str().unwrap().contains("alpha"));
    assert_eq!(state["title"], "a.txt");
    assert!(state["metadata"].is_object());
    let (start, end) = (
        state["time"]["start"].as_i64().unwrap(),
        state["time"]["end"].as_i64().unwrap(),
    );
    assert!(start <= end);
    assert_eq!(events[3]["part"]["type"], "step-finish");
    assert_eq!(events[3]["part"]["reason"], "tool-calls");
    assert!(events[3]["part"]["tokens"]["input"].is_number());
    assert_eq!(events[6]["part"]["reason"], "stop");
    assert_eq!(events[5]["part"]["text"], "The file says alpha.");
}

#[test]
fn a_failed_tool_is_a_tool_use_with_an_error() {
    let p = Project::new();
    let server = ModelServer::start(vec![
        Turn::tool_call("c1", "read", r#"{"filePath":"missing.txt"}"#),
        Turn::text("It does not exist."),
    ]);
    let run = run(&p, &server, &["--format", "json", "read missing.txt"]);
    run.expect_code(0);
    let events = json_lines(&run);
    let tool = events.iter().find(|e| e["type"] == "tool_use").unwrap();
    assert_eq!(tool["part"]["state"]["status"], "error");
    assert!(
        tool["part"]["state"]["error"]
            .as_str()
            .unwrap()
            .contains("missing.txt")
    );
    assert!(tool["part"]["state"]["time"]["end"].is_number());
}

#[test]
fn a_model_error_is_an_error_event_and_exit_code_1() {
    let p = Project::new();
    let server = ModelServer::start(vec![Turn::Status(
        400,
        r#"{"error":{"message":"unknown model"}}"#.into(),
    )]);
    let run = run(&p, &server, &["--format", "json", "hi"]);
    run.expect_code(1);
    let events = json_lines(&run);
    let error = events.iter().find(|e| e["type"] == "error").unwrap();
    assert_eq!(error["error"]["name"], "APIError");
    assert!(
        error["error"]["data"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown model")
    );
    // The default format says it on stderr.
    let server = ModelServer::start(vec![Turn::Status(400, "nope".into())]);
    let plain = crate::e2e_run_support::run(&p, &server, &["hi"]);
    plain.expect_code(1);
    assert!(plain.stderr.contains("HTTP 400"), "{plain:#?}");
}

#[test]
fn without_a_model_the_user_is_told_to_pass_one_and_config_can_name_it() {
    let p = Project::new();
    let server = ModelServer::start(vec![Turn::text("hello from config")]);
    let run = strata(&p, &server, &["run", "hi"]);
    run.expect_code(2);
    assert!(run.stderr.contains("--model"), "{run:#?}");
    p.file("strata.json", r#"{"model": "openai/from-config"}"#);
    let run = strata(&p, &server, &["run", "hi"]);
    run.expect_code(0);
    assert_eq!(run.stdout, "hello from config\n");
    assert_eq!(server.requests()[0]["model"], "from-config");
    let run = strata(&p, &server, &["run", "--model", "gemini/x", "hi"]);
    run.expect_code(2);
    assert!(run.stderr.contains("unknown provider"), "{run:#?}");
}

#[test]
fn an_ask_without_a_terminal_is_refused_unless_yes_is_given() {
    let p = Project::new();
    p.file(".env", "TOKEN=1\n");
    let script = || {
        vec![
            Turn::tool_call("c1", "read", r#"{"filePath":".env"}"#),
            Turn::text("done"),
        ]
    };
    let server = ModelServer::start(script());
    let refused = run(&p, &server, &["read .env"]);
    refused.expect_code(1);
    assert!(refused.stderr.contains("--yes"), "{refused:#?}");
    assert!(refused.stdout.contains("✗ read .env"), "{refused:#?}");
    assert_eq!(server.requests().len(), 1, "a refusal stops the turn");

    let server = ModelServer::start(script());
    let allowed = run(&p, &server, &["--yes", "read .env"]);
    allowed.expect_code(0);
    assert!(allowed.stdout.contains("→ read .env"), "{allowed:#?}");
    let result = &server.requests()[1]["messages"][3]["content"];
    assert!(result.as_str().unwrap().contains("TOKEN=1"), "{result}");
}

#[test]
fn a_config_rule_denies_even_with_yes() {
    let p = Project::new();
    p.file("secret.txt", "s3cret\n");
    p.file(
        "strata.json",
        r#"{"permission": {"read": {"*secret*": "deny"}}}"#,
    );
    let server = ModelServer::start(vec![Turn::tool_call(
        "c1",
        "read",
        r#"{"filePath":"secret.txt"}"#,
    )]);
    let run = run(&p, &server, &["--yes", "--format", "json", "read it"]);
    run.expect_code(1);
    let events = json_lines(&run);
    let tool = events.iter().find(|e| e["type"] == "tool_use").unwrap();
    assert_eq!(tool["part"]["state"]["status"], "error");
    assert!(!run.stdout.contains("s3cret"));
}

#[test]
fn the_terminal_prompt_allows_or_rejects_with_feedback() {
    // The pseudo-terminal comes from `script` (util-linux).
    strata_testkit::require_external!("script", "apt-get install bsdutils");
    let p = Project::new();
    p.file(".env", "TOKEN=1\n");
    let server = ModelServer::start(vec![
        Turn::tool_call("c1", "read", r#"{"filePath":".env"}"#),
        Turn::text("done"),
    ]);
    let args = ["run", "--model", MODEL, "read .env"];
    let allowed = on_tty(&p, &server, &args, "o\n");
    allowed.expect_code(0);
    assert!(
        allowed
            .stdout
            .contains("Permission needed: `read` for `.env`"),
        "{allowed:#?}"
    );
    assert!(allowed.stdout.contains("→ read .env"), "{allowed:#?}");

    let server = ModelServer::start(vec![
        Turn::tool_call("c1", "read", r#"{"filePath":".env"}"#),
        Turn::text("ok"),
    ]);
    let rejected = on_tty(&p, &server, &args, "r\nuse .env.example\n");
    rejected.expect_code(0);
    let result = server.requests()[1]["messages"][3]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(result.contains("use .env.example"), "{result}");
}
