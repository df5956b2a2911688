//! The real UI loop in a pseudo-terminal (`script`), against the demo binary's scripted
//! server: type a prompt, see the tool cards and the answer, allow the edit by key, quit with
//! Ctrl+C twice, and check that the terminal was given back and nothing is left running.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use strata_testkit::poll_within_blocking as poll;
use strata_testkit::screen::plain;

/// Polls `buf` until it holds `what` (escape sequences removed), for up to 20 s.
fn wait_for(buf: &Arc<Mutex<Vec<u8>>>, what: &str) {
    let found = poll(Duration::from_secs(20), || {
        let text = plain(&buf.lock().unwrap());
        text.contains(what).then_some(())
    });
    assert!(
        found.is_some(),
        "no {what:?} on screen; saw:\n{}",
        plain(&buf.lock().unwrap())
    );
}

fn running(marker: &str) -> bool {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            std::fs::read(e.path().join("cmdline"))
                .map(|c| String::from_utf8_lossy(&c).contains(marker))
                .unwrap_or(false)
        })
}

#[test]
fn a_turn_with_a_permission_in_a_pseudo_terminal() {
    if Command::new("script").arg("--version").output().is_err() {
        println!("skipped: `script` (util-linux) is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("frames.trace");
    let bin = env!("CARGO_BIN_EXE_strata-tui-demo");
    let cmd = format!(
        "stty cols 100 rows 30; exec {bin} --trace {}",
        trace.display()
    );
    let mut child = Command::new("script")
        .args(["-qfec", &cmd, "/dev/null"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (buf, reader) = strata_testkit::screen::record(child.stdout.take().unwrap());
    let mut input = child.stdin.take().unwrap();
    wait_for(&buf, "Ask anything");
    input.write_all(b"fix the greeting").unwrap();
    input.flush().unwrap();
    wait_for(&buf, "greeting");
    input.write_all(b"\r").unwrap();
    input.flush().unwrap();
    wait_for(&buf, "Permission");
    wait_for(&buf, "read");
    // Enter takes the highlighted choice: allow once.
    input.write_all(b"\r").unwrap();
    input.flush().unwrap();
    wait_for(&buf, "Done.");
    wait_for(&buf, "idle");
    input.write_all(b"\x03").unwrap();
    input.flush().unwrap();
    wait_for(&buf, "again");
    input.write_all(b"\x03").unwrap();
    input.flush().unwrap();
    let status =
        poll(Duration::from_secs(20), || child.try_wait().unwrap()).expect("the UI did not quit");
    assert!(status.success(), "{status:?}");
    reader.join().unwrap();
    let raw = String::from_utf8_lossy(&buf.lock().unwrap()).to_string();
    // The alternate screen was left and the cursor shown again.
    assert!(raw.contains("\x1b[?1049l"), "alternate screen not left");
    assert!(raw.contains("\x1b[?25h"), "cursor not shown again");
    assert!(plain(raw.as_bytes()).contains("Continue"));
    assert!(
        !running(&trace.display().to_string()),
        "a process is left running"
    );
    let frames = std::fs::read_to_string(&trace).unwrap();
    assert!(frames.lines().count() > 3, "frames were traced:\n{frames}");
}
