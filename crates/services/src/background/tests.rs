//! The registry with real processes: first output, reads, the limit, kills and the end of
//! every process when the registry ends them.

use std::time::Duration;

use serde_json::json;

use super::*;
use crate::process::live_members;

const LIMIT: Duration = Duration::from_secs(10);

fn shells(dir: &std::path::Path, max: usize) -> BackgroundShells {
    let truncate = Truncate::new(dir.join("out"), Clock::live());
    BackgroundShells::new(
        ChildProcessSpawner::live(),
        truncate,
        Clock::live(),
        max,
        Limits::default(),
    )
}

fn sh(script: &str) -> CommandSpec {
    CommandSpec::shell("/bin/sh", script)
}

/// The pid the script printed on its first line (its shell's, which leads its group).
fn first_pid(text: &str) -> i32 {
    text.lines()
        .next()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("no pid in {text:?}"))
}

async fn wait_ended(s: &BackgroundShells, session: &str, id: &str) -> ShellStatus {
    strata_testkit::poll_with_timeout(&format!("{id} to end"), LIMIT, || async {
        let status = s.list(session).into_iter().find(|i| i.id == id)?.status;
        status.ended().then_some(status)
    })
    .await
}

#[tokio::test]
async fn a_quick_command_reports_its_output_and_exit_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let s = shells(dir.path(), 8);
    let started = s
        .start("s1", "echo hi", sh("echo hi; exit 3"), None)
        .await
        .unwrap();
    assert_eq!(started.id, "bg_1");
    assert_eq!(started.status, ShellStatus::Exited { code: Some(3) });
    assert_eq!(started.output.text, "hi\n");
    assert!(
        s.take_notices("s1").is_empty(),
        "the start already told the model"
    );
}

#[tokio::test]
async fn reads_give_new_output_and_a_notice_comes_once() {
    let dir = tempfile::tempdir().unwrap();
    let go = dir.path().join("go");
    let s = shells(dir.path(), 8);
    let script = format!(
        "echo first; while [ ! -e '{}' ]; do sleep 0.02; done; echo second; exit 4",
        go.display()
    );
    let started = s.start("s1", "wait", sh(&script), None).await.unwrap();
    assert_eq!(started.status, ShellStatus::Running);
    assert_eq!(started.output.text, "first\n");
    assert!(
        s.read("s2", "bg_1", None).is_err(),
        "another session's shell"
    );
    std::fs::write(&go, "").unwrap();
    assert_eq!(
        wait_ended(&s, "s1", "bg_1").await,
        ShellStatus::Exited { code: Some(4) }
    );
    let notices = s.take_notices("s1");
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].last_lines, "first\nsecond");
    assert!(s.take_notices("s1").is_empty(), "once per shell");
    let read = s.read("s1", "bg_1", None).unwrap();
    assert_eq!(read.output.text, "second\n");
}

#[tokio::test]
async fn the_limit_counts_running_shells_and_a_kill_ends_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let s = shells(dir.path(), 2);
    let a = s
        .start("s1", "a", sh("echo $$; sleep 1000 & wait"), None)
        .await
        .unwrap();
    let pgid = first_pid(&a.output.text);
    s.start("s1", "b", sh("sleep 1000"), None).await.unwrap();
    let err = s.start("s1", "c", sh("true"), None).await.unwrap_err();
    assert!(matches!(err, BackgroundError::TooMany { max: 2 }), "{err}");
    assert!(
        err.to_string().contains("limits.background_shells"),
        "{err}"
    );
    s.start("s2", "other session", sh("true"), None)
        .await
        .unwrap();

    assert_eq!(
        live_members(pgid).unwrap().len(),
        2,
        "the shell and its sleep"
    );
    let killed = s.kill("s1", &a.id).await.unwrap();
    assert_eq!(killed.status, ShellStatus::Killed);
    assert!(live_members(pgid).unwrap().is_empty(), "the group is gone");
    assert!(
        s.take_notices("s1").is_empty(),
        "a killed shell needs no notice"
    );
    s.start("s1", "c", sh("true"), None).await.unwrap();
    s.end_all().await;
    assert!(s.list("s1").iter().all(|i| i.status.ended()));
}

#[tokio::test]
async fn descendants_left_behind_end_with_the_shell() {
    let dir = tempfile::tempdir().unwrap();
    let s = shells(dir.path(), 8);
    let started = s
        .start(
            "s1",
            "leave",
            sh("echo $$; sleep 1000 >/dev/null 2>&1 &"),
            None,
        )
        .await
        .unwrap();
    let pgid = first_pid(&started.output.text);
    wait_ended(&s, "s1", &started.id).await;
    assert!(
        live_members(pgid).unwrap().is_empty(),
        "the sleep was ended"
    );
}

#[tokio::test]
async fn end_session_ends_only_that_session() {
    let dir = tempfile::tempdir().unwrap();
    let s = shells(dir.path(), 8);
    s.start("s1", "a", sh("sleep 1000"), None).await.unwrap();
    s.start("s2", "b", sh("sleep 1000"), None).await.unwrap();
    s.end_session("s1").await;
    assert_eq!(s.list("s1")[0].status, ShellStatus::Killed);
    assert_eq!(s.list("s2")[0].status, ShellStatus::Running);
    s.end_all().await;
    assert_eq!(s.list("s2")[0].status, ShellStatus::Killed);
}

#[test]
fn the_limit_comes_from_config() {
    assert_eq!(max_from_config(&json!({})), Ok(DEFAULT_MAX));
    let three = json!({"limits": {"background_shells": 3}});
    assert_eq!(max_from_config(&three), Ok(3));
    let bad = max_from_config(&json!({"limits": {"background_shells": 0}})).unwrap_err();
    assert!(bad.contains("limits.background_shells"), "{bad}");
}
