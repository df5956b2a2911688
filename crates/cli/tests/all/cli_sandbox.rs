//! The sandbox end to end through the real binary: `strata tool bash` inside and outside it,
//! the hints, the protected files, the secrets, `strata debug sandbox`, the simulated missing
//! kernel support and `sandbox.required`, and the `sandbox` line of `strata run`.

use std::path::PathBuf;

use crate::common::{Project, Run};
use crate::e2e_run_support::run;
use serde_json::json;
use strata_testkit::model_server::{ModelServer, Turn, call};

const SIMULATE: (&str, &str) = ("STRATA_SANDBOX_SIMULATE_UNSUPPORTED", "1");
const OFF: (&str, &str) = ("STRATA_SANDBOX", "off");
const NO_USERNS: (&str, &str) = ("STRATA_SANDBOX_SIMULATE_NO_USERNS", "1");

/// Whether this kernel can enforce the sandbox, from `strata debug sandbox` itself; prints
/// one skip line when it cannot.
fn enforced(p: &Project) -> bool {
    let run = p.strata(&["debug", "sandbox", "--format", "json"]);
    run.expect_code(0);
    let mode = run.json()["mode"].as_str().unwrap_or_default().to_string();
    if mode == "off" {
        println!(
            "skipped: the sandbox is not enforced on this kernel: {}",
            run.stdout
        );
        return false;
    }
    true
}

/// `strata tool bash` with `--yes`, so the outside-directory ask of a command that names a
/// path outside the project is answered and the sandbox is what stops it.
fn bash(p: &Project, command: &str, env: &[(&str, &str)]) -> Run {
    let call = json!({"command": command, "description": "sandbox test"}).to_string();
    p.strata_env(&["tool", "bash", &call, "--yes"], env)
}

/// `strata tool bash` without `--yes`: an ask that is not allowed fails the call.
fn bash_unattended(p: &Project, command: &str, env: &[(&str, &str)]) -> Run {
    let call = json!({"command": command, "description": "sandbox test"}).to_string();
    p.strata_env(&["tool", "bash", &call], env)
}

/// A directory outside the project and outside every temp directory.
fn outside() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("outside-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let path = std::fs::canonicalize(dir.path()).unwrap();
    assert!(!path.starts_with("/tmp") && !path.starts_with(std::env::temp_dir()));
    (dir, path)
}

#[test]
fn a_write_outside_is_refused_with_a_hint_and_works_with_the_sandbox_off() {
    let p = Project::new();
    if !enforced(&p) {
        return;
    }
    let (_keep, out) = outside();
    let target = out.join("escape.txt");
    let command = format!("echo x > {}", target.display());
    let inside = bash(&p, &command, &[]);
    inside.expect_code(0);
    assert!(!target.exists(), "{inside:#?}");
    assert!(
        inside.stdout.contains("Permission denied"),
        "{}",
        inside.stdout
    );
    let hint = format!("sandbox: writing {} was refused", target.display());
    assert!(inside.stdout.contains(&hint), "{}", inside.stdout);
    assert!(
        inside.stdout.contains("`sandbox.writable`"),
        "{}",
        inside.stdout
    );

    let free = bash(&p, &command, &[OFF]);
    free.expect_code(0);
    assert!(target.exists(), "{free:#?}");
    assert!(!free.stdout.contains("sandbox:"), "{}", free.stdout);
}

#[test]
fn with_the_network_off_a_connection_fails_with_a_hint() {
    let p = Project::new();
    if !enforced(&p) {
        return;
    }
    p.file("strata.json", r#"{"sandbox": {"network": false}}"#);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let command = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let inside = bash(&p, &command, &[]);
    assert!(!inside.stdout.contains("connected\n"), "{}", inside.stdout);
    assert!(
        inside.stdout.contains("`sandbox.network`"),
        "{}",
        inside.stdout
    );
    let free = bash(&p, &command, &[OFF]);
    assert!(free.stdout.contains("connected"), "{}", free.stdout);
}

#[test]
fn a_provider_key_is_hidden_from_commands_unless_passed_through() {
    let p = Project::new();
    if !enforced(&p) {
        return;
    }
    let key = ("OPENAI_API_KEY", "sk-sandbox-secret");
    let command = "echo key=${OPENAI_API_KEY:-none} pass=${STRATA_SERVER_PASSWORD:-none}";
    let env = [key, ("STRATA_SERVER_PASSWORD", "hunter2")];
    let inside = bash(&p, command, &env);
    assert!(
        inside.stdout.contains("key=none pass=none"),
        "{}",
        inside.stdout
    );
    let free = bash(
        &p,
        command,
        &[key, ("STRATA_SERVER_PASSWORD", "hunter2"), OFF],
    );
    assert!(
        free.stdout.contains("key=sk-sandbox-secret pass=hunter2"),
        "{}",
        free.stdout
    );
    p.file(
        "strata.json",
        r#"{"sandbox": {"env_passthrough": ["OPENAI_API_KEY"]}}"#,
    );
    let passed = bash(&p, command, &env);
    assert!(
        passed.stdout.contains("key=sk-sandbox-secret pass=none"),
        "{}",
        passed.stdout
    );
}

/// Whether the kernel lets commands enter user namespaces, from `strata debug sandbox`.
fn namespaces(p: &Project) -> bool {
    let run = p.strata(&["debug", "sandbox", "--format", "json"]);
    let on = run.json()["user_namespaces"] == true;
    if !on {
        println!("skipped: no user namespaces here: {}", run.stdout);
    }
    on
}

#[test]
fn a_git_hook_or_strata_json_written_by_a_command_does_not_stick_without_namespaces() {
    let p = Project::new();
    if !enforced(&p) {
        return;
    }
    let original = r#"{"sandbox": {"network": true}}"#;
    p.file("strata.json", original);
    p.file(".git/hooks/.keep", "");
    let command = "printf '#!/bin/sh\\nevil\\n' > .git/hooks/pre-commit && \
                   echo '{\"sandbox\": {\"mode\": \"off\"}}' > strata.json && echo wrote";
    let inside = bash(&p, command, &[NO_USERNS]);
    inside.expect_code(0);
    assert!(inside.stdout.contains("wrote"), "{}", inside.stdout);
    assert!(
        !p.dir.join(".git/hooks/pre-commit").exists(),
        "{}",
        inside.stdout
    );
    assert_eq!(
        std::fs::read_to_string(p.dir.join("strata.json")).unwrap(),
        original
    );
    assert!(
        inside.stdout.contains(".git/hooks/pre-commit, strata.json")
            && inside.stdout.contains("undone"),
        "{}",
        inside.stdout
    );
    let free = bash(&p, command, &[OFF]);
    free.expect_code(0);
    assert!(p.dir.join(".git/hooks/pre-commit").exists(), "{free:#?}");
}

#[test]
fn with_namespaces_a_protected_write_fails_read_only_with_a_hint() {
    let p = Project::new();
    if !enforced(&p) || !namespaces(&p) {
        return;
    }
    let original = r#"{"sandbox": {"network": true}}"#;
    p.file("strata.json", original);
    p.file(".git/hooks/.keep", "");
    for target in [".git/hooks/pre-commit", "strata.json"] {
        let inside = bash(&p, &format!("echo evil > {target}"), &[]);
        inside.expect_code(0);
        let out = &inside.stdout;
        assert!(out.contains("Read-only file system"), "{out}");
        let hint = format!("sandbox: {target} is protected");
        assert!(
            out.contains(&hint) && out.contains("escape_sandbox"),
            "{out}"
        );
        assert!(!out.contains("undone"), "nothing had to be undone: {out}");
    }
    assert!(!p.dir.join(".git/hooks/pre-commit").exists());
    assert_eq!(
        std::fs::read_to_string(p.dir.join("strata.json")).unwrap(),
        original
    );
    let simulated = p.strata_env(&["debug", "sandbox"], &[NO_USERNS]);
    assert!(
        simulated.stdout.contains("user namespaces: missing")
            && simulated
                .stdout
                .contains("protected files: snapshot and restore"),
        "{}",
        simulated.stdout
    );
}

#[test]
fn an_ask_rule_for_bash_is_auto_allowed_inside_but_a_deny_still_denies() {
    let p = Project::new();
    if !enforced(&p) {
        return;
    }
    p.file(
        "strata.json",
        r#"{"permission": {"bash": {"*": "ask", "rm *": "deny"}}}"#,
    );
    let ran = bash_unattended(&p, "touch ran.txt", &[]);
    ran.expect_code(0);
    assert!(p.dir.join("ran.txt").exists(), "auto-allowed: {ran:#?}");
    let denied = bash(&p, "rm ran.txt", &[]);
    denied.expect_code(1);
    assert!(
        p.dir.join("ran.txt").exists(),
        "the deny rule held: {denied:#?}"
    );
    // With the sandbox off the same ask needs an answer again.
    let asked = bash_unattended(&p, "touch again.txt", &[OFF]);
    asked.expect_code(1);
    assert!(asked.stderr.contains("--yes"), "{}", asked.stderr);
    assert!(!p.dir.join("again.txt").exists());
}

#[test]
fn debug_sandbox_reports_the_kernel_mode_and_roots() {
    let p = Project::new();
    if !enforced(&p) {
        return;
    }
    let run = p.strata(&["debug", "sandbox"]);
    run.expect_code(0);
    let out = &run.stdout;
    assert!(
        out.contains("mode: workspace-write (requested: workspace-write)"),
        "{out}"
    );
    assert!(
        out.contains("seccomp: available") && out.contains("WriteFile"),
        "{out}"
    );
    assert!(out.contains("user namespaces: "), "{out}");
    assert!(out.contains("protected files: "), "{out}");
    assert!(out.contains(&format!("  {}\n", p.dir.display())), "{out}");
    let json = p.strata(&[
        "debug",
        "sandbox",
        "--sandbox",
        "read-only",
        "--format",
        "json",
    ]);
    let doc = json.json();
    assert_eq!(doc["mode"], "read-only");
    assert!(doc["landlock_abi"].as_i64().unwrap() >= 1, "{doc}");
    let roots: Vec<&str> = doc["writable_roots"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r.as_str())
        .collect();
    assert!(!roots.contains(&p.dir_str().as_str()), "{roots:?}");
    assert!(roots.contains(&"/dev/null"), "{roots:?}");
}

#[test]
fn missing_kernel_support_warns_and_runs_unsandboxed() {
    let p = Project::new();
    let run = p.strata_env(&["debug", "sandbox"], &[SIMULATE]);
    run.expect_code(0);
    assert!(
        run.stdout
            .contains("mode: off (requested: workspace-write)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("lacks Landlock and seccomp") && run.stdout.contains("unsandboxed"),
        "{}",
        run.stdout
    );
    let (_keep, out) = outside();
    let target = out.join("unsandboxed.txt");
    bash(&p, &format!("echo x > {}", target.display()), &[SIMULATE]).expect_code(0);
    assert!(target.exists(), "the command ran without the sandbox");
}

#[test]
fn required_sandbox_without_kernel_support_stops_the_run_before_it_starts() {
    let p = Project::new();
    p.file("strata.json", r#"{"sandbox": {"required": true}}"#);
    let server = ModelServer::start(vec![Turn::text("never")]);
    let mut cmd = crate::e2e_run_support::command(
        &p,
        &server,
        &["run", "--model", "openai/scripted-model", "hi"],
    );
    cmd.env(SIMULATE.0, SIMULATE.1);
    let run = p.run(cmd, None);
    run.expect_code(1);
    assert!(
        run.stderr.contains("the sandbox is required"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("sandbox.required"), "{}", run.stderr);
    assert!(server.requests().is_empty(), "the model was never asked");
    // `--sandbox off` is an explicit choice, so the requirement does not apply.
    let mut cmd = crate::e2e_run_support::command(
        &p,
        &server,
        &[
            "run",
            "--sandbox",
            "off",
            "--model",
            "openai/scripted-model",
            "hi",
        ],
    );
    cmd.env(SIMULATE.0, SIMULATE.1);
    let run = p.run(cmd, None);
    run.expect_code(0);
    assert!(
        run.stderr.contains("strata: sandbox: off\n"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_run_reports_the_effective_mode_once_and_bash_runs_inside() {
    let p = Project::new();
    // The option wins over the config.
    p.file("strata.json", r#"{"sandbox": {"mode": "off"}}"#);
    let (_keep, out) = outside();
    let target = out.join("made.txt");
    let command = json!({"command": format!("echo inside > {}", target.display())}).to_string();
    let server = ModelServer::start(vec![
        Turn::TextAndToolCalls(String::new(), vec![call("c1", "bash", &command)]),
        Turn::text("done"),
    ]);
    let args = ["--yes", "--sandbox", "workspace-write", "make a file"];
    let run = run(&p, &server, &args);
    run.expect_code(0);
    let lines: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("sandbox:"))
        .collect();
    assert_eq!(lines.len(), 1, "{}", run.stderr);
    if lines[0].contains("off (warning") {
        println!("skipped: {}", lines[0]);
        return;
    }
    let line = lines[0];
    assert!(
        line.starts_with("strata: sandbox: workspace-write (Landlock ABI"),
        "{line}"
    );
    assert!(!target.exists(), "the model's command was held");
}
