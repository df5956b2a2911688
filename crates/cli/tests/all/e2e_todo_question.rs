//! The session tools end to end: `todowrite` and `question` through the built `strata run`
//! against the scripted model server, `strata session show` printing the list, `strata tool
//! todowrite` on a throwaway list, and questions answered on a pseudo-terminal.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail by panicking

use crate::common::Project;
use crate::e2e_run_support::*;
use serde_json::{Value, json};
use strata_testkit::model_server::{ModelServer, Turn};

/// The tool names the model was offered in `request`.
fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The content of the `role: tool` message answering `call_id` in `request`.
fn tool_result(request: &Value, call_id: &str) -> String {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id)
        .and_then(|m| m["content"].as_str())
        .unwrap_or_else(|| panic!("no result for {call_id} in {request}"))
        .to_string()
}

fn plan() -> Value {
    json!({"todos": [
        {"content": "Read the failing test", "status": "completed", "priority": "high"},
        {"content": "Fix the parser", "status": "in_progress", "priority": "high"},
        {"content": "Run `cargo test`", "status": "pending", "priority": "medium"},
    ]})
}

#[test]
fn todowrite_in_a_run_is_stored_and_session_show_prints_the_list() {
    let p = Project::new();
    let server = ModelServer::start(vec![
        Turn::tool_call("c1", "todowrite", &plan().to_string()),
        Turn::text("Planned."),
    ]);
    let run = run(&p, &server, &["--format", "json", "fix the parser"]);
    run.expect_code(0);
    let events = json_lines(&run);
    let tool = events.iter().find(|e| e["type"] == "tool_use").unwrap();
    let state = &tool["part"]["state"];
    assert_eq!(tool["part"]["tool"], "todowrite");
    assert_eq!(state["status"], "completed", "{state}");
    assert_eq!(state["title"], "2 todos");
    assert_eq!(
        serde_json::from_str::<Value>(state["output"].as_str().unwrap()).unwrap(),
        plan()["todos"]
    );
    assert_eq!(state["metadata"]["todos"], plan()["todos"]);
    assert!(state["metadata"].get("throwaway").is_none(), "{state}");
    assert_eq!(
        serde_json::from_str::<Value>(&tool_result(&server.requests()[1], "c1")).unwrap(),
        plan()["todos"]
    );

    let session = events[0]["sessionID"].as_str().unwrap();
    let show = strata(&p, &server, &["session", "show", session]);
    show.expect_code(0);
    assert!(
        show.stdout.contains(
            "Todo list:\n  [x] Read the failing test (high)\n  [>] Fix the parser (high)\n  \
             [ ] Run `cargo test` (medium)\n"
        ),
        "{show:#?}"
    );
    assert!(
        show.stdout.contains("todowrite (completed) 2 todos"),
        "{show:#?}"
    );
}

#[test]
fn strata_tool_todowrite_works_on_a_throwaway_list_and_says_so() {
    let p = Project::new();
    let run = p.strata(&["tool", "todowrite", &plan().to_string(), "--format", "json"]);
    run.expect_code(0);
    let result = run.json();
    assert_eq!(result["title"], "2 todos");
    assert_eq!(result["metadata"]["throwaway"], true);
    assert_eq!(result["metadata"]["todos"], plan()["todos"]);
    let plain = p.strata(&["tool", "todowrite", &plan().to_string()]);
    plain.expect_code(0);
    assert!(
        plain
            .stdout
            .starts_with("[\n  {\n    \"content\": \"Read the failing test\""),
        "{plain:#?}"
    );
    let bad = p.strata(&["tool", "todowrite", r#"{"todos": [{"content": "x"}]}"#]);
    bad.expect_code(1);
    assert!(bad.stderr.contains("todos[0]"), "{bad:#?}");
}

fn pizza() -> Value {
    json!({"questions": [
        {
            "question": "Which toppings?",
            "header": "Toppings",
            "options": [
                {"label": "Cheese", "description": "Classic"},
                {"label": "Olives", "description": "Salty"},
                {"label": "Basil", "description": "Fresh"},
            ],
            "multiple": true,
        },
        {
            "question": "Which crust?",
            "header": "Crust",
            "options": [
                {"label": "Thin", "description": "Crisp"},
                {"label": "Thick", "description": "Soft"},
            ],
        },
    ]})
}

fn ask_pizza() -> Vec<Turn> {
    vec![
        Turn::tool_call("q1", "question", &pizza().to_string()),
        Turn::text("Pizza ordered."),
    ]
}

#[test]
fn a_terminal_answers_questions_with_numbers_several_choices_and_free_text() {
    // The pseudo-terminal comes from `script` (Debian package bsdutils).
    strata_testkit::require_external!("script", "apt-get install bsdutils");
    let p = Project::new();
    let server = ModelServer::start(ask_pizza());
    let args = ["run", "--model", MODEL, "order a pizza"];
    let answered = on_tty(&p, &server, &args, "1, 3\nA stuffed one\n");
    answered.expect_code(0);
    // A terminal ends lines with CR LF.
    let shown = &answered.stdout.replace("\r\n", "\n");
    assert!(
        shown.contains("Question 1/2 · Toppings\nWhich toppings?\n  1. Cheese — Classic"),
        "{answered:#?}"
    );
    assert!(shown.contains("Question 2/2 · Crust"), "{answered:#?}");
    assert!(shown.contains("Pizza ordered."), "{answered:#?}");
    let requests = server.requests();
    assert!(offered(&requests[0]).contains(&"question".to_string()));
    let result = tool_result(&requests[1], "q1");
    assert!(
        result.contains(r#""Which toppings?"="Cheese, Basil", "Which crust?"="A stuffed one""#),
        "{result}"
    );

    let server = ModelServer::start(ask_pizza());
    let single = on_tty(&p, &server, &args, "2\n2\n");
    single.expect_code(0);
    let result = tool_result(&server.requests()[1], "q1");
    assert!(
        result.contains(r#""Which toppings?"="Olives", "Which crust?"="Thick""#),
        "{result}"
    );
}

#[test]
fn dismissing_a_question_on_a_terminal_stops_the_run() {
    // The pseudo-terminal comes from `script` (Debian package bsdutils).
    strata_testkit::require_external!("script", "apt-get install bsdutils");
    let p = Project::new();
    let server = ModelServer::start(ask_pizza());
    let args = ["run", "--model", MODEL, "order a pizza"];
    let dismissed = on_tty(&p, &server, &args, "\n");
    dismissed.expect_code(1);
    assert!(dismissed.stdout.contains("✗ question"), "{dismissed:#?}");
    assert!(
        dismissed.stdout.contains("the run stopped"),
        "{dismissed:#?}"
    );
    assert_eq!(server.requests().len(), 1, "no step after the dismissal");
}

#[test]
fn without_a_terminal_or_with_json_output_question_is_not_offered() {
    let p = Project::new();
    let server = ModelServer::start(vec![Turn::text("hi"), Turn::text("hi"), Turn::text("hi")]);
    let no_question = |server: &ModelServer| {
        for request in server.requests() {
            let tools = offered(&request);
            assert!(!tools.contains(&"question".to_string()), "{tools:?}");
            assert!(tools.contains(&"todowrite".to_string()), "{tools:?}");
        }
    };
    run(&p, &server, &["hello"]).expect_code(0);
    run(&p, &server, &["--format", "json", "--yes", "hello"]).expect_code(0);
    no_question(&server);
    // `strata tools` lists the surface of a run without a terminal unless asked otherwise.
    let listed = p.strata(&["tools"]);
    listed.expect_code(0);
    assert!(!listed.stdout.contains("question"), "{listed:#?}");
    let interactive = p.strata(&["tools", "--interactive"]);
    interactive.expect_code(0);
    assert!(
        interactive.stdout.starts_with("question "),
        "{interactive:#?}"
    );
    // JSON output on a terminal: the pseudo-terminal comes from `script` (Debian package
    // bsdutils); the checks above need none.
    strata_testkit::require_external!("script", "apt-get install bsdutils");
    let json_on_tty = on_tty(
        &p,
        &server,
        &["run", "--model", MODEL, "--format", "json", "hello"],
        "",
    );
    json_on_tty.expect_code(0);
    no_question(&server);
}

#[test]
fn strata_tool_question_asks_on_a_terminal() {
    // The pseudo-terminal comes from `script` (Debian package bsdutils).
    strata_testkit::require_external!("script", "apt-get install bsdutils");
    let p = Project::new();
    let args = pizza().to_string();
    let answered = p.strata_on_tty(&["tool", "question", &args], "3\n1\n");
    answered.expect_code(0);
    assert!(
        answered
            .stdout
            .contains(r#""Which toppings?"="Basil", "Which crust?"="Thin""#),
        "{answered:#?}"
    );
}

#[test]
fn strata_tool_question_is_dismissed_without_a_terminal() {
    let p = Project::new();
    let args = pizza().to_string();
    let alone = p.strata(&["tool", "question", &args]);
    alone.expect_code(1);
    assert!(alone.stderr.contains("no terminal"), "{alone:#?}");
    assert!(alone.stderr.contains("dismissed"), "{alone:#?}");
}
