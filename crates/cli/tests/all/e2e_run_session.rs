//! `strata run --continue / --session`, Ctrl-C, and `strata session list | show | export`,
//! end to end against the scripted model server.

use strata_testkit::poll_within_blocking;

use crate::common::Project;
use crate::e2e_run_support::*;
use strata_testkit::model_server::{ModelServer, Turn, call};

#[test]
fn continue_and_session_resume_and_session_commands_show_it() {
    let p = Project::new();
    p.file("a.txt", "alpha\n");
    let server = ModelServer::start(vec![
        Turn::tool_call("c1", "read", r#"{"filePath":"a.txt"}"#),
        Turn::text("It says alpha."),
        Turn::text("You asked about a.txt."),
        Turn::text("Still here."),
    ]);
    run(&p, &server, &["what is in a.txt?"]).expect_code(0);
    let second = run(
        &p,
        &server,
        &["--continue", "--format", "json", "what did I ask?"],
    );
    second.expect_code(0);
    let session = json_lines(&second)[0]["sessionID"]
        .as_str()
        .unwrap()
        .to_string();
    let roles: Vec<String> = server.requests()[2]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "assistant", "user"]
    );
    run(&p, &server, &["--session", &session, "again"]).expect_code(0);
    assert_eq!(
        server.requests()[3]["messages"].as_array().unwrap().len(),
        8
    );

    let list = strata(&p, &server, &["session", "list", "--format", "json"]);
    list.expect_code(0);
    let sessions = list.json();
    assert_eq!(sessions.as_array().unwrap().len(), 1);
    assert_eq!(sessions[0]["id"], session.as_str());
    assert_eq!(sessions[0]["title"], "what is in a.txt?");
    assert_eq!(sessions[0]["directory"], p.dir_str());
    let plain = strata(&p, &server, &["session", "list"]);
    assert!(plain.stdout.contains(&session) && plain.stdout.contains("what is in a.txt?"));

    let export = strata(&p, &server, &["session", "export", &session]);
    export.expect_code(0);
    let doc = export.json();
    assert_eq!(doc["info"]["id"], session.as_str());
    let messages = doc["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 7, "3 user messages and 4 steps");
    assert_eq!(messages[0]["info"]["role"], "user");
    let tool = &messages[1]["parts"][1];
    assert_eq!(tool["type"], "tool");
    assert_eq!(tool["state"]["status"], "completed");

    let show = strata(&p, &server, &["session", "show", &session]);
    show.expect_code(0);
    assert!(show.stdout.contains("[user]") && show.stdout.contains("It says alpha."));
    assert!(show.stdout.contains("read (completed) a.txt"), "{show:#?}");

    let missing = strata(&p, &server, &["session", "export", "ses_missing"]);
    missing.expect_code(1);
    assert!(missing.stderr.contains("ses_missing"));
    let nothing = Project::new();
    let cont = run(&nothing, &server, &["--continue", "hi"]);
    cont.expect_code(1);
    assert!(cont.stderr.contains("no earlier session"), "{cont:#?}");
}

#[test]
fn ctrl_c_cancels_the_run_and_exits_130() {
    // Ctrl-C is sent with `kill -INT`.
    strata_testkit::require_external!("kill", "apt-get install procps");
    let p = Project::new();
    let server = ModelServer::start(vec![
        Turn::tool_call("c1", "glob", r#"{"pattern":"*"}"#),
        Turn::Hang,
    ]);
    let mut cmd = command(
        &p,
        &server,
        &["run", "--model", MODEL, "--format", "json", "list files"],
    );
    let child = cmd.spawn().expect("start strata");
    let second = poll_within_blocking(LIMIT, || (server.requests().len() >= 2).then_some(()));
    assert!(second.is_some(), "the second model request never came");
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    let run = finish(child);
    run.expect_code(130);
    let events = json_lines(&run);
    let last = events.last().unwrap();
    assert_eq!(last["type"], "error");
    assert_eq!(last["error"]["name"], "MessageAbortedError");
    assert!(events.iter().any(|e| e["type"] == "tool_use"));
    // The interrupted step is in the store, marked aborted.
    let session = last["sessionID"].as_str().unwrap();
    let export = strata(&p, &server, &["session", "export", session]).json();
    let steps = export["messages"].as_array().unwrap();
    assert_eq!(
        steps.last().unwrap()["info"]["error"]["name"],
        "MessageAbortedError"
    );
}

#[test]
fn a_five_step_session_runs_end_to_end() {
    let p = Project::new();
    p.file("src/lib.rs", "pub fn one() -> u32 { 1 }\n");
    p.file("README.md", "# demo\n");
    let server = ModelServer::start(vec![
        Turn::tool_call("c1", "glob", r#"{"pattern":"**/*.rs"}"#),
        Turn::tool_call("c2", "read", r#"{"filePath":"src/lib.rs"}"#),
        Turn::ToolCalls(vec![
            call("c3", "grep", r#"{"pattern":"fn one"}"#),
            call("c4", "read", r#"{"filePath":"README.md"}"#),
        ]),
        Turn::tool_call("c5", "grep", r#"{"pattern":"demo"}"#),
        Turn::text("There is one function, `one`, in src/lib.rs."),
    ]);
    let run = run(
        &p,
        &server,
        &["--format", "json", "what functions are there?"],
    );
    run.expect_code(0);
    let events = json_lines(&run);
    let starts = events.iter().filter(|e| e["type"] == "step_start").count();
    let tools = events.iter().filter(|e| e["type"] == "tool_use").count();
    assert_eq!((starts, tools), (5, 5));
    assert!(
        events
            .iter()
            .filter(|e| e["type"] == "tool_use")
            .all(|e| e["part"]["state"]["status"] == "completed"),
        "{events:#?}"
    );
}
