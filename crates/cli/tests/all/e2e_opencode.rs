//! opencode 1.18.33's own clients against `strata serve`: `opencode run --attach` completes a
//! scripted tool turn, and `opencode attach` (its TUI, on a pseudo-terminal) bootstraps with
//! every route it calls answered and shows the session. Needs `opencode` on PATH (`.ci/run`
//! installs it) and `script`; skipped with a notice when absent.

use std::process::{Command, Stdio};

use strata_testkit::model_server::{ModelServer, Turn};
use strata_testkit::require_external;

use super::common::Project;
use super::e2e_run_support::MODEL;
use super::e2e_serve_support::{LIMIT, serve};
use super::tty_driver::Tty;

const INSTALL: &str = "npm install -g opencode-ai@1.18.33";

/// opencode with its own throwaway XDG directories and no network lookups.
fn opencode(p: &Project) -> Command {
    let mut cmd = Command::new("opencode");
    let base = p.tmp.join("opencode");
    for (var, dir) in [
        ("XDG_DATA_HOME", "data"),
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
    ] {
        let d = base.join(dir);
        std::fs::create_dir_all(&d).unwrap();
        cmd.env(var, d);
    }
    cmd.env("HOME", &p.home)
        .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
        .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
        .env_remove("OPENCODE_SERVER_PASSWORD")
        .current_dir(&p.dir);
    cmd
}

#[test]
fn opencode_run_attach_completes_a_tool_turn() {
    require_external!("opencode", INSTALL);
    let p = Project::new();
    p.file("a.txt", "hello from strata\n");
    let model = ModelServer::start(vec![
        Turn::tool_call("call_1", "read", r#"{"filePath":"a.txt"}"#),
        Turn::text("The file says hello."),
    ]);
    let s = serve(&p, &model, &[]);
    let mut cmd = opencode(&p);
    cmd.args([
        "run", "--attach", &s.url, "--format", "json", "-m", MODEL, "--dir",
    ])
    .arg(&p.dir)
    .arg("read a.txt")
    .stdin(Stdio::null());
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{out:?}\nserver log:\n{}",
        s.log_text()
    );
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let tool = lines
        .iter()
        .find(|l| l["type"] == "tool_use")
        .unwrap_or_else(|| panic!("no tool_use in {stdout}"));
    assert_eq!(tool["part"]["tool"], "read");
    assert_eq!(tool["part"]["state"]["status"], "completed");
    assert!(
        tool["part"]["state"]["output"]
            .as_str()
            .unwrap()
            .contains("hello from strata")
    );
    let text = lines
        .iter()
        .find(|l| l["type"] == "text")
        .expect("a text line");
    assert_eq!(text["part"]["text"], "The file says hello.");
    assert!(!s.log_text().contains("unknown route"), "{}", s.log_text());
}

/// `opencode attach` (its TUI) in a pseudo-terminal whose other end answers terminal queries
/// as xterm would: it bootstraps with every route it calls answered (the server logs each
/// refused or failed request, and an unknown route), opens the session and shows its messages,
/// runs a prompt typed into it, and quits on ctrl+c.
#[test]
fn opencode_attach_bootstraps_and_shows_the_session() {
    require_external!("opencode", INSTALL);
    require_external!("script", "apt-get install bsdutils");
    let p = Project::new();
    p.file("a.txt", "hello\n");
    p.file("strata.json", format!(r#"{{"model": "{MODEL}"}}"#));
    let model = ModelServer::start(vec![
        Turn::tool_call("call_1", "read", r#"{"filePath":"a.txt"}"#),
        Turn::text("Shown in the terminal."),
        Turn::text("Typed in the terminal."),
    ]);
    // Every request is logged: refused ones at info, answered ones at debug.
    let s = serve(
        &p,
        &model,
        &[("STRATA_LOG", "warn,strata_server::http::access=debug")],
    );
    // A finished session for the TUI to open.
    let run = {
        let mut cmd = opencode(&p);
        cmd.args([
            "run", "--attach", &s.url, "--format", "json", "-m", MODEL, "--dir",
        ])
        .arg(&p.dir)
        .arg("read a.txt")
        .stdin(Stdio::null());
        cmd.output().unwrap()
    };
    assert!(run.status.success(), "{run:?}\n{}", s.log_text());
    let first: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&run.stdout).lines().next().unwrap()).unwrap();
    let session = first["sessionID"].as_str().unwrap().to_string();

    let mut cmd = opencode(&p);
    cmd.env("TERM", "xterm-256color")
        .env_remove("NO_COLOR")
        .env_remove("COLORTERM");
    let line = format!(
        "exec opencode attach '{}' --dir '{}' --session '{}'",
        s.url,
        p.dir.display(),
        session
    );
    // Only the TUI's requests count from here on.
    let before = s.log_text().len();
    let mut tty = Tty::spawn(&cmd, &line);
    let report = |tty: &Tty, what: &str| -> String {
        format!(
            "{what}\nqueries: {:?}\nscreen:\n{}\nserver log:\n{}",
            tty.queries(),
            tty.plain(),
            s.log_text()
        )
    };
    // The session view: the prompt, the tool and the answer.
    for text in ["read a.txt", "Shown in the terminal."] {
        assert!(
            tty.wait_for(text, LIMIT),
            "{}",
            report(&tty, &format!("{text:?} was not shown"))
        );
    }
    // The footer is drawn once the bootstrap (agents, providers) answered.
    assert!(
        tty.wait_for("Build", LIMIT),
        "{}",
        report(&tty, "no agent in the footer")
    );
    // A prompt typed in the TUI runs a turn whose answer it shows.
    tty.send(b"say more");
    assert!(
        tty.wait_for("say more", LIMIT),
        "{}",
        report(&tty, "the typed prompt was not echoed")
    );
    tty.send(b"\r");
    assert!(
        tty.wait_for("Typed in the terminal.", LIMIT),
        "{}",
        report(&tty, "the answer to the typed prompt was not shown")
    );
    tty.send(b"\x03");
    let status = tty.wait_exit(LIMIT);
    assert!(
        status.is_some_and(|s| s.success()),
        "{}",
        report(&tty, &format!("the TUI did not quit cleanly: {status:?}"))
    );
    let log = s.log_text()[before..].to_string();
    for bad in ["unknown route", "request refused", "request failed"] {
        assert!(!log.contains(bad), "{}", report(&tty, bad));
    }
    // The bootstrap the TUI cannot do without, and the session it opened, were answered.
    let answered = answered_routes(&log);
    for route in [
        "GET /config/providers",
        "GET /provider",
        "GET /agent",
        "GET /config",
        "GET /global/event",
        &format!("GET /session/{session}"),
        &format!("GET /session/{session}/message"),
        &format!("POST /session/{session}/message"),
    ] {
        assert!(
            answered.iter().any(|r| r == route),
            "{}",
            report(&tty, &format!("{route} was not called"))
        );
    }
    println!("the TUI called: {answered:?}");
    println!("and asked the terminal: {:?}", tty.queries());
    assert!(!tty.plain().contains("Error:"), "{}", report(&tty, "error"));
    // It asked the terminal for its colours and cursor position, and got answers.
    let queries = tty.queries();
    for q in ["OSC 11;?", "CSI 6n"] {
        assert!(queries.iter().any(|x| x == q), "{q} not sent: {queries:?}");
    }
}

/// `METHOD /path` of each request the server logged as answered, in order, without repeats.
fn answered_routes(log: &str) -> Vec<String> {
    let plain = super::tty_driver::plain(log.as_bytes());
    let mut out: Vec<String> = Vec::new();
    for line in plain.lines().filter(|l| l.contains("request answered")) {
        let field = |name: &str| {
            line.split(&format!("{name}="))
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .map(|v| v.trim_matches('"').to_string())
        };
        if let (Some(method), Some(path)) = (field("method"), field("path")) {
            let route = format!("{method} {path}");
            if !out.contains(&route) {
                out.push(route);
            }
        }
    }
    out
}
