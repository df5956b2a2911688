//! `strata` with no command, in a pseudo-terminal (`script`), on its in-process server with
//! the scripted model: type a prompt, see the bash tool card and the answer, allow the bash
//! call by key, quit with Ctrl+C twice, and check that the process exited with 0, nothing of
//! its session is left running, and the terminal was given back. `strata --worktree NAME`
//! works in a worktree of its own on `strata/NAME`, `/compact` runs the `PreCompact` hooks
//! with `trigger: "manual"`, and quitting ends the session with the `SessionEnd` hooks
//! (`reason: "prompt_input_exit"`); `/new` ends the open session first (`reason: "clear"`).

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use strata_agent::session::compact::SUMMARY_PROMPT;
use strata_testkit::model_server::{ModelServer, Turn};
use strata_testkit::poll_within_blocking as poll;
use strata_testkit::screen::{plain, record};

use crate::common::{Project, strata_bin};
use crate::e2e_run_support::{MODEL, environment};
use crate::e2e_worktree::{git, repository, worktree_dir};

const WAIT: Duration = Duration::from_secs(30);

/// The UI under `script`; killed (with what it started) when the test ends early.
struct Ui {
    child: Child,
    input: std::process::ChildStdin,
    screen: Arc<Mutex<Vec<u8>>>,
    reader: Option<std::thread::JoinHandle<()>>,
    pid_file: std::path::PathBuf,
}

impl Ui {
    fn start(p: &Project, model: &ModelServer) -> Ui {
        Ui::start_with(p, model, "")
    }

    /// `strata ARGS` (shell words, quoted as needed).
    fn start_with(p: &Project, model: &ModelServer, args: &str) -> Ui {
        let pid_file = p.tmp.join("strata.pid");
        // The shell's pid becomes strata's at `exec`; `script` made it a session leader.
        let line = format!(
            "stty cols 100 rows 30; echo $$ > '{}'; exec '{}' {args}",
            pid_file.display(),
            strata_bin().display()
        );
        let mut cmd = Command::new("script");
        cmd.args(["-qfec", &line, "/dev/null"]);
        environment(&mut cmd, p, model);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().unwrap();
        let (screen, reader) = record(child.stdout.take().unwrap());
        let input = child.stdin.take().unwrap();
        Ui {
            child,
            input,
            screen,
            reader: Some(reader),
            pid_file,
        }
    }

    fn text(&self) -> String {
        plain(&self.screen.lock().unwrap())
    }

    /// Waits until the screen shows `what`; fails with the screen otherwise.
    fn wait_for(&self, what: &str) {
        let found = poll(WAIT, || self.text().contains(what).then_some(()));
        assert!(
            found.is_some(),
            "no {what:?} on screen within {WAIT:?}; saw:\n{}",
            self.text()
        );
    }

    fn press(&mut self, bytes: &[u8]) {
        self.input.write_all(bytes).unwrap();
        self.input.flush().unwrap();
    }

    fn strata_pid(&self) -> i32 {
        let pid = poll(WAIT, || {
            std::fs::read_to_string(&self.pid_file)
                .ok()
                .and_then(|s| s.trim().parse::<i32>().ok())
        });
        pid.expect("the shell wrote strata's pid")
    }
}

impl Drop for Ui {
    fn drop(&mut self) {
        if let Ok(pid) = std::fs::read_to_string(&self.pid_file) {
            for p in session_members(pid.trim().parse().unwrap_or(0)) {
                let _ = Command::new("kill")
                    .args(["-KILL", &p.to_string()])
                    .status();
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}

/// Live (not zombie) processes whose session is `sid`: strata and everything it started.
fn session_members(sid: i32) -> Vec<i32> {
    if sid <= 0 {
        return vec![];
    }
    let mut out = vec![];
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        // After the name: state, ppid, pgrp, session.
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        if fields.len() > 3 && fields[0] != "Z" && fields[3] == sid.to_string() {
            out.push(pid);
        }
    }
    out
}

fn config(dir: &Path) {
    let config =
        json!({"model": MODEL, "permission": {"bash": "ask"}, "sandbox": {"auto_allow": false}});
    std::fs::write(dir.join("strata.json"), config.to_string()).unwrap();
}

#[test]
fn strata_runs_a_turn_with_a_permission_in_a_pseudo_terminal() {
    strata_testkit::require_external!("script", "apt-get install bsdutils (util-linux)");
    let p = Project::new();
    config(&p.dir);
    let model = ModelServer::start(vec![
        Turn::tool_call(
            "call_1",
            "bash",
            r#"{"command":"echo approved-run","description":"Print a marker"}"#,
        ),
        Turn::text("All done here."),
    ]);
    let mut ui = Ui::start(&p, &model);
    ui.wait_for("Ask anything");
    let pid = ui.strata_pid();
    ui.press(b"print the marker");
    ui.wait_for("print the marker");
    ui.press(b"\r");
    ui.wait_for("Permission required");
    ui.wait_for("echo approved-run");
    // Enter takes the highlighted choice: allow once.
    ui.press(b"\r");
    ui.wait_for("Print a marker");
    ui.wait_for("All done here.");
    ui.wait_for("idle");
    assert_eq!(model.remaining(), 0, "both model turns were used");
    quit(&mut ui);
    if let Some(r) = ui.reader.take() {
        r.join().unwrap();
    }
    let raw = String::from_utf8_lossy(&ui.screen.lock().unwrap()).to_string();
    // The alternate screen was left and the cursor shown again, after the last frame.
    let leave = raw
        .rfind("\x1b[?1049l")
        .expect("the alternate screen was left");
    let show = raw.rfind("\x1b[?25h").expect("the cursor was shown again");
    let last_frame = raw.rfind("All done here.").unwrap_or(0);
    assert!(
        leave > last_frame && show > last_frame,
        "restored before the last frame"
    );
    assert!(
        plain(raw.as_bytes()).contains("Continue"),
        "{}",
        plain(raw.as_bytes())
    );
    let left = poll(WAIT, || session_members(pid).is_empty().then_some(()));
    assert!(
        left.is_some(),
        "processes of strata's session are still running: {:?}",
        session_members(pid)
    );
}

/// Quits with Ctrl+C twice and waits for a clean exit.
fn quit(ui: &mut Ui) {
    ui.press(b"\x03");
    ui.wait_for("again");
    ui.press(b"\x03");
    let status = poll(WAIT, || ui.child.try_wait().unwrap());
    let Some(status) = status else {
        panic!(
            "strata did not quit within {WAIT:?}; screen:\n{}",
            ui.text()
        );
    };
    assert!(status.success(), "{status:?}; screen:\n{}", ui.text());
}

#[test]
fn strata_with_worktree_works_on_its_own_branch_compacts_and_quitting_ends_the_session() {
    strata_testkit::require_external!("script", "apt-get install bsdutils (util-linux)");
    strata_testkit::require_external!("git", "apt-get install git");
    let p = Project::new();
    repository(&p);
    // The user's own config: the main checkout's files do not reach the worktree, and the
    // user's hooks need no trust.
    let ended = p.home.join("session-end.json");
    let compacted = p.home.join("pre-compact.json");
    let save =
        |file: &Path| json!([{"hooks": [{"command": format!("cat > '{}'", file.display())}]}]);
    let config = json!({
        "model": MODEL,
        "permission": {"bash": "allow"},
        "hooks": {"SessionEnd": save(&ended), "PreCompact": save(&compacted)},
    });
    std::fs::write(p.config.join("strata.json"), config.to_string()).unwrap();
    let model = ModelServer::start(vec![
        Turn::tool_call(
            "call_1",
            "bash",
            r#"{"command":"echo made > made.txt","description":"Make a file"}"#,
        ),
        Turn::text("Made it in the worktree."),
    ]);
    let needle = SUMMARY_PROMPT.split('.').nth(1).unwrap().trim();
    model.answer_when(needle, Turn::text("SUMMARY: made.txt was made."));
    let mut ui = Ui::start_with(&p, &model, "--worktree tw");
    ui.wait_for("Ask anything");
    ui.press(b"make a file");
    ui.wait_for("make a file");
    ui.press(b"\r");
    ui.wait_for("Made it in the worktree.");
    ui.wait_for("idle");
    ui.press(b"/compact keep the file names\r");
    // The terminal is drawn by differences: this notice shares no cell with "Compacting the
    // session…" before it, so its text arrives whole.
    ui.wait_for("Session compacted");
    quit(&mut ui);

    let wt = worktree_dir(&p, "tw");
    assert_eq!(git(&wt, &["branch", "--show-current"]).trim(), "strata/tw");
    assert_eq!(
        std::fs::read_to_string(wt.join("made.txt")).unwrap(),
        "made\n"
    );
    assert!(
        !p.dir.join("made.txt").exists(),
        "the main checkout is untouched"
    );
    let read = |file: &Path| -> Value {
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
    };
    let compact = read(&compacted);
    assert_eq!(
        (
            compact["trigger"].as_str(),
            compact["custom_instructions"].as_str()
        ),
        (Some("manual"), Some("keep the file names"))
    );
    assert!(
        model
            .requests()
            .last()
            .unwrap()
            .to_string()
            .contains("keep the file names"),
        "the summary request carries the instructions"
    );
    let end = read(&ended);
    assert_eq!(end["hook_event_name"], "SessionEnd");
    assert_eq!(end["reason"], "prompt_input_exit");
    // The session is recorded in the worktree, and `session show` names it.
    let session = end["session_id"].as_str().unwrap();
    let show = p.strata(&["session", "show", session]);
    show.expect_code(0);
    let named = format!("worktree tw (branch strata/tw) at {}", wt.display());
    assert!(show.stdout.contains(&named), "{}", show.stdout);
    assert!(
        show.stdout.contains("PreCompact") && show.stdout.contains("SessionEnd"),
        "{}",
        show.stdout
    );
}

#[test]
fn new_ends_the_open_session_with_clear_and_quitting_ends_the_next_one() {
    strata_testkit::require_external!("script", "apt-get install bsdutils (util-linux)");
    let p = Project::new();
    // One JSON object a line, one line per SessionEnd run.
    let ended = p.home.join("session-end.jsonl");
    let append = format!("cat >> '{0}'; echo >> '{0}'", ended.display());
    let config = json!({
        "model": MODEL,
        "hooks": {"SessionEnd": [{"hooks": [{"command": append}]}]},
    });
    std::fs::write(p.config.join("strata.json"), config.to_string()).unwrap();
    let model = ModelServer::start(vec![
        Turn::text("First answer."),
        Turn::text("Second answer."),
    ]);
    let mut ui = Ui::start(&p, &model);
    ui.wait_for("Ask anything");
    ui.press(b"first\r");
    ui.wait_for("First answer.");
    ui.press(b"/new\r");
    ui.wait_for("New session");
    let lines = || -> Vec<Value> {
        let text = std::fs::read_to_string(&ended).unwrap_or_default();
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let cleared = poll(WAIT, || lines().first().cloned());
    let cleared = cleared.expect("the SessionEnd hook ran on /new");
    assert_eq!(cleared["reason"], "clear");
    ui.press(b"second\r");
    ui.wait_for("Second answer.");
    quit(&mut ui);
    let all = lines();
    assert_eq!(all.len(), 2, "once each: {all:#?}");
    assert_eq!(all[1]["reason"], "prompt_input_exit");
    assert_ne!(
        all[0]["session_id"], all[1]["session_id"],
        "the first session ended on /new, the second on quitting"
    );
}
