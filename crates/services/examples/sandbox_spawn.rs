//! The cost of the sandbox per command: the median spawn-to-exit time of `true` through the
//! live ChildProcessSpawner, with and without the workspace-write policy, over 200 runs each
//! in one process (interleaved, so drift hits both alike). Run by `bench/sandbox_spawn.sh`.

// A measuring program: a failure should stop it loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use strata_services::config::SandboxMode;
use strata_services::process::sandbox::{RootsInput, SandboxPolicy, Support, writable_roots};
use strata_services::process::{ChildProcessSpawner, CommandSpec};

const RUNS: usize = 200;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[tokio::main]
async fn main() {
    let support = Support::probe();
    if !support.enforceable() {
        println!("sandbox_spawn: skipped, {}", support.missing_reason());
        return;
    }
    let project = tempfile::tempdir().unwrap();
    let temp = std::env::temp_dir();
    let roots = writable_roots(&RootsInput {
        mode: SandboxMode::WorkspaceWrite,
        project: project.path(),
        temp: &temp,
        extra: &[],
        home: project.path(),
    });
    let policy = SandboxPolicy::build(SandboxMode::WorkspaceWrite, false, roots, Vec::new())
        .expect("build the policy");
    let spawner = ChildProcessSpawner::live();
    let limit = Duration::from_secs(10);
    let (mut off, mut on) = (Vec::with_capacity(RUNS), Vec::with_capacity(RUNS));
    for i in 0..RUNS * 2 {
        let mut spec = CommandSpec::new("true").cwd(project.path());
        let sandboxed = i % 2 == 1;
        if sandboxed {
            spec = spec.sandbox(policy.clone());
        }
        let start = Instant::now();
        let out = spawner.run(spec, limit).await.expect("run true");
        let took = start.elapsed();
        assert!(out.success(), "{out:?}");
        if sandboxed {
            on.push(took)
        } else {
            off.push(took)
        }
    }
    let (off, on) = (median(off), median(on));
    println!(
        "sandbox_spawn: median of {RUNS} runs of `true`: off {:.3} ms, on {:.3} ms, \
         difference {:.3} ms (Landlock ABI {}, network off)",
        off.as_secs_f64() * 1e3,
        on.as_secs_f64() * 1e3,
        (on.as_secs_f64() - off.as_secs_f64()) * 1e3,
        support.landlock_abi
    );
}
