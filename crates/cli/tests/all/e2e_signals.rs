//! SIGTERM and SIGHUP end a run like Ctrl-C (the tool's process group is stopped, the events
//! are committed), and a run killed with SIGKILL is cleaned up the next time its session is
//! opened: no part stays `running` and the processes its tools started are ended.

use std::io::Read;

use strata_services::process::live_members;
use strata_testkit::model_server::{ModelServer, Turn};
use strata_testkit::poll_within_blocking;

use crate::common::Project;
use crate::e2e_run_support::*;

/// A bash call that writes its shell's pid (its process group) and then sleeps for long.
fn sleeping_call() -> Turn {
    Turn::tool_call(
        "c1",
        "bash",
        r#"{"command":"echo $$ > group.pid; sleep 1000","description":"Sleep for a long time"}"#,
    )
}

/// Pids of the live (not zombie) processes in process group `pgid`.
fn members(pgid: i32) -> Vec<i32> {
    live_members(pgid).expect("/proc is readable")
}

/// Waits until the bash call's group runs its `sleep`, and returns the group id; stops the
/// run and shows it when that never happens.
fn wait_for_group(p: &Project, child: &mut std::process::Child) -> i32 {
    let file = p.dir.join("group.pid");
    let found = poll_within_blocking(LIMIT, || {
        let pgid: i32 = std::fs::read_to_string(&file).ok()?.trim().parse().ok()?;
        (!members(pgid).is_empty()).then_some(pgid)
    });
    found.unwrap_or_else(|| {
        let _ = child.kill();
        let (mut out, mut err) = (String::new(), String::new());
        if let Some(mut o) = child.stdout.take() {
            let _ = o.read_to_string(&mut out);
        }
        if let Some(mut e) = child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        panic!("the bash call never started its sleep:\n{out}\n{err}")
    })
}

/// `strata run` with a bash call that sleeps; returns once the call's group runs.
fn start_sleeping_run(p: &Project, server: &ModelServer) -> (std::process::Child, i32) {
    let mut cmd = command(
        p,
        server,
        &["run", "--model", MODEL, "--format", "json", "sleep"],
    );
    let mut child = cmd.spawn().expect("start strata");
    let pgid = wait_for_group(p, &mut child);
    (child, pgid)
}

fn signal(pid: u32, name: &str) {
    let status = std::process::Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{name} {pid} failed");
}

fn ended_by(name: &str, code: i32) {
    strata_testkit::require_external!("kill", "apt-get install procps");
    let p = Project::new();
    let server = ModelServer::start(vec![sleeping_call(), Turn::text("unused")]);
    let (child, pgid) = start_sleeping_run(&p, &server);
    signal(child.id(), name);
    let run = finish(child);
    run.expect_code(code);
    assert!(
        members(pgid).is_empty(),
        "SIGTERM/SIGHUP left the bash command's processes running: {:?}",
        members(pgid)
    );
    let events = json_lines(&run);
    let last = events.last().unwrap();
    assert_eq!(last["type"], "error", "{run:#?}");
    assert_eq!(last["error"]["name"], "MessageAbortedError");
    let session = last["sessionID"].as_str().unwrap();
    // bash reports a cancelled command as finished, saying it was aborted.
    let state = bash_state(&p, &server, session);
    assert_eq!(state["status"], "completed", "{state:#}");
    assert!(
        state["output"].as_str().unwrap().contains("aborted"),
        "{state:#}"
    );
}

#[test]
fn sigterm_stops_the_tool_group_commits_and_exits_143() {
    ended_by("TERM", 143);
}

#[test]
fn sighup_stops_the_tool_group_commits_and_exits_129() {
    ended_by("HUP", 129);
}

fn only_session(p: &Project, server: &ModelServer) -> String {
    let list = strata(p, server, &["session", "list", "--format", "json"]);
    list.expect_code(0);
    list.json()[0]["id"].as_str().unwrap().to_string()
}

/// The state of the session's one tool part.
fn bash_state(p: &Project, server: &ModelServer, session: &str) -> serde_json::Value {
    let export = strata(p, server, &["session", "export", session]);
    export.expect_code(0);
    let doc = export.json();
    let tools: Vec<_> = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap().iter())
        .filter(|p| p["type"] == "tool")
        .collect();
    assert_eq!(tools.len(), 1, "{doc:#}");
    tools[0]["state"].clone()
}

#[test]
fn a_sigkilled_run_is_closed_and_its_processes_ended_when_the_session_is_opened_again() {
    strata_testkit::require_external!("kill", "apt-get install procps");
    let p = Project::new();
    let server = ModelServer::start(vec![sleeping_call(), Turn::text("Resumed fine.")]);
    let (child, pgid) = start_sleeping_run(&p, &server);
    let session = only_session(&p, &server);

    // While the run lives, opening its session in another process touches nothing.
    assert_eq!(bash_state(&p, &server, &session)["status"], "running");
    let show = strata(&p, &server, &["session", "show", &session]);
    assert!(show.stdout.contains("bash (running)"), "{show:#?}");
    assert!(
        !members(pgid).is_empty(),
        "the live run's sleep must survive"
    );

    signal(child.id(), "KILL");
    let _ = finish(child);
    assert!(
        !members(pgid).is_empty(),
        "the sleep should outlive a SIGKILLed strata (else this test proves nothing)"
    );

    let show = strata(&p, &server, &["session", "show", &session]);
    show.expect_code(0);
    assert!(!show.stdout.contains("(running)"), "{show:#?}");
    let state = bash_state(&p, &server, &session);
    assert_eq!(state["status"], "error", "{state:#}");
    assert!(
        state["error"].as_str().unwrap().contains("interrupted"),
        "{state:#}"
    );
    assert_eq!(state["metadata"]["interrupted"], true);
    let gone = poll_within_blocking(LIMIT, || members(pgid).is_empty().then_some(()));
    assert!(
        gone.is_some(),
        "the killed run's sleep still runs: {:?}",
        members(pgid)
    );

    // The session resumes: the interrupted call reaches the model as an error result.
    let resumed = run(&p, &server, &["--session", &session, "go on"]);
    resumed.expect_code(0);
    let results = server.sent().last().unwrap().results();
    assert!(
        results
            .iter()
            .any(|(id, out)| id == "c1" && out.contains("interrupted")),
        "{results:?}"
    );
}
