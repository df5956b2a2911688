//! Running the built `strata run` against the scripted model server: the command with
//! `OPENAI_BASE_URL` pointing at the server, on pipes or on a pseudo-terminal, and a parser for
//! `--format json` output.
#![allow(dead_code)] // each test file uses a different part

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use strata_testkit::model_server::{ModelServer, Turn};

pub(crate) use super::common::finish;
use super::common::{Project, Run, strata_bin};

/// How long one `strata` command may run before the test fails.
pub(crate) const LIMIT: Duration = Duration::from_secs(60);

/// The model every test names; not a patch model, so `edit`/`write` are offered.
pub(crate) const MODEL: &str = "openai/scripted-model";

pub(crate) fn environment(cmd: &mut Command, p: &Project, server: &ModelServer) {
    cmd.current_dir(&p.dir)
        .env("STRATA_DATA_DIR", &p.data)
        .env("STRATA_CONFIG_DIR", &p.config)
        .env("HOME", &p.home)
        .env("TMPDIR", &p.tmp)
        .env("NO_COLOR", "1")
        .env("OPENAI_BASE_URL", server.url());
    for var in [
        "OPENAI_API_KEY",
        "STRATA_LOG",
        "RUST_LOG",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_SDK_DISABLED",
        "STRATA_BASH_DEFAULT_TIMEOUT_MS",
        "XDG_DATA_HOME",
        "XDG_CONFIG_HOME",
        "STRATA_WEBSEARCH_URL",
        "EXA_API_KEY",
        "OPENCODE_CONFIG",
        "OPENCODE_CONFIG_CONTENT",
        "STRATA_SANDBOX",
        "STRATA_SANDBOX_SIMULATE_UNSUPPORTED",
    ] {
        cmd.env_remove(var);
    }
}

/// `strata ARGS` in the project, talking to `server`, stdin closed.
pub(crate) fn command(p: &Project, server: &ModelServer, args: &[&str]) -> Command {
    let mut cmd = Command::new(strata_bin());
    cmd.args(args);
    environment(&mut cmd, p, server);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Runs `strata ARGS` to the end.
pub(crate) fn strata(p: &Project, server: &ModelServer, args: &[&str]) -> Run {
    let mut cmd = command(p, server, args);
    let child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("could not start {cmd:?}: {e}"));
    finish(child)
}

/// `strata run --model MODEL ARGS…`.
pub(crate) fn run(p: &Project, server: &ModelServer, args: &[&str]) -> Run {
    let mut all = vec!["run", "--model", MODEL];
    all.extend_from_slice(args);
    strata(p, server, &all)
}

/// `strata ARGS` on a pseudo-terminal (through `script`), with `input` typed into it. Stdout
/// and stderr arrive merged in `stdout`.
pub(crate) fn on_tty(p: &Project, server: &ModelServer, args: &[&str], input: &str) -> Run {
    let line = std::iter::once(strata_bin().display().to_string())
        .chain(args.iter().map(|a| a.to_string()))
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect::<Vec<_>>()
        .join(" ");
    let mut cmd = Command::new("script");
    cmd.args(["-q", "-e", "-c", &line, "/dev/null"]);
    environment(&mut cmd, p, server);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("could not start {cmd:?} (is `script` installed?): {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input.as_bytes())
            .expect("type into the terminal");
        // Left open until the end: closing it would end the terminal session early.
        std::mem::forget(stdin);
    }
    finish(child)
}

/// Every stdout line parsed as JSON; fails on a line that is not.
#[track_caller]
pub(crate) fn json_lines(run: &Run) -> Vec<Value> {
    run.stdout
        .lines()
        .map(|l| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("not a JSON line ({e}): {l:?}\nwhole run: {run:#?}"))
        })
        .collect()
}

/// The `type` of each event.
pub(crate) fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or("?").to_string())
        .collect()
}

/// A project with `notes.txt` whose `glob` asks, and a model whose parent delegates to an
/// `explore` child that globs (so only a front-end that answers the child's asks lets it
/// finish), then says "child found notes.txt"; the parent ends with "parent done".
pub(crate) fn delegating(p: &Project) -> ModelServer {
    p.file("notes.txt", "hello\n");
    p.file("strata.json", r#"{"permission": {"glob": "ask"}}"#);
    let task = json!({"description": "Look around", "prompt": "CHILD-L: list the text files",
                      "subagent_type": "explore"});
    let server = ModelServer::start(vec![
        Turn::tool_call("c1", "task", &task.to_string()),
        Turn::text("parent done"),
    ]);
    server.route(
        "CHILD-L",
        vec![
            Turn::tool_call("g1", "glob", r#"{"pattern":"*.txt"}"#),
            Turn::text("child found notes.txt"),
        ],
    );
    server
}
