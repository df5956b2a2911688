//! Headless runs that can be answered: `strata run --format json --answers stdin` prints each
//! ask as a JSON line and reads the replies as JSON lines on a real pipe, the way a CI bridge
//! drives it. An ask arriving after stdin closed is refused at once; `--attach`ed runs answer
//! the same way (`e2e_attach.rs`).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;

use serde_json::{Value, json};
use strata_testkit::model_server::{ModelServer, Turn};

use crate::common::{Project, Run};
use crate::e2e_run_support::*;

/// Bash asks in these projects: the rule says ask and the sandbox does not answer for the user.
pub(crate) const ASK: &str = r#"{"permission": {"bash": "ask"}, "sandbox": {"auto_allow": false}}"#;

/// A running `strata run` with its stdin and stdout lines in the test's hands.
pub(crate) struct Bridge {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    pub seen: Vec<Value>,
}

impl Bridge {
    fn start(p: &Project, server: &ModelServer, message: &str) -> Bridge {
        Bridge::start_with(p, server, &[], message)
    }

    /// `strata run EXTRA… --model MODEL --format json --answers stdin MESSAGE`.
    pub(crate) fn start_with(
        p: &Project,
        server: &ModelServer,
        extra: &[&str],
        message: &str,
    ) -> Bridge {
        let mut args = vec!["run"];
        args.extend_from_slice(extra);
        args.extend([
            "--model",
            MODEL,
            "--format",
            "json",
            "--answers",
            "stdin",
            message,
        ]);
        Bridge::spawn(command(p, server, &args))
    }

    /// Starts `cmd` (a `strata run … --format json --answers stdin`) with piped stdin.
    pub(crate) fn spawn(mut cmd: std::process::Command) -> Bridge {
        cmd.stdin(Stdio::piped());
        let mut child = cmd.spawn().expect("start strata run");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Bridge {
            child,
            stdin,
            lines,
            seen: Vec::new(),
        }
    }

    /// Reads lines until one of type `kind` arrives, and returns it.
    #[track_caller]
    pub(crate) fn until(&mut self, kind: &str) -> Value {
        loop {
            let line = self.lines.recv_timeout(LIMIT).unwrap_or_else(|_| {
                panic!("no `{kind}` line within {LIMIT:?}; saw {:#?}", self.seen)
            });
            let value: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line:?}"));
            self.seen.push(value.clone());
            if value["type"] == kind {
                return value;
            }
        }
    }

    pub(crate) fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is still open");
        writeln!(stdin, "{line}").expect("write a reply line");
        stdin.flush().expect("flush the reply");
    }

    pub(crate) fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits for the exit and returns the code, every stdout line, and stderr.
    pub(crate) fn finish(mut self) -> (Run, Vec<Value>) {
        self.close_stdin();
        let run = crate::common::finish(self.child);
        let rest = self.lines.iter().map(|l| {
            serde_json::from_str::<Value>(&l).unwrap_or_else(|e| panic!("not JSON ({e}): {l:?}"))
        });
        self.seen.extend(rest);
        (run, self.seen)
    }
}

fn bash_then_text(command: &str, text: &str) -> Vec<Turn> {
    let input = json!({"command": command, "description": "make a file"}).to_string();
    vec![Turn::tool_call("c1", "bash", &input), Turn::text(text)]
}

fn project() -> Project {
    let p = Project::new();
    p.file("strata.json", ASK);
    p
}

#[test]
fn an_approved_bash_call_runs_and_its_ask_and_reply_are_lines() {
    let p = project();
    let server = ModelServer::start(bash_then_text("touch made.txt", "made it"));
    let mut bridge = Bridge::start(&p, &server, "make a file");
    let asked = bridge.until("permission.asked");
    let props = &asked["properties"];
    assert_eq!(props["permission"], "bash", "{asked:#}");
    assert_eq!(props["patterns"], json!(["touch made.txt"]), "{asked:#}");
    assert_eq!(props["sessionID"], asked["sessionID"]);
    assert_eq!(props["tool"]["callID"], "c1", "{asked:#}");
    assert!(
        !p.dir.join("made.txt").exists(),
        "nothing runs before the reply"
    );
    let id = props["id"].as_str().unwrap().to_string();
    bridge.send(&json!({"permission": id, "reply": "once"}).to_string());
    let replied = bridge.until("permission.replied");
    assert_eq!(replied["properties"]["requestID"], id.as_str());
    assert_eq!(replied["properties"]["reply"], "once");
    let (run, lines) = bridge.finish();
    run.expect_code(0);
    assert!(p.dir.join("made.txt").exists(), "{run:#?}");
    let kinds = types(&lines);
    assert!(
        kinds.ends_with(&["text".into(), "step_finish".into()]),
        "{kinds:?}"
    );
}

#[test]
fn a_rejected_call_tells_the_model_the_message() {
    let p = project();
    let server = ModelServer::start(bash_then_text("touch made.txt", "understood"));
    let mut bridge = Bridge::start(&p, &server, "make a file");
    let asked = bridge.until("permission.asked");
    let id = asked["properties"]["id"].as_str().unwrap().to_string();
    bridge.send(
        &json!({"permission": id, "reply": "reject", "message": "write it under tmp/ instead"})
            .to_string(),
    );
    assert_eq!(
        bridge.until("permission.replied")["properties"]["reply"],
        "reject"
    );
    let (run, _) = bridge.finish();
    run.expect_code(0);
    assert!(!p.dir.join("made.txt").exists());
    let result = server.requests()[1]["messages"][3]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(result.contains("write it under tmp/ instead"), "{result}");
}

#[test]
fn a_question_is_answered_with_two_choices() {
    let p = project();
    let questions = json!({"questions": [{
        "question": "Which checks?",
        "header": "Checks",
        "options": [
            {"label": "fmt", "description": "formatting"},
            {"label": "clippy", "description": "lints"},
            {"label": "test", "description": "the suite"},
        ],
        "multiple": true,
    }]});
    let server = ModelServer::start(vec![
        Turn::tool_call("q1", "question", &questions.to_string()),
        Turn::text("running them"),
    ]);
    let mut bridge = Bridge::start(&p, &server, "check the code");
    let asked = bridge.until("question.asked");
    let props = &asked["properties"];
    assert_eq!(props["questions"][0]["question"], "Which checks?");
    assert_eq!(props["questions"][0]["options"][1]["label"], "clippy");
    let id = props["id"].as_str().unwrap().to_string();
    bridge.send(&json!({"question": id, "answers": [["fmt", "test"]]}).to_string());
    let replied = bridge.until("question.replied");
    assert_eq!(replied["properties"]["answers"], json!([["fmt", "test"]]));
    let (run, _) = bridge.finish();
    run.expect_code(0);
    let requests = server.requests();
    let offered = requests[0]["tools"].to_string();
    assert!(offered.contains("\"question\""), "question is offered");
    let result = requests[1]["messages"][3]["content"].as_str().unwrap();
    assert!(result.contains("fmt, test"), "{result}");
}

#[test]
fn garbage_on_stdin_gets_an_error_line_and_the_ask_keeps_waiting() {
    let p = project();
    let server = ModelServer::start(bash_then_text("touch made.txt", "made it"));
    let mut bridge = Bridge::start(&p, &server, "make a file");
    let asked = bridge.until("permission.asked");
    let id = asked["properties"]["id"].as_str().unwrap().to_string();
    for (garbage, says) in [
        ("yes please", "not JSON"),
        (r#"{"permission": "per_nope", "reply": "once"}"#, "per_nope"),
        (
            &*json!({"permission": id, "reply": "maybe"}).to_string(),
            "\"maybe\"",
        ),
    ] {
        bridge.send(garbage);
        let error = bridge.until("error");
        assert_eq!(error["error"]["name"], "InvalidReply");
        let message = error["error"]["data"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{garbage}: {message}");
        assert_eq!(error["error"]["data"]["line"], garbage);
    }
    assert!(!p.dir.join("made.txt").exists(), "still waiting");
    bridge.send(&json!({"permission": id, "reply": "once"}).to_string());
    let (run, _) = bridge.finish();
    run.expect_code(0);
    assert!(p.dir.join("made.txt").exists(), "{run:#?}");
}

#[test]
fn closing_stdin_refuses_the_waiting_ask_with_a_line() {
    let p = project();
    let server = ModelServer::start(bash_then_text("touch made.txt", "made it"));
    let mut bridge = Bridge::start(&p, &server, "make a file");
    let asked = bridge.until("permission.asked");
    let id = asked["properties"]["id"].as_str().unwrap().to_string();
    bridge.close_stdin();
    let refused = bridge.until("permission.refused");
    closed_stdin_refused(&refused, &json!(id));
    let (run, _) = bridge.finish();
    run.expect_code(1);
    assert!(!p.dir.join("made.txt").exists());
}

#[test]
fn an_ask_after_stdin_closed_is_refused_at_once_with_a_line() {
    let p = Project::new();
    // The loop goes on after a refusal, so a second ask comes after stdin closed.
    p.file(
        "strata.json",
        r#"{"permission": {"bash": "ask"}, "sandbox": {"auto_allow": false},
            "experimental": {"continue_loop_on_deny": true}}"#,
    );
    let question = json!({"questions": [{"question": "Go on?", "header": "Go",
        "options": [{"label": "yes", "description": "go on"}]}]});
    let mut script = vec![Turn::tool_call("q1", "question", &question.to_string())];
    script.extend(bash_then_text("touch made.txt", "gave up"));
    let server = ModelServer::start(script);
    let mut bridge = Bridge::start(&p, &server, "make a file");
    let asked = bridge.until("question.asked");
    bridge.close_stdin();
    // The waiting question is refused: the run has seen the end of stdin.
    let refused = bridge.until("question.refused");
    assert_eq!(
        refused["properties"]["requestID"],
        asked["properties"]["id"]
    );
    let asked = bridge.until("permission.asked");
    let seen = bridge.seen.len();
    let refused = bridge.until("permission.refused");
    assert_eq!(
        bridge.seen.len(),
        seen + 1,
        "the very next line: {:#?}",
        bridge.seen
    );
    closed_stdin_refused(&refused, &asked["properties"]["id"]);
    let (run, _) = bridge.finish();
    run.expect_code(0);
    assert!(!p.dir.join("made.txt").exists());
    assert_eq!(server.remaining(), 0, "the loop went on to its last turn");
}

#[test]
fn without_answers_a_json_run_refuses_with_the_rule_to_add() {
    let p = project();
    let server = ModelServer::start(bash_then_text("touch made.txt", "made it"));
    let run = run(&p, &server, &["--format", "json", "make a file"]);
    run.expect_code(1);
    let lines = json_lines(&run);
    let kinds = types(&lines);
    let asked = kinds.iter().position(|k| k == "permission.asked");
    let refused = kinds.iter().position(|k| k == "permission.refused");
    assert!(
        matches!((asked, refused), (Some(a), Some(r)) if a < r),
        "{kinds:?}"
    );
    let refused = &lines[refused.unwrap()]["properties"];
    assert!(
        refused["reason"]
            .as_str()
            .unwrap()
            .contains("--answers stdin")
    );
    assert_eq!(
        refused["rule"]["permission"]["bash"]["touch made.txt"],
        "allow"
    );
    assert!(!p.dir.join("made.txt").exists());
}

#[test]
fn answers_need_the_json_format_and_exclude_yes() {
    let p = project();
    let server = ModelServer::start(Vec::new());
    let text = run(&p, &server, &["--answers", "stdin", "hi"]);
    text.expect_code(2);
    assert!(text.stderr.contains("--format json"), "{text:#?}");
    let both = run(
        &p,
        &server,
        &["--format", "json", "--answers", "stdin", "--yes", "hi"],
    );
    both.expect_code(2);
    assert!(server.requests().is_empty(), "no model call was made");
}

/// A `permission.refused` line for ask `id` that says stdin was closed and names the rule that
/// would allow the `touch made.txt` call.
pub(crate) fn closed_stdin_refused(refused: &Value, id: &Value) {
    let props = &refused["properties"];
    assert_eq!(&props["requestID"], id, "{refused:#}");
    let reason = props["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("stdin was closed"), "{refused:#}");
    assert_eq!(
        props["rule"],
        json!({"permission": {"bash": {"touch made.txt": "allow"}}})
    );
}
