//! Background shells and the life of `strata run`: a shell started with `run_in_background`
//! ends with the run, whether the model finishes or Ctrl-C, SIGTERM or SIGHUP stops it; after
//! a SIGKILL of Strata, opening the session again ends it (crash recovery).

use strata_services::process::live_members;
use strata_testkit::model_server::{ModelServer, Turn};
use strata_testkit::poll_within_blocking;

use crate::common::Project;
use crate::e2e_run_support::*;

/// A background shell that writes its pid (its process group) and sleeps for long.
fn background_call() -> Turn {
    Turn::tool_call(
        "c1",
        "bash",
        r#"{"command":"echo $$ > bg.pid; sleep 1000","run_in_background":true}"#,
    )
}

fn members(pgid: i32) -> Vec<i32> {
    live_members(pgid).expect("/proc is readable")
}

/// Starts `strata run` with the background call, then `next`; returns once the shell's
/// group runs and the model was asked again (so the run is past the bash call).
fn start(p: &Project, server: &ModelServer) -> (std::process::Child, i32) {
    let mut cmd = command(
        p,
        server,
        &["run", "--model", MODEL, "--format", "json", "serve"],
    );
    let mut child = cmd.spawn().expect("start strata");
    let file = p.dir.join("bg.pid");
    let found = poll_within_blocking(LIMIT, || {
        let pgid: i32 = std::fs::read_to_string(&file).ok()?.trim().parse().ok()?;
        (!members(pgid).is_empty() && server.requests().len() >= 2).then_some(pgid)
    });
    let Some(pgid) = found else {
        let _ = child.kill();
        panic!("the background shell never started: {:#?}", finish(child));
    };
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
    let server = ModelServer::start(vec![background_call(), Turn::Hang]);
    let (child, pgid) = start(&p, &server);
    signal(child.id(), name);
    let run = finish(child);
    run.expect_code(code);
    assert!(
        members(pgid).is_empty(),
        "SIG{name} left the background shell running: {:?}",
        members(pgid)
    );
}

#[test]
fn ctrl_c_ends_the_background_shells() {
    ended_by("INT", 130);
}

#[test]
fn sigterm_ends_the_background_shells() {
    ended_by("TERM", 143);
}

#[test]
fn sighup_ends_the_background_shells() {
    ended_by("HUP", 129);
}

#[test]
fn a_finished_run_ends_its_background_shells() {
    let p = Project::new();
    let server = ModelServer::start(vec![background_call(), Turn::text("Started it.")]);
    let run = run(&p, &server, &["--format", "json", "serve"]);
    run.expect_code(0);
    let pgid: i32 = std::fs::read_to_string(p.dir.join("bg.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(members(pgid).is_empty(), "{:?}", members(pgid));
}

#[test]
fn after_a_sigkill_opening_the_session_ends_the_background_shell() {
    strata_testkit::require_external!("kill", "apt-get install procps");
    let p = Project::new();
    let server = ModelServer::start(vec![background_call(), Turn::Hang]);
    let (child, pgid) = start(&p, &server);
    signal(child.id(), "KILL");
    let _ = finish(child);
    assert!(
        !members(pgid).is_empty(),
        "the shell should outlive a SIGKILLed strata (else this test proves nothing)"
    );
    let list = strata(&p, &server, &["session", "list", "--format", "json"]);
    list.expect_code(0);
    let session = list.json()[0]["id"].as_str().unwrap().to_string();
    strata(&p, &server, &["session", "show", &session]).expect_code(0);
    let gone = poll_within_blocking(LIMIT, || members(pgid).is_empty().then_some(()));
    assert!(gone.is_some(), "still running: {:?}", members(pgid));
}

/// `DELETE` over HTTP.
async fn delete(url: &str) -> (u16, serde_json::Value) {
    let r = reqwest::Client::new().delete(url).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(serde_json::Value::Null))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_server_lists_and_kills_background_shells_and_sigterm_ends_the_rest() {
    use crate::e2e_serve_support::{prompt, serve};
    strata_testkit::require_external!("kill", "apt-get install procps");
    let p = Project::new();
    let model = ModelServer::start(vec![
        background_call(),
        Turn::text("Started."),
        Turn::tool_call(
            "c2",
            "bash",
            r#"{"command":"echo $$ > second.pid; sleep 1000","run_in_background":true}"#,
        ),
        Turn::text("Started another."),
    ]);
    let s = serve(&p, &model, &[]);
    let id = s.session().await;
    let (status, body) = s
        .post(&format!("/session/{id}/message"), prompt("serve"))
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, list) = s.get(&format!("/session/{id}/background")).await;
    assert_eq!(status, 200, "{list}");
    let shells = list.as_array().unwrap();
    assert_eq!(shells.len(), 1, "{list}");
    assert_eq!(shells[0]["id"], "bg_1");
    assert_eq!(shells[0]["sessionID"], id.as_str());
    assert_eq!(shells[0]["status"], "running");
    assert_eq!(shells[0]["exitCode"], serde_json::Value::Null);
    assert!(
        shells[0]["command"]
            .as_str()
            .unwrap()
            .contains("sleep 1000")
    );
    assert!(shells[0]["started"].as_i64().unwrap() > 0);
    let pgid: i32 = std::fs::read_to_string(p.dir.join("bg.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();

    let (status, killed) = delete(&format!("{}/session/{id}/background/bg_1", s.url)).await;
    assert_eq!(status, 200, "{killed}");
    assert_eq!(killed["status"], "killed");
    assert!(members(pgid).is_empty(), "{:?}", members(pgid));
    let (_, list) = s.get(&format!("/session/{id}/background")).await;
    assert_eq!(list[0]["status"], "killed");
    let (status, _) = delete(&format!("{}/session/{id}/background/bg_9", s.url)).await;
    assert_eq!(status, 404);
    let (status, _) = s.get("/session/ses_missing/background").await;
    assert_eq!(status, 404);

    // A second shell, left running: SIGTERM to the server ends it.
    let (status, body) = s
        .post(&format!("/session/{id}/message"), prompt("another"))
        .await;
    assert_eq!(status, 200, "{body}");
    let second: i32 = std::fs::read_to_string(p.dir.join("second.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(!members(second).is_empty());
    signal(s.child.id(), "TERM");
    let gone = poll_within_blocking(LIMIT, || members(second).is_empty().then_some(()));
    assert!(gone.is_some(), "still running: {:?}", members(second));
}
