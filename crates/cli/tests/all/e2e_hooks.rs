//! Hooks end to end with the built binary: the project's `.claude/settings.json` hooks wait
//! for trust (`strata run` warns and says how), `strata hooks list` shows each hook, its
//! file and whether it is trusted, `strata hooks trust` lets them run, a changed config asks
//! again, and a run on a terminal offers the trust itself.
use crate::common::Project;
use crate::e2e_run_support::*;
use serde_json::json;
use strata_testkit::model_server::{ModelServer, Turn};

fn settings(p: &Project, marker: &str) {
    let hooks = json!({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": format!("echo {marker} >> hook-ran.txt")}
    ]}]}});
    p.file(".claude/settings.json", hooks.to_string());
}

fn ran_markers(p: &Project) -> String {
    std::fs::read_to_string(p.dir.join("hook-ran.txt")).unwrap_or_default()
}

#[test]
fn project_hooks_run_only_once_trusted_and_a_change_asks_again() {
    let p = Project::new();
    settings(&p, "first");
    let server = ModelServer::start(vec![Turn::text("one"), Turn::text("two")]);

    let untrusted = run(&p, &server, &["hello"]);
    untrusted.expect_code(0);
    assert!(
        untrusted.stderr.contains("strata hooks trust"),
        "{}",
        untrusted.stderr
    );
    assert_eq!(ran_markers(&p), "", "an untrusted hook did not run");

    let list = p.strata(&["hooks", "list"]);
    list.expect_code(0);
    assert!(
        list.stdout.contains("UserPromptSubmit: echo first"),
        "{}",
        list.stdout
    );
    assert!(list.stdout.contains("NOT trusted"), "{}", list.stdout);
    assert!(
        list.stdout.contains(".claude/settings.json"),
        "{}",
        list.stdout
    );

    p.strata(&["hooks", "trust"]).expect_code(0);
    let listed = p.strata(&["hooks", "list", "--format", "json"]);
    listed.expect_code(0);
    let rows = listed.json();
    assert_eq!(rows["hooks"][0]["trusted"], true, "{rows}");
    assert_eq!(rows["hooks"][0]["event"], "UserPromptSubmit");

    let trusted = run(&p, &server, &["hello again"]);
    trusted.expect_code(0);
    assert_eq!(ran_markers(&p).trim(), "first", "the trusted hook ran");

    settings(&p, "second");
    let changed = p.strata(&["hooks", "list"]);
    assert!(
        changed.stdout.contains("NOT trusted"),
        "a change asks again: {}",
        changed.stdout
    );
}

#[test]
fn a_run_on_a_terminal_offers_to_trust_the_project_hooks() {
    let p = Project::new();
    settings(&p, "tty");
    let server = ModelServer::start(vec![Turn::text("hi")]);
    let out = on_tty(&p, &server, &["run", "--model", MODEL, "hello"], "y\n");
    assert!(out.stdout.contains("Trust them"), "{}", out.stdout);
    assert_eq!(ran_markers(&p).trim(), "tty", "{}", out.stdout);
    let list = p.strata(&["hooks", "list"]);
    assert!(list.stdout.contains("(trusted)"), "{}", list.stdout);
}
