//! Crash under load: a real `strata serve` runs a load of concurrent sessions (each turn a
//! `read`, a bash call that sleeps, a `read` and an answer) while clients read
//! `/global/event`; at a random moment after the first bash call sleeps it is killed with
//! SIGKILL and started again on the same data directory, and that is repeated. After every
//! restart: `PRAGMA integrity_check` is ok, every stored item a client had received is still
//! in the store, no tool call or turn is left open, and every process group the dead server's
//! bash calls started is ended.
//!
//! CI runs 3 rounds of 20 sessions and 5 clients (the 2-minute budget on two shared cores);
//! `bench/crash.sh` runs 20 rounds of the 50-session, 20-client load and prints the tally.
//! `STRATA_CRASH_ROUNDS`, `STRATA_CRASH_SESSIONS`, `STRATA_CRASH_CLIENTS`, `STRATA_CRASH_SEED`
//! and `STRATA_BIN` change the rounds, the load, the kill points and the binary.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use strata_testkit::model_server::ModelServer;
use strata_testkit::{await_with_timeout, poll_within};
use tokio::sync::{oneshot, watch};

use crate::common::{Project, strata_bin};
use crate::e2e_crash_support::{
    Dice, Items, KEY, Progress, check_store, live_groups, record, script,
};
use crate::e2e_serve_support::{LIMIT, Served, prompt, serve_with};

/// The kill comes at most this many milliseconds (drawn evenly) after the first bash call
/// sleeps, or when every turn ended, whichever is first. A round whose turns all ended before
/// its kill narrows the window of the next ones to the time they took, so that on a fast
/// server (a release build) the kills still fall inside the load.
const KILL_WITHIN_MS: usize = 8_000;

/// The narrowest the window gets.
const KILL_WITHIN_MIN: Duration = Duration::from_millis(500);

/// The load and the binary, from the environment.
#[derive(Debug)]
struct Load {
    rounds: usize,
    sessions: usize,
    clients: usize,
    bin: PathBuf,
}

fn number(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

impl Load {
    fn from_env() -> Load {
        Load {
            rounds: number("STRATA_CRASH_ROUNDS", 3),
            sessions: number("STRATA_CRASH_SESSIONS", 20),
            clients: number("STRATA_CRASH_CLIENTS", 5),
            bin: std::env::var_os("STRATA_BIN")
                .map(PathBuf::from)
                .unwrap_or_else(|| strata_bin().to_path_buf()),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_under_load_restarts_with_its_store_sound() {
    strata_testkit::require_external!("sleep", "apt-get install coreutils");
    let load = Load::from_env();
    let p = Project::new();
    p.file("a.txt", "hello\n");
    p.file("b.txt", "world\n");
    let model = ModelServer::start(vec![]);
    script(&model);
    let mut dice = Dice::new();
    let began = Instant::now();
    let mut served = serve_with(&load.bin, &p, &model, &[]);
    let (mut failures, mut orphans, mut mid_load) = (Vec::new(), 0, 0);
    let mut window = Duration::from_millis(KILL_WITHIN_MS as u64);
    for r in 1..=load.rounds {
        let (next, outcome) = round(&p, &model, served, r, &load, &mut dice, &mut window).await;
        served = next;
        match outcome {
            Ok(o) => {
                eprintln!("crash round {r}: ok; {}", o.line);
                orphans += o.orphans;
                mid_load += usize::from(o.mid_load);
            }
            Err(e) => {
                eprintln!("crash round {r}: FAILED: {e}");
                failures.push(format!("round {r}: {e}"));
            }
        }
    }
    drop(served);
    eprintln!(
        "crash: {} of {} rounds passed ({mid_load} killed with turns still running), \
         {orphans} orphaned process groups ended, {:.1} s",
        load.rounds - failures.len(),
        load.rounds,
        began.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

/// How a passed round went.
#[derive(Debug)]
struct Outcome {
    line: String,
    orphans: usize,
    /// Some turns were still running when the server was killed.
    mid_load: bool,
}

/// One round: load the running server, kill it at a random point, start it again, check.
/// Gives back the new server.
async fn round(
    p: &Project,
    model: &ModelServer,
    mut served: Served,
    r: usize,
    load: &Load,
    dice: &mut Dice,
    window: &mut Duration,
) -> (Served, Result<Outcome, String>) {
    let (progress, mut seen) = watch::channel(Progress::default());
    let mut readers = Vec::new();
    for c in 0..load.clients {
        let (tx, rx) = oneshot::channel();
        let progress = (c == 0).then(|| progress.clone());
        readers.push(tokio::spawn(record(served.url.clone(), tx, progress)));
        await_with_timeout("an event client to connect", LIMIT, rx)
            .await
            .expect("the client task is alive");
    }
    drop(progress);
    let started = start_turns(&served, r, load.sessions).await;
    // The first sleeping bash call marks the middle of the load; the kill comes a random
    // time after it (sooner if every turn ends), so it falls in any later phase.
    let all_idle = |s: &Progress| s.idle >= load.sessions;
    poll_within(LIMIT, || async {
        (all_idle(&seen.borrow()) || !live_groups(&p.dir).is_empty()).then_some(())
    })
    .await;
    let sleeping = Instant::now();
    let kill_at = Duration::from_millis(dice.roll(0, window.as_millis() as usize) as u64);
    if tokio::time::timeout(kill_at, seen.wait_for(all_idle))
        .await
        .is_ok()
    {
        *window = (*window).min(sleeping.elapsed().max(KILL_WITHIN_MIN));
    }
    let at = *seen.borrow();
    served.child.kill().expect("SIGKILL the server");
    served.child.wait().expect("reap the server");
    let killed_after = started.elapsed();
    let orphans = live_groups(&p.dir);
    let mut clients: Vec<Items> = Vec::new();
    for reader in readers {
        let items = await_with_timeout("an event stream to end", LIMIT, reader).await;
        clients.push(items.expect("the client task ends cleanly"));
    }
    let restarted = serve_with(&load.bin, p, model, &[]);
    let outcome = check(&p.dir, &p.data, &clients, orphans.len()).await;
    let outcome = outcome.map(|(received, interrupted)| Outcome {
        line: format!(
            "killed {:.2} s after the prompts, at {} stored items and {} ended turns seen; \
             {received} received items all stored; {} orphaned groups ended; \
             {interrupted} calls closed as interrupted so far",
            killed_after.as_secs_f64(),
            at.stored,
            at.idle,
            orphans.len()
        ),
        orphans: orphans.len(),
        mid_load: at.idle < load.sessions,
    });
    (restarted, outcome)
}

/// Creates `sessions` sessions and sends each its prompt at once, without waiting for the
/// turns; returns when the prompts went out.
async fn start_turns(served: &Served, r: usize, sessions: usize) -> Instant {
    let mut ids = Vec::new();
    for _ in 0..sessions {
        ids.push(served.session().await);
    }
    let started = Instant::now();
    let client = reqwest::Client::new();
    let mut sent = tokio::task::JoinSet::new();
    for (n, id) in ids.iter().enumerate() {
        let text = format!("{KEY}{r}-{n}: read the files, sleep a little, then answer.");
        let request = client
            .post(format!("{}/session/{id}/prompt_async", served.url))
            .json(&prompt(&text));
        sent.spawn(async move { request.send().await.map(|r| r.status()) });
    }
    while let Some(status) = sent.join_next().await {
        let status = status
            .expect("the prompt task ends")
            .expect("POST prompt_async answers");
        assert!(status.is_success(), "prompt_async: {status}");
    }
    started
}

/// The checks after a restart; gives the received items checked and the interrupted calls.
async fn check(
    project: &Path,
    data: &Path,
    clients: &[Items],
    orphans: usize,
) -> Result<(usize, usize), String> {
    let ended = poll_within(LIMIT, || async {
        live_groups(project).is_empty().then_some(())
    })
    .await;
    if ended.is_none() {
        return Err(format!(
            "of {orphans} process groups the dead server left, these still run after the \
             restart: {:?}",
            live_groups(project)
        ));
    }
    let checked = check_store(data, clients)?;
    Ok((checked.received, checked.interrupted))
}
