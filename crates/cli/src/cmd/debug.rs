//! `strata debug graph`: every service node with its key, tier and dependencies;
//! `strata debug sandbox`: what the sandbox enforces for a project.

use std::path::PathBuf;

use strata_graph::{Available, Graph, Tier};
use strata_services::instance::InstanceSeed;
use strata_services::process::sandbox::{Sandbox, SandboxReport};

use crate::args::Format;

use super::instance;

pub(super) async fn graph(dir: Option<PathBuf>, without: Vec<String>) -> u8 {
    // Everything `strata run` builds, the session store included.
    let full = strata_agent::production();
    let mut graph = Graph::new();
    for node in full.nodes() {
        if !without.iter().any(|w| w == node.key()) {
            graph.add(node.clone());
        }
    }
    if let Err(report) = graph.validate(&[Available::of::<InstanceSeed>(Tier::Instance)]) {
        eprint!("{report}");
        return 1;
    }
    let (runtime, inst) = match instance::open(dir).await {
        Ok(x) => x,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    for tier in [Tier::Global, Tier::Instance] {
        println!("{tier} tier:");
        for node in graph.nodes().iter().filter(|n| n.tier() == tier) {
            let deps: Vec<&str> = node.requires().iter().map(|r| r.key).collect();
            let deps = if deps.is_empty() {
                "(none)".to_string()
            } else {
                deps.join(", ")
            };
            println!("  {:<20} <- {deps}", node.key());
        }
    }
    instance::close(runtime, inst).await;
    0
}

/// `strata debug sandbox`: the kernel's support, the effective mode and the writable roots.
pub(super) async fn sandbox(dir: Option<PathBuf>, mode: Option<String>, format: Format) -> u8 {
    let graph = instance::with_sandbox(strata_agent::production(), mode.as_deref());
    let (runtime, inst) = match instance::open_with(dir, graph, &super::consumers::all()).await {
        Ok(x) => x,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    let code = match inst.get::<Sandbox>() {
        Ok(sandbox) => {
            let report = sandbox.report();
            match format {
                Format::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(&report).unwrap_or_default()
                ),
                Format::Default => print!("{}", human(&report)),
            }
            0
        }
        Err(e) => {
            eprintln!("strata: {e}; run `strata debug graph` to see the services");
            1
        }
    };
    instance::close(runtime, inst).await;
    code
}

fn human(r: &SandboxReport) -> String {
    let rights = if r.rights.is_empty() {
        "(none)".to_string()
    } else {
        r.rights.join(", ")
    };
    let mut out = format!(
        "mode: {} (requested: {})\nlandlock ABI: {}\nrights enforced: {rights}\nseccomp: {}\n\
         user namespaces: {}\nprotected files: {}\nnetwork: {}\nwritable roots:\n",
        r.mode,
        r.requested,
        r.landlock_abi,
        if r.seccomp { "available" } else { "missing" },
        if r.user_namespaces {
            "available"
        } else {
            "missing"
        },
        r.protection,
        if r.network { "on" } else { "off" },
    );
    for root in &r.writable_roots {
        out.push_str(&format!("  {root}\n"));
    }
    if let Some(w) = &r.warning {
        out.push_str(&format!("warning: {w}\n"));
    }
    out
}
