//! The cost of the sandbox per command: the median spawn-to-exit time of `true` through the
//! live ChildProcessSpawner, without the sandbox, with the workspace-write policy in a project
//! without protected files, and with it in a project whose protected files are bound read-only
//! in a user and mount namespace; 200 runs each in one process (interleaved, so drift hits all
//! alike). Run by `bench/sandbox_spawn.sh`.

// A measuring program: a failure should stop it loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use std::path::Path;
use strata_services::config::SandboxMode;

use strata_services::process::sandbox::{
    Protected, RootsInput, SandboxPolicy, Support, writable_roots,
};
use strata_services::process::{ChildProcessSpawner, CommandSpec};

const RUNS: usize = 200;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The workspace-write policy for `project`, network off, binding its protected files.
fn policy(project: &Path) -> SandboxPolicy {
    let temp = std::env::temp_dir();
    let roots = writable_roots(&RootsInput {
        mode: SandboxMode::WorkspaceWrite,
        project,
        temp: &temp,
        extra: &[],
        home: project,
    });
    let protected = Protected {
        project: project.to_path_buf(),
        extra: Vec::new(),
    };
    SandboxPolicy::build_protecting(
        SandboxMode::WorkspaceWrite,
        false,
        roots,
        Vec::new(),
        Some(protected),
    )
    .expect("build the policy")
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

#[tokio::main]
async fn main() {
    let support = Support::probe();
    if !support.enforceable() {
        println!("sandbox_spawn: skipped, {}", support.missing_reason());
        return;
    }
    let plain = tempfile::tempdir().unwrap();
    let guarded = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(guarded.path().join(".git/hooks")).unwrap();
    std::fs::write(guarded.path().join(".git/config"), "[core]\n").unwrap();
    std::fs::write(guarded.path().join("strata.json"), "{}").unwrap();
    let cases = [
        (plain.path(), None),
        (plain.path(), Some(policy(plain.path()))),
        (guarded.path(), Some(policy(guarded.path()))),
    ];
    let spawner = ChildProcessSpawner::live();
    let limit = Duration::from_secs(10);
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(RUNS); cases.len()];
    for i in 0..RUNS * cases.len() {
        let case = i % cases.len();
        let (dir, policy) = &cases[case];
        let mut spec = CommandSpec::new("true").cwd(dir);
        if let Some(p) = policy {
            spec = spec.sandbox(p.clone());
        }
        let start = Instant::now();
        let out = spawner.run(spec, limit).await.expect("run true");
        times[case].push(start.elapsed());
        assert!(out.success(), "{out:?}");
    }
    let [off, on, binds] = [0, 1, 2].map(|c| median(times[c].clone()));
    println!(
        "sandbox_spawn: median of {RUNS} runs of `true`: off {:.3} ms, on {:.3} ms \
         (+{:.3}), on with protected files bound {:.3} ms (+{:.3}) (Landlock ABI {}, user \
         namespaces {}, network off)",
        ms(off),
        ms(on),
        ms(on) - ms(off),
        ms(binds),
        ms(binds) - ms(off),
        support.landlock_abi,
        if support.user_namespaces { "on" } else { "off" },
    );
}
