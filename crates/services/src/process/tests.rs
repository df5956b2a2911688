//! Tests with real processes: output capture, exit codes, errors, and that stopping or dropping
//! a child leaves no member of its process group alive.

use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::group::live_members;
use super::*;

const LONG: Option<Duration> = Some(Duration::from_secs(30));

fn sh(script: &str) -> CommandSpec {
    CommandSpec::shell("sh", script)
}

/// Polls `cond` until it holds or `limit` passes; returns whether it held.
async fn eventually(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let held = strata_testkit::poll_within(limit, || {
        let held = cond();
        async move { held.then_some(()) }
    });
    held.await.is_some()
}

fn members(child_pid: u32) -> usize {
    live_members(child_pid as i32).map(|m| m.len()).unwrap_or(0)
}

async fn drain(mut rx: mpsc::Receiver<Chunk>) -> Vec<Chunk> {
    let mut out = Vec::new();
    while let Some(chunk) = rx.recv().await {
        out.push(chunk);
    }
    out
}

fn joined(chunks: &[Chunk], pipe: Pipe) -> String {
    let bytes: Vec<u8> = chunks
        .iter()
        .filter(|c| c.stream == pipe)
        .flat_map(|c| c.data.iter().copied())
        .collect();
    String::from_utf8(bytes).unwrap()
}

/// Starts a shell whose two background sleeps join it in its group, and waits until all
/// three are running.
async fn spawn_tree(script: &str, grace: Duration) -> Child {
    let mut child = ChildProcessSpawner::live()
        .spawn(sh(script).kill_grace(grace))
        .await
        .unwrap();
    let pid = child.pid();
    assert!(
        eventually(Duration::from_secs(10), || members(pid) >= 3).await,
        "the process tree of `{}` never started",
        child.command()
    );
    drop(child.output());
    child
}

const TREE: &str = "sleep 100 & sleep 100 & wait";

#[tokio::test]
async fn captures_stdout_and_stderr_and_the_exit_code() {
    let mut child = ChildProcessSpawner::live()
        .spawn(sh("echo out; echo err >&2; exit 7"))
        .await
        .unwrap();
    let rx = child.output();
    let (outcome, chunks) = tokio::join!(child.wait(LONG, CancellationToken::new()), drain(rx));
    assert_eq!(outcome.unwrap(), Outcome::Exited { code: Some(7) });
    assert_eq!(joined(&chunks, Pipe::Stdout), "out\n");
    assert_eq!(joined(&chunks, Pipe::Stderr), "err\n");
}

#[tokio::test]
async fn output_is_merged_in_arrival_order() {
    let script = "echo one; sleep 0.1; echo two >&2; sleep 0.1; echo three";
    let mut child = ChildProcessSpawner::live().spawn(sh(script)).await.unwrap();
    let chunks = drain(child.output()).await;
    let seen: Vec<(Pipe, &[u8])> = chunks.iter().map(|c| (c.stream, &c.data[..])).collect();
    assert_eq!(
        seen,
        vec![
            (Pipe::Stdout, &b"one\n"[..]),
            (Pipe::Stderr, &b"two\n"[..]),
            (Pipe::Stdout, &b"three\n"[..]),
        ]
    );
}

#[tokio::test]
async fn a_signal_death_has_no_exit_code() {
    let mut child = ChildProcessSpawner::live()
        .spawn(sh("kill -9 $$"))
        .await
        .unwrap();
    let outcome = child.wait(LONG, CancellationToken::new()).await.unwrap();
    assert_eq!(outcome, Outcome::Exited { code: None });
}

#[tokio::test]
async fn runs_in_the_given_cwd_with_the_given_env() {
    let dir = tempfile::tempdir().unwrap();
    let real = std::fs::canonicalize(dir.path()).unwrap();
    let spec = sh("echo \"$STRATA_TEST_VALUE\"; pwd -P")
        .cwd(dir.path())
        .env("STRATA_TEST_VALUE", "forty two");
    let out = ChildProcessSpawner::live()
        .run(spec, Duration::from_secs(30))
        .await
        .unwrap();
    assert!(out.success());
    assert_eq!(
        out.stdout_text(),
        format!("forty two\n{}\n", real.display())
    );
}

#[tokio::test]
async fn a_missing_program_is_named() {
    let err = ChildProcessSpawner::live()
        .spawn(CommandSpec::new("strata-no-such-program-xyz").arg("--help"))
        .await
        .unwrap_err();
    assert!(matches!(err, ProcessError::NotFound { .. }), "{err:?}");
    assert!(
        err.to_string().contains("strata-no-such-program-xyz"),
        "{err}"
    );
}

#[tokio::test]
async fn a_missing_cwd_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("not-here");
    let err = ChildProcessSpawner::live()
        .spawn(CommandSpec::new("true").cwd(&gone))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ProcessError::CwdMissing { cwd, .. } if *cwd == gone),
        "{err:?}"
    );
    assert!(
        err.to_string().contains(&gone.display().to_string()),
        "{err}"
    );
}

#[tokio::test]
async fn a_piped_stdin_reaches_the_child_and_closing_it_ends_cat() {
    use tokio::io::AsyncWriteExt;
    let mut child = ChildProcessSpawner::live()
        .spawn(CommandSpec::new("cat").stdin_piped())
        .await
        .unwrap();
    let rx = child.output();
    let mut stdin = child.stdin().expect("a piped stdin");
    assert!(child.stdin().is_none(), "taken once");
    stdin.write_all(b"ping\n").await.unwrap();
    drop(stdin);
    let outcome = child.wait(LONG, CancellationToken::new()).await.unwrap();
    assert_eq!(outcome, Outcome::Exited { code: Some(0) });
    assert_eq!(joined(&drain(rx).await, Pipe::Stdout), "ping\n");
}

#[tokio::test]
async fn has_exited_sees_the_process_end_without_waiting() {
    let mut child = ChildProcessSpawner::live()
        .spawn(CommandSpec::new("sleep").arg("30"))
        .await
        .unwrap();
    assert!(!child.has_exited());
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.pid() as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    assert!(
        eventually(Duration::from_secs(10), || child.has_exited()).await,
        "a killed child is seen to have exited"
    );
    // Waiting afterwards still reports how it ended.
    let outcome = child.wait(LONG, CancellationToken::new()).await.unwrap();
    assert_eq!(outcome, Outcome::Exited { code: None });
}

#[tokio::test]
async fn stdin_is_closed_so_cat_ends_at_once() {
    let mut child = ChildProcessSpawner::live()
        .spawn(CommandSpec::new("cat"))
        .await
        .unwrap();
    let outcome = child
        .wait(Some(Duration::from_secs(10)), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::Exited { code: Some(0) });
    // Whatever this test process's own stdin is, the child's is /dev/null.
    let out = ChildProcessSpawner::live()
        .run(
            CommandSpec::new("readlink").arg("/proc/self/fd/0"),
            Duration::from_secs(30),
        )
        .await
        .unwrap();
    assert_eq!(out.stdout_text(), "/dev/null\n");
}

#[tokio::test]
async fn a_timeout_stops_the_whole_tree() {
    // A long grace: finishing early proves SIGTERM ended the tree, not the SIGKILL fallback.
    let mut child = spawn_tree(TREE, Duration::from_secs(20)).await;
    let pid = child.pid();
    let started = Instant::now();
    let outcome = child
        .wait(Some(Duration::from_millis(100)), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::TimedOut);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(eventually(Duration::from_secs(5), || members(pid) == 0).await);
}

#[tokio::test]
async fn cancelling_stops_the_whole_tree() {
    let mut child = spawn_tree(TREE, Duration::from_secs(20)).await;
    let pid = child.pid();
    let token = CancellationToken::new();
    let trigger = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        trigger.cancel();
    });
    let outcome = child.wait(LONG, token).await.unwrap();
    assert_eq!(outcome, Outcome::Cancelled);
    assert!(eventually(Duration::from_secs(5), || members(pid) == 0).await);
    // Waiting again reports the same end.
    let again = child.wait(LONG, CancellationToken::new()).await.unwrap();
    assert_eq!(again, Outcome::Cancelled);
}

#[tokio::test]
async fn dropping_a_running_child_kills_the_whole_tree() {
    let child = spawn_tree(TREE, Duration::from_secs(20)).await;
    let pid = child.pid();
    drop(child);
    assert!(eventually(Duration::from_secs(5), || members(pid) == 0).await);
}

#[tokio::test]
async fn a_tree_ignoring_sigterm_is_killed_after_the_grace() {
    let grace = Duration::from_millis(300);
    let mut child = spawn_tree(&format!("trap '' TERM; {TREE}"), grace).await;
    let pid = child.pid();
    let started = Instant::now();
    let outcome = child
        .wait(Some(Duration::from_millis(50)), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::TimedOut);
    assert!(started.elapsed() >= grace, "SIGKILL came before the grace");
    assert!(eventually(Duration::from_secs(5), || members(pid) == 0).await);
}

#[test]
fn huge_durations_saturate_instead_of_overflowing() {
    let far = child::deadline_after(Duration::MAX);
    assert!(far > tokio::time::Instant::now() + Duration::from_secs(365 * 24 * 3600));
}

#[tokio::test]
async fn fast_large_output_arrives_complete() {
    let mut child = ChildProcessSpawner::live()
        .spawn(CommandSpec::new("seq").args(["1", "200000"]))
        .await
        .unwrap();
    let rx = child.output();
    let (outcome, chunks) = tokio::join!(child.wait(LONG, CancellationToken::new()), drain(rx));
    assert_eq!(outcome.unwrap(), Outcome::Exited { code: Some(0) });
    let expected: String = (1..=200_000).map(|i| format!("{i}\n")).collect();
    assert_eq!(joined(&chunks, Pipe::Stdout), expected);
}

#[tokio::test]
async fn waiting_without_reading_output_does_not_block_the_child() {
    let mut child = ChildProcessSpawner::live()
        .spawn(CommandSpec::new("seq").args(["1", "2000000"]))
        .await
        .unwrap();
    let outcome = child.wait(LONG, CancellationToken::new()).await.unwrap();
    assert_eq!(outcome, Outcome::Exited { code: Some(0) });
}

#[tokio::test]
async fn run_collects_both_streams_and_times_out_with_the_command_named() {
    let spawner = ChildProcessSpawner::live();
    let out = spawner
        .run(sh("echo a; echo b >&2; exit 3"), Duration::from_secs(30))
        .await
        .unwrap();
    assert_eq!(
        (out.code, out.stdout_text(), out.stderr_text()),
        (Some(3), "a\n".into(), "b\n".into())
    );

    let spec = sh("sleep 100").kill_grace(Duration::from_millis(200));
    let err = spawner
        .run(spec, Duration::from_millis(100))
        .await
        .unwrap_err();
    assert!(matches!(err, ProcessError::TimedOut { .. }), "{err:?}");
    assert!(err.to_string().contains("sleep 100"), "{err}");
}
