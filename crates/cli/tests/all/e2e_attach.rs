//! `strata run --attach` against a `strata serve` on 127.0.0.1 with the scripted model: a call
//! that needs a permission is refused without `--yes` (and the run fails) and allowed with it,
//! and the server's password is read from the environment. With `--format json --answers
//! stdin`, over real pipes: the asks are JSON lines and the replies on stdin reach the server
//! (an approved call, a question answered, garbage, a rejection with a message, stdin closed,
//! a subagent's ask).

use strata_testkit::model_server::{ModelServer, Turn};

use serde_json::json;

use super::common::{Project, Run, finish};
use super::e2e_headless::{ASK, Bridge, closed_stdin_refused};
use super::e2e_run_support::{MODEL, command, delegating, json_lines, types};
use super::e2e_serve_support::{Served, serve};

fn echo_turns() -> ModelServer {
    ModelServer::start(vec![
        Turn::tool_call(
            "call_1",
            "bash",
            r#"{"command":"echo approved-run","description":"echo"}"#,
        ),
        Turn::text("ok"),
    ])
}

/// `strata run --attach URL --model MODEL ARGS… "echo it"`, with extra environment variables.
async fn attach(p: &Project, url: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut all = vec!["run", "--attach", url, "--model", MODEL];
    all.extend_from_slice(args);
    all.push("echo it");
    let unused = ModelServer::start(vec![]);
    let mut cmd = command(p, &unused, &all);
    cmd.envs(env.iter().copied());
    tokio::task::spawn_blocking(move || finish(cmd.spawn().unwrap()))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_permission_is_refused_without_yes_and_the_run_fails() {
    let p = Project::new();
    p.file("strata.json", ASK);
    let model = echo_turns();
    let s = serve(&p, &model, &[]);
    let run = attach(&p, &s.url, &[], &[]).await;
    run.expect_code(1);
    assert!(
        run.stderr.contains(
            "strata: bash on echo approved-run needs permission; refused (pass --yes to allow)"
        ),
        "{run:?}"
    );
    assert!(
        run.stdout.starts_with("✗ bash echo approved-run: ") && run.stdout.lines().count() == 1,
        "{run:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn with_yes_and_a_password_the_call_runs() {
    let p = Project::new();
    p.file("strata.json", ASK);
    let model = echo_turns();
    let password = [("STRATA_SERVER_PASSWORD", "attach-secret")];
    let s = serve(&p, &model, &password);
    let run = attach(&p, &s.url, &["--yes", "--format", "json"], &password).await;
    run.expect_code(0);
    assert_eq!(run.stderr, "");
    let lines = json_lines(&run);
    // The ask and its reply are lines, as in a local JSON run.
    assert_eq!(
        types(&lines),
        [
            "step_start",
            "permission.asked",
            "permission.replied",
            "tool_use",
            "step_finish",
            "step_start",
            "text",
            "step_finish"
        ]
    );
    assert_eq!(lines[2]["properties"]["reply"], "once");
    let output = lines[3]["part"]["state"]["output"].as_str().unwrap();
    assert!(output.contains("approved-run"), "{output}");
    // Without the password the server refuses, and the run says so.
    let refused = attach(&p, &s.url, &["--yes"], &[]).await;
    refused.expect_code(1);
    assert!(refused.stdout.is_empty(), "{refused:?}");
    assert!(refused.stderr.contains("401 Unauthorized"), "{refused:?}");
    assert!(
        refused.stderr.ends_with("(set STRATA_SERVER_PASSWORD)\n"),
        "{refused:?}"
    );
}

/// `strata run --attach URL --format json --answers stdin MESSAGE`, its pipes in the test's hands.
fn bridge(p: &Project, url: &str, message: &str) -> Bridge {
    // The server calls the model; this run only needs a URL for its environment.
    let unused = ModelServer::start(vec![]);
    Bridge::start_with(p, &unused, &["--attach", url], message)
}

/// A served project whose bash calls ask, a model that wants to `touch made.txt`, and an
/// attached run with answers on stdin, waiting at that ask (returned as its line).
fn asked_to_make_a_file(p: &Project) -> (ModelServer, Served, Bridge, serde_json::Value) {
    p.file("strata.json", ASK);
    let model = ModelServer::start(vec![bash("c1", "touch made.txt"), Turn::text("made it")]);
    let s = serve(p, &model, &[]);
    let mut b = bridge(p, &s.url, "make a file");
    let asked = b.until("permission.asked");
    (model, s, b, asked)
}

fn bash(id: &str, command: &str) -> Turn {
    let input = json!({"command": command, "description": "make a file"}).to_string();
    Turn::tool_call(id, "bash", &input)
}

#[test]
fn answers_on_stdin_reach_the_server_and_the_call_runs() {
    let p = Project::new();
    let (_model, _server, mut b, asked) = asked_to_make_a_file(&p);
    let props = &asked["properties"];
    assert_eq!(props["permission"], "bash", "{asked:#}");
    assert_eq!(props["patterns"], json!(["touch made.txt"]));
    assert_eq!(asked["sessionID"], props["sessionID"]);
    assert!(
        !p.dir.join("made.txt").exists(),
        "nothing runs before the reply"
    );
    let id = props["id"].as_str().unwrap().to_string();
    b.send(&json!({"permission": id, "reply": "once"}).to_string());
    let replied = b.until("permission.replied");
    assert_eq!(replied["properties"]["requestID"], id.as_str());
    assert_eq!(replied["properties"]["reply"], "once");
    let (run, lines) = b.finish();
    run.expect_code(0);
    assert_eq!(run.stderr, "");
    assert!(p.dir.join("made.txt").exists(), "{run:#?}");
    assert!(types(&lines).ends_with(&["text".into(), "step_finish".into()]));
}

#[test]
fn a_question_garbage_and_a_rejection_with_a_message_go_through_the_server() {
    let p = Project::new();
    p.file("strata.json", ASK);
    let questions = json!({"questions": [{"question": "Which checks?", "header": "Checks",
        "options": [{"label": "fmt", "description": "formatting"},
                    {"label": "test", "description": "the suite"}],
        "multiple": true}]});
    let model = ModelServer::start(vec![
        Turn::tool_call("q1", "question", &questions.to_string()),
        bash("c1", "touch made.txt"),
        Turn::text("understood"),
    ]);
    let s = serve(&p, &model, &[]);
    let mut b = bridge(&p, &s.url, "check the code");
    let asked = b.until("question.asked");
    let id = asked["properties"]["id"].as_str().unwrap().to_string();
    b.send("yes please");
    let error = b.until("error");
    assert_eq!(error["error"]["name"], "InvalidReply");
    assert_eq!(error["error"]["data"]["line"], "yes please");
    b.send(&json!({"question": id, "answers": [["fmt", "test"]]}).to_string());
    let replied = b.until("question.replied");
    assert_eq!(replied["properties"]["answers"], json!([["fmt", "test"]]));
    let asked = b.until("permission.asked");
    let id = asked["properties"]["id"].as_str().unwrap().to_string();
    let reject = json!({"permission": id, "reply": "reject", "message": "use tmp/ instead"});
    b.send(&reject.to_string());
    assert_eq!(
        b.until("permission.replied")["properties"]["reply"],
        "reject"
    );
    let (run, _) = b.finish();
    run.expect_code(0);
    assert!(!p.dir.join("made.txt").exists());
    let sent = model.requests();
    assert!(
        sent[0]["tools"].to_string().contains("\"question\""),
        "question is offered"
    );
    let results = sent[2]["messages"].to_string();
    assert!(results.contains("fmt, test"), "{results}");
    assert!(results.contains("use tmp/ instead"), "{results}");
}

#[test]
fn closing_stdin_refuses_the_waiting_ask_and_the_attached_run_fails() {
    let p = Project::new();
    let (_model, _server, mut b, asked) = asked_to_make_a_file(&p);
    b.close_stdin();
    let refused = b.until("permission.refused");
    closed_stdin_refused(&refused, &asked["properties"]["id"]);
    let (run, _) = b.finish();
    run.expect_code(1);
    assert!(!p.dir.join("made.txt").exists());
}

#[test]
fn answers_need_the_json_format_when_attached_too() {
    let p = Project::new();
    let unused = ModelServer::start(vec![]);
    let args = [
        "run",
        "--attach",
        "http://127.0.0.1:9",
        "--answers",
        "stdin",
        "hi",
    ];
    let run = finish(command(&p, &unused, &args).spawn().unwrap());
    run.expect_code(2);
    assert!(
        run.stderr.contains("--answers stdin needs --format json"),
        "{run:#?}"
    );
}

#[test]
fn a_subagent_s_ask_reaches_the_attached_run_and_its_reply_lets_the_child_finish() {
    let p = Project::new();
    // Only the child asks: the parent's task call needs no permission.
    let model = delegating(&p);
    let s = serve(&p, &model, &[]);
    let mut b = bridge(&p, &s.url, "delegate this");
    let asked = b.until("permission.asked");
    let props = &asked["properties"];
    assert_eq!(props["permission"], "glob", "{asked:#}");
    let child = props["sessionID"].as_str().unwrap().to_string();
    let id = props["id"].as_str().unwrap().to_string();
    b.send(&json!({"permission": id, "reply": "once"}).to_string());
    let (run, lines) = b.finish();
    run.expect_code(0);
    assert_eq!(run.stderr, "");
    let glob = lines
        .iter()
        .find(|e| e["type"] == "tool_use" && e["part"]["tool"] == "glob")
        .expect("the child's glob is shown");
    assert_eq!(glob["sessionID"], child.as_str());
    assert_eq!(glob["part"]["state"]["status"], "completed");
    let parent = lines[0]["sessionID"].as_str().unwrap();
    assert_ne!(parent, child);
    let task_use = lines
        .iter()
        .find(|e| e["type"] == "tool_use" && e["part"]["tool"] == "task")
        .expect("the task call");
    assert_eq!(task_use["sessionID"], parent);
    let output = task_use["part"]["state"]["output"].as_str().unwrap();
    assert!(output.contains("child found notes.txt"), "{output}");
    let last = lines.last().unwrap();
    assert_eq!(
        (last["type"].as_str(), last["sessionID"].as_str()),
        (Some("step_finish"), Some(parent)),
        "the run ends with the parent's turn, not the child's"
    );
}

#[test]
fn a_subagent_s_refused_ask_ends_the_child_but_not_the_attached_run() {
    let p = Project::new();
    let model = delegating(&p);
    let s = serve(&p, &model, &[]);
    let mut b = bridge(&p, &s.url, "delegate this");
    let asked = b.until("permission.asked");
    let id = asked["properties"]["id"].as_str().unwrap().to_string();
    b.send(&json!({"permission": id, "reply": "reject"}).to_string());
    let (run, lines) = b.finish();
    // As in a local run: the refusal stops the child, its parent goes on and ends the turn.
    run.expect_code(0);
    let texts: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "text")
        .filter_map(|l| l["part"]["text"].as_str())
        .collect();
    assert_eq!(texts.last(), Some(&"parent done"), "{lines:#?}");
}
