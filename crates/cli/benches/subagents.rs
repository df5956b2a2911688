//! The measurement behind `bench/task.sh` (`cargo bench -p strata --bench subagents`; a
//! measurement, so not part of `cargo test`): subagents started side by side against one after
//! another.

// A measurement harness: a failed step ends it with a panic, as in a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The end-to-end tests' helpers: a throwaway project and `strata run` against the scripted
// model.
#[path = "../tests/all/common.rs"]
mod common;
#[path = "../tests/all/e2e_run_support.rs"]
mod e2e_run_support;

use common::Project;
use e2e_run_support::{MODEL, command};
use serde_json::json;
use strata_testkit::model_server::{ModelServer, Turn};

/// One step starting four subagents at once against the same four tasks one step after
/// another. Each child runs `sleep 0.5` in bash and answers; the scripted model answers at
/// once. Prints the mean wall time and the peak RSS (`/usr/bin/time -v`) of `strata run`.
fn main() {
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    for parallel in [true, false] {
        let mut walls = Vec::new();
        let mut peak_kib = 0u64;
        for _ in 0..runs {
            let (wall, kib) = timed_run(parallel);
            walls.push(wall);
            peak_kib = peak_kib.max(kib);
        }
        let mean = walls.iter().sum::<std::time::Duration>() / runs as u32;
        let label = if parallel {
            "4 subagents in one step   "
        } else {
            "4 subagents one at a time "
        };
        println!(
            "{label}: wall {:>6.0} ms (mean of {runs}, min {:.0} ms), peak RSS {:.1} MiB",
            mean.as_secs_f64() * 1000.0,
            walls.iter().min().unwrap().as_secs_f64() * 1000.0,
            peak_kib as f64 / 1024.0
        );
    }
}

/// The scripted model: four `task` calls in one step (`parallel`) or one per step, and each
/// child's `sleep 0.5` then its answer.
fn model(parallel: bool) -> ModelServer {
    let calls: Vec<_> = (1..=4)
        .map(|i| {
            let args = json!({"description": format!("Job {i}"),
                              "prompt": format!("CHILD-P{i}: do job {i}"),
                              "subagent_type": "general"});
            strata_testkit::model_server::call(&format!("c{i}"), "task", &args.to_string())
        })
        .collect();
    let mut script = if parallel {
        vec![Turn::ToolCalls(calls)]
    } else {
        calls
            .into_iter()
            .map(|c| Turn::ToolCalls(vec![c]))
            .collect()
    };
    script.push(Turn::text("all done"));
    let server = ModelServer::start(script);
    for i in 1..=4 {
        let sleep = json!({"command": "sleep 0.5", "description": "work"}).to_string();
        server.route(
            &format!("CHILD-P{i}"),
            vec![
                Turn::tool_call(&format!("s{i}"), "bash", &sleep),
                Turn::text("ok"),
            ],
        );
    }
    server
}

/// One `strata run` under `/usr/bin/time -v`: its wall time and peak RSS in KiB.
fn timed_run(parallel: bool) -> (std::time::Duration, u64) {
    let p = Project::new();
    let server = model(parallel);
    let inner = command(
        &p,
        &server,
        &["run", "--model", MODEL, "--format", "json", "go"],
    );
    let mut timed = std::process::Command::new("/usr/bin/time");
    timed
        .arg("-v")
        .arg(inner.get_program())
        .args(inner.get_args());
    if let Some(dir) = inner.get_current_dir() {
        timed.current_dir(dir);
    }
    for (k, v) in inner.get_envs() {
        match v {
            Some(v) => timed.env(k, v),
            None => timed.env_remove(k),
        };
    }
    let start = std::time::Instant::now();
    let out = timed
        .output()
        .expect("run /usr/bin/time (apt-get install time)");
    let wall = start.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let kib = stderr
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes): ")
        })
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(0);
    (wall, kib)
}
