//! The snapshot store over a long session: 500 scripted turns, each taking an undo point and
//! then changing files in a 440-file project that also holds a 50 MB untracked build folder
//! (rewritten a little every turn). Prints the store's size on disk, and the time per capture
//! and per revert at the first and the last turn. Run by `bench/snapshot_store.sh`.
//!
//! Environment: `TURNS` (default 500), `MAX_MB` (the budget, default 2048), `GIT=1` to make
//! the project a git repository with its sources committed (default: a plain folder, where
//! every file counts as untracked).

// A measuring program: a failure should stop it loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_services::flags::RuntimeFlags;
use strata_services::process::ChildProcessSpawner;
use strata_services::snapshot::{Snapshots, disk_usage};

const SOURCE_FILES: usize = 440;
const BUILD_FILES: usize = 300;
const BUILD_FILE_BYTES: usize = 175 * 1024;
/// Sessions of this many turns; all but the last few are deleted as the run goes on.
const TURNS_PER_SESSION: usize = 10;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Bytes that do not compress (xorshift): build output as git sees it.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn source(i: usize) -> String {
    format!("src/m{:02}/file{i:03}.rs", i % 22)
}

/// 440 source files of about 2 KB in 22 folders, and the build folder.
fn make_project(root: &Path, git: bool) {
    for i in 0..SOURCE_FILES {
        let path = root.join(source(i));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let body: String = (0..40)
            .map(|l| format!("pub fn f{i}_{l}() -> u32 {{ {l} }}\n"))
            .collect();
        fs::write(path, body).unwrap();
    }
    fs::create_dir_all(root.join("build")).unwrap();
    for i in 0..BUILD_FILES {
        fs::write(
            root.join(format!("build/obj{i:03}.o")),
            noise(i as u64, BUILD_FILE_BYTES),
        )
        .unwrap();
    }
    if git {
        let run = |args: &[&str]| {
            let ok = Command::new("git")
                .args(args)
                .current_dir(root)
                .status()
                .unwrap()
                .success();
            assert!(ok, "git {args:?}");
        };
        run(&["init", "--quiet"]);
        run(&["add", "src"]);
        run(&[
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@localhost",
            "commit",
            "-qm",
            "src",
        ]);
    }
}

/// One turn's changes: five source files get a line, every tenth turn adds a file, and one
/// build object is rewritten.
fn change(root: &Path, turn: usize) {
    for k in 0..5 {
        let path = root.join(source((turn * 5 + k) % SOURCE_FILES));
        let mut text = fs::read_to_string(&path).unwrap();
        text.push_str(&format!("// turn {turn}\n"));
        fs::write(path, text).unwrap();
    }
    if turn.is_multiple_of(10) {
        fs::write(
            root.join(format!("src/new{turn:03}.rs")),
            "pub fn new() {}\n",
        )
        .unwrap();
    }
    fs::write(
        root.join(format!("build/obj{:03}.o", turn % BUILD_FILES)),
        noise(1000 + turn as u64, BUILD_FILE_BYTES),
    )
    .unwrap();
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// What the turns measured.
#[derive(Default)]
struct Timings {
    captures: Vec<Duration>,
    budgets: Vec<Duration>,
    reverts: Vec<Duration>,
    pruned: usize,
}

#[tokio::main]
async fn main() {
    let turns = env_or("TURNS", 500) as usize;
    let max_bytes = env_or("MAX_MB", 2048) * 1024 * 1024;
    let git = env_or("GIT", 0) == 1;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    make_project(&root, git);
    let flags = RuntimeFlags::for_dirs(dir.path().join("data"), dir.path().join("cfg"));
    let snapshots = Snapshots::new(ChildProcessSpawner::live(), &flags);
    snapshots.set_enabled(true);
    // Sessions older than the last three are deleted, so their snapshots may go.
    let current = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = current.clone();
    snapshots.set_liveness(Arc::new(move |id: &str| {
        let n: usize = id.trim_start_matches("ses_").parse().unwrap_or(0);
        n + 3 > seen.load(std::sync::atomic::Ordering::Relaxed)
    }));
    let store = dir.path().join("data/snapshot");
    let timings = play(&snapshots, &root, turns, max_bytes, &current).await;
    let skipped = snapshots.skipped(&root).await.unwrap();
    let before_gc = disk_usage(&store);
    collect_garbage(&store);
    println!(
        "snapshot_store: {turns} turns, {SOURCE_FILES} source files, build folder of {BUILD_FILES} × {} KiB, git project: {git}",
        BUILD_FILE_BYTES / 1024
    );
    println!(
        "project on disk:        {:.1} MiB",
        disk_usage(&root) as f64 / 1048576.0
    );
    println!(
        "store after the run:    {:.1} MiB (budget {} MiB, {} snapshots dropped); \
         after a git gc: {:.1} MiB",
        before_gc as f64 / 1048576.0,
        max_bytes / 1048576,
        timings.pruned,
        disk_usage(&store) as f64 / 1048576.0
    );
    println!(
        "left out:               {}",
        skipped
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ")
    );
    report(&timings, turns);
}

/// Plays `turns` turns: an undo point, the budget check, a change, a timed revert.
async fn play(
    snapshots: &Snapshots,
    root: &Path,
    turns: usize,
    max_bytes: u64,
    current: &std::sync::atomic::AtomicUsize,
) -> Timings {
    let mut timings = Timings::default();
    for turn in 1..=turns {
        let session = format!("ses_{:04}", turn / TURNS_PER_SESSION);
        current.store(
            turn / TURNS_PER_SESSION,
            std::sync::atomic::Ordering::Relaxed,
        );
        let t = Instant::now();
        let mark = snapshots
            .mark(root, &session, &format!("msg_{turn:04}"))
            .await
            .unwrap()
            .unwrap();
        timings.captures.push(t.elapsed());
        let t = Instant::now();
        timings.pruned += snapshots
            .enforce_budget(root, max_bytes)
            .await
            .unwrap()
            .pruned;
        timings.budgets.push(t.elapsed());
        change(root, turn);
        // A revert to the turn's undo point, then forward again (not timed) to go on.
        let after = snapshots.capture(root).await.unwrap();
        let t = Instant::now();
        snapshots.restore(root, &mark).await.unwrap();
        timings.reverts.push(t.elapsed());
        snapshots.restore(root, &after).await.unwrap();
    }
    timings
}

/// `git gc --prune=now` in the store's one shadow repository.
fn collect_garbage(store: &Path) {
    let repo = fs::read_dir(store).unwrap().next().unwrap().unwrap().path();
    let ok = Command::new("git")
        .args([
            "--git-dir",
            &repo.to_string_lossy(),
            "gc",
            "--prune=now",
            "--quiet",
        ])
        .status()
        .unwrap()
        .success();
    assert!(ok, "git gc");
}

fn report(t: &Timings, turns: usize) {
    let last = turns - 1;
    let tail = turns.saturating_sub(10);
    println!(
        "capture, turn 1 / {turns}:  {} / {}   (median of first 10: {}, last 10: {})",
        ms(t.captures[0]),
        ms(t.captures[last]),
        ms(median(t.captures[..10.min(turns)].to_vec())),
        ms(median(t.captures[tail..].to_vec()))
    );
    println!(
        "budget check, 1 / {turns}:  {} / {}   (median of last 10: {})",
        ms(t.budgets[0]),
        ms(t.budgets[last]),
        ms(median(t.budgets[tail..].to_vec()))
    );
    println!(
        "revert, turn 1 / {turns}:   {} / {}   (median of first 10: {}, last 10: {})",
        ms(t.reverts[0]),
        ms(t.reverts[last]),
        ms(median(t.reverts[..10.min(turns)].to_vec())),
        ms(median(t.reverts[tail..].to_vec()))
    );
}
