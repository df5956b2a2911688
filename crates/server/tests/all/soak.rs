//! Soak: many turns through the in-process server core ([`Local`]) with the scripted model,
//! each a `read` call and an answer; first many turns in one session, then many short
//! sessions. The process's RSS is sampled every 100 turns and a line fitted through the warm
//! samples; open file descriptors, threads and live tokio tasks are counted before and after.
//!
//! CI runs a small soak that fails when descriptors or tasks are left behind;
//! `bench/soak.sh` runs the full one (`--ignored`; sizes from `STRATA_SOAK_*`).

use std::time::{Duration, Instant};

use strata_protocol::event::SessionStatus;
use strata_protocol::wire::{ModelChoice, PromptBody, PromptPart, ServerEvent, SessionCreateBody};
use strata_server::local::{Local, LocalEvent};
use strata_testkit::model_server::{SentRequest, Turn};
use tokio::sync::mpsc::Receiver;

use super::fixture::{MODEL, TURN, server};

/// What the process holds at one moment.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Usage {
    rss_kib: u64,
    fds: usize,
    threads: u64,
    tasks: usize,
}

fn status_field(status: &str, name: &str) -> u64 {
    status
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn usage() -> Usage {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    Usage {
        rss_kib: status_field(&status, "VmRSS:"),
        fds: std::fs::read_dir("/proc/self/fd").map_or(0, Iterator::count),
        threads: status_field(&status, "Threads:"),
        tasks: tokio::runtime::Handle::current()
            .metrics()
            .num_alive_tasks(),
    }
}

/// Least-squares slope of `y` over `x`.
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    let (mx, my) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x / n, b + y / n));
    let num: f64 = points.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let den: f64 = points.iter().map(|(x, _)| (x - mx) * (x - mx)).sum();
    if den == 0.0 { 0.0 } else { num / den }
}

#[test]
fn the_slope_of_points_on_a_line_is_its_slope() {
    let line: Vec<(f64, f64)> = (0..10).map(|x| (x as f64, 3.0 * x as f64 + 7.0)).collect();
    assert!((slope(&line) - 3.0).abs() < 1e-9);
    assert_eq!(slope(&[(1.0, 5.0)]), 0.0);
}

fn prompt(text: &str) -> PromptBody {
    PromptBody {
        parts: vec![PromptPart::Text { text: text.into() }],
        model: Some(ModelChoice {
            provider_id: MODEL.0.into(),
            model_id: MODEL.1.into(),
        }),
        agent: None,
        variant: None,
        message_id: None,
        no_reply: None,
    }
}

/// One turn of session `id`: prompt, then read events until it is idle again.
async fn turn(local: &Local, rx: &mut Receiver<LocalEvent>, id: &str, n: usize) {
    local
        .prompt(id, prompt(&format!("soak turn {n}: read a.txt")))
        .await
        .unwrap();
    loop {
        let event = tokio::time::timeout(TURN, rx.recv())
            .await
            .expect("an event in time")
            .expect("the stream stays open");
        if let LocalEvent::Frame(f) = event
            && let ServerEvent::SessionStatus {
                session_id,
                status: SessionStatus::Idle,
            } = &f.envelope.event
            && session_id == id
        {
            return;
        }
    }
}

/// Sizes of a soak run.
#[derive(Debug)]
struct Sizes {
    long_turns: usize,
    sessions: usize,
    session_turns: usize,
}

/// Runs the soak; returns the usage before and after and the RSS samples (turn, KiB).
async fn soak(sizes: &Sizes) -> (Usage, Usage, Vec<(f64, f64)>) {
    let s = server(vec![]).file("a.txt", "hello\n").start().await;
    // Each request: a `read` unless the last message is its result, then an answer.
    s.model.respond_with(|_, body| {
        let sent = SentRequest::from_body(body);
        if sent.tools.is_empty() {
            return Some(Turn::text("Soak title"));
        }
        let answered = sent.messages.last().is_some_and(|m| m.role == "tool");
        Some(if answered {
            Turn::text("Read it.")
        } else {
            Turn::tool_call("call_read", "read", r#"{"filePath":"a.txt"}"#)
        })
    });
    let local = Local::new(s.core.clone(), s.dir.clone());
    let mut rx = local.events(None);
    let new_session = || local.create_session(SessionCreateBody::default());
    let first = new_session().await.unwrap().id;
    turn(&local, &mut rx, &first, 0).await;
    let before = usage();
    let mut samples = Vec::new();
    let mut done = 0;
    let started = Instant::now();
    let mut sample = |done: usize| {
        if done.is_multiple_of(100) {
            let u = usage();
            samples.push((done as f64, u.rss_kib as f64));
            eprintln!(
                "soak: turn {done}: RSS {} KiB, {} fds, {} threads, {} tasks, {:.1} s",
                u.rss_kib,
                u.fds,
                u.threads,
                u.tasks,
                started.elapsed().as_secs_f64()
            );
        }
    };
    for n in 1..=sizes.long_turns {
        turn(&local, &mut rx, &first, n).await;
        // The scripted model lives in this process; its request log is not the server's.
        s.model.clear_log();
        done += 1;
        sample(done);
    }
    for _ in 0..sizes.sessions {
        let id = new_session().await.unwrap().id;
        for n in 0..sizes.session_turns {
            turn(&local, &mut rx, &id, n).await;
            s.model.clear_log();
            done += 1;
            sample(done);
        }
    }
    // Settle: what a finished turn leaves to end in the background gets a moment to end.
    let after = strata_testkit::poll_within(Duration::from_secs(5), || async {
        let u = usage();
        (u.fds <= before.fds && u.tasks <= before.tasks).then_some(u)
    })
    .await
    .unwrap_or_else(usage);
    drop(rx);
    s.shutdown().await;
    (before, after, samples)
}

fn number(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Set in the child process the short soak re-runs itself in.
const ALONE: &str = "STRATA_SOAK_ALONE";

/// Descriptors and tasks are counted for the whole process, so the short soak runs alone in
/// a child process of this test binary: other tests running beside it open their own.
#[test]
fn a_short_soak_leaves_no_descriptor_or_task_behind() {
    let name = "soak::short_soak_alone";
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            name,
            "--exact",
            "--ignored",
            "--test-threads=1",
            "--nocapture",
        ])
        .env(ALONE, "1")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("1 passed"), "the soak ran: {text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run alone by a_short_soak_leaves_no_descriptor_or_task_behind"]
async fn short_soak_alone() {
    assert!(
        std::env::var_os(ALONE).is_some(),
        "run through a_short_soak_leaves_no_descriptor_or_task_behind"
    );
    let sizes = Sizes {
        long_turns: 30,
        sessions: 10,
        session_turns: 2,
    };
    let (before, after, _) = soak(&sizes).await;
    assert!(
        after.fds <= before.fds,
        "descriptors left: {before:?} → {after:?}"
    );
    assert!(
        after.tasks <= before.tasks,
        "tasks left: {before:?} → {after:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the full soak, run by bench/soak.sh"]
async fn soak_full() {
    let sizes = Sizes {
        long_turns: number("STRATA_SOAK_LONG_TURNS", 2000),
        sessions: number("STRATA_SOAK_SESSIONS", 200),
        session_turns: number("STRATA_SOAK_SESSION_TURNS", 10),
    };
    let (before, after, samples) = soak(&sizes).await;
    // Warm: past the first fifth of the turns.
    let warm_from = samples.len() / 5;
    let per_turn = slope(&samples[warm_from..]);
    let total = samples.last().map_or(0.0, |s| s.0);
    eprintln!("soak: {sizes:?}, {total} turns");
    eprintln!("soak: before {before:?}");
    eprintln!("soak: after  {after:?}");
    eprintln!("soak: warm RSS slope {per_turn:.2} KiB/turn (target < 100)");
}
