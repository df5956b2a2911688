//! The load bench behind `bench/serve_load.sh` (`cargo bench -p strata-server --bench
//! serve_load`; a measurement, so not part of `cargo test`). It starts a server
//! process — `strata serve` (`STRATA_BIN`) or `opencode serve` (`BENCH_SERVER=opencode`) — on a
//! fresh temporary project, data and config, with the scripted model as an OpenAI-compatible
//! provider, runs the load of `load_drive` against it `BENCH_RUNS` times and prints one
//! `bench:` line per run and the medians. Definitions are in the script's header.

// A measurement harness: a failed step ends it with a panic, as in a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use strata_testkit::model_server::ModelServer;

// The load driver is shared with the load test of the integration binary.
#[allow(dead_code)]
#[path = "../tests/all/load_deltas.rs"]
mod load_deltas;
#[allow(dead_code)]
#[path = "../tests/all/load_drive.rs"]
mod load_drive;

use load_drive::{Figures, Target, percentile};

fn var(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A server process, killed when dropped.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the server and returns it with the URL it printed.
fn start(kind: &str, root: &Path, project: &Path, model: &ModelServer) -> (Process, String) {
    let mut cmd = match kind {
        "opencode" => {
            let config = serde_json::json!({
                "autoupdate": false,
                "share": "disabled",
                "model": "mock/mock",
                "small_model": "mock/mock",
                "provider": {"mock": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Scripted",
                    "options": {"baseURL": model.url(), "apiKey": "scripted"},
                    "models": {"mock": {"name": "Scripted"}},
                }},
            });
            let mut cmd = Command::new("opencode");
            cmd.args(["serve", "--port", "0", "--hostname", "127.0.0.1", "--pure"])
                .env("OPENCODE_CONFIG_CONTENT", config.to_string());
            for d in ["data", "config", "state", "cache"] {
                let dir = root.join(format!("xdg-{d}"));
                std::fs::create_dir_all(&dir).unwrap();
                cmd.env(format!("XDG_{}_HOME", d.to_uppercase()), dir);
            }
            cmd
        }
        _ => {
            let bin = std::env::var("STRATA_BIN").expect(
                "STRATA_BIN names the strata binary to bench (bench/serve_load.sh sets it)",
            );
            let config = serde_json::json!({
                "model": "openai/scripted-model",
                "provider": {"openai": {"baseURL": model.url()}},
            });
            std::fs::write(project.join("strata.json"), config.to_string()).unwrap();
            let mut cmd = Command::new(bin);
            cmd.args(["serve", "--port", "0", "--dir"])
                .arg(project)
                .env("STRATA_DATA_DIR", root.join("data"))
                .env("STRATA_CONFIG_DIR", root.join("config"))
                .env_remove("STRATA_LOG");
            cmd
        }
    };
    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    cmd.current_dir(project)
        .env("HOME", &home)
        .env_remove("OPENAI_API_KEY")
        .env_remove("STRATA_SERVER_PASSWORD")
        .env_remove("OPENCODE_SERVER_PASSWORD")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(root.join("server.log")).unwrap());
    let mut child = cmd.spawn().expect("the server starts");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://")) {
                let _ = tx.send(url.to_string());
            }
        }
    });
    let process = Process(child);
    let url = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the server printed its URL within a minute");
    (process, url)
}

/// Peak resident set (VmHWM) in KiB of `pid` and, summed, of its living descendants.
fn peak_rss(pid: u32) -> (u64, u64) {
    let hwm = |pid: u32| -> u64 {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmHWM:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            })
            .unwrap_or(0)
    };
    let children = |pid: u32| -> Vec<u32> {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            return vec![];
        };
        tasks
            .flatten()
            .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
            .flat_map(|s| {
                s.split_whitespace()
                    .filter_map(|p| p.parse().ok())
                    .collect::<Vec<u32>>()
            })
            .collect()
    };
    let (mut sum, mut todo) = (0, children(pid));
    while let Some(p) = todo.pop() {
        sum += hwm(p);
        todo.extend(children(p));
    }
    (hwm(pid), sum)
}

/// CPU time (user + system) `pid` used so far, in seconds (`self` for this process).
fn cpu_seconds(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces) end with `)`.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|v| v.parse::<f64>().ok()))
        .sum();
    // Linux reports these in clock ticks of 100 Hz on every common configuration.
    ticks / 100.0
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a Tokio runtime for the bench");
    runtime.block_on(bench_serve_load());
}

async fn bench_serve_load() {
    let kind = std::env::var("BENCH_SERVER").unwrap_or_else(|_| "strata".into());
    let (runs, sessions, clients) = (
        var("BENCH_RUNS", 3),
        var("BENCH_SESSIONS", 50),
        var("BENCH_CLIENTS", 20),
    );
    let mut rows: Vec<[f64; 7]> = Vec::new();
    for run_no in 1..=runs {
        rows.push(one_run(&kind, run_no, sessions, clients).await);
    }
    let median = |i: usize| {
        let mut v: Vec<f64> = rows.iter().map(|r| r[i]).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        "bench: {kind} median of {runs}: {:.1} turns/s | step p50 {:.1} ms p99 {:.1} ms | answer \
         step p50 {:.1} ms p99 {:.1} ms | peak RSS {:.1} MiB | deltas before their part's \
         completion {:.2}%",
        median(0),
        median(1),
        median(2),
        median(3),
        median(4),
        median(5),
        median(6) * 100.0
    );
}

/// One run of the load against a fresh server of `kind`: prints its `bench:` line and returns
/// turns/s, step p50 and p99, answer p50 and p99 (ms), peak RSS (MiB) and the share of text
/// deltas delivered before their part's completion.
async fn one_run(kind: &str, run_no: usize, sessions: usize, clients: usize) -> [f64; 7] {
    let root = tempfile::Builder::new()
        .prefix("strata-load-")
        .tempdir()
        .unwrap();
    let project = root.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let project = std::fs::canonicalize(&project).unwrap();
    std::fs::write(project.join("a.txt"), "hello\n").unwrap();
    std::fs::write(project.join("b.txt"), "world\n").unwrap();
    let model = ModelServer::start(vec![]);
    let asked = load_drive::script(&model);
    let (server, url) = start(kind, root.path(), &project, &model);
    let target = Target {
        url,
        dir: project.to_string_lossy().into_owned(),
        model: match kind {
            "opencode" => ("mock".into(), "mock".into()),
            _ => ("openai".into(), "scripted-model".into()),
        },
    };
    let run = load_drive::run(&target, sessions, clients, Duration::from_secs(600)).await;
    let (rss, children_rss) = peak_rss(server.0.id());
    let (server_cpu, driver_cpu) = (cpu_seconds(&server.0.id().to_string()), cpu_seconds("self"));
    let consistent = load_drive::same_everywhere(&run);
    let complete = load_drive::check_sessions(&target, &run).await;
    let streamed = load_deltas::streaming(&run);
    let Figures {
        turns_per_second,
        wall,
        mut step,
        mut answer,
        mut spread,
        items,
    } = load_drive::figures(&run, &model.ends(), &asked.lock().unwrap());
    let row = [
        turns_per_second,
        ms(percentile(&mut step, 50.0)),
        ms(percentile(&mut step, 99.0)),
        ms(percentile(&mut answer, 50.0)),
        ms(percentile(&mut answer, 99.0)),
        rss as f64 / 1024.0,
        streamed.share(),
    ];
    println!(
        "bench: {kind} run {run_no}: {sessions} turns in {:.2} s = {:.1} turns/s | step end -> \
         step-finish at client p50 {:.1} ms p99 {:.1} ms ({} samples) | answer step p50 {:.1} \
         ms p99 {:.1} ms | fan-out spread p50 {:.2} ms p99 {:.2} ms | peak RSS {:.1} MiB \
         (+ children {:.1} MiB) | CPU server {server_cpu:.2} s, driver and model {:.2} s (cumulative) | {items} items per client | same at every client: {} | \
         sessions complete: {} | deltas before their part's completion {:.2}% ({} of {}, {} \
         after it)",
        wall.as_secs_f64(),
        row[0],
        row[1],
        row[2],
        step.len(),
        row[3],
        row[4],
        ms(percentile(&mut spread, 50.0)),
        ms(percentile(&mut spread, 99.0)),
        row[5],
        children_rss as f64 / 1024.0,
        driver_cpu,
        consistent
            .as_ref()
            .map_or_else(|e| format!("NO: {e}"), |()| "yes".into()),
        complete
            .as_ref()
            .map_or_else(|e| format!("NO: {e}"), |()| "yes".into()),
        row[6] * 100.0,
        streamed.before,
        streamed.expected,
        streamed.after,
    );
    drop(server);
    row
}
