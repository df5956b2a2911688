//! `strata debug graph`: every service node with its key, tier and dependencies.

use std::path::PathBuf;

use strata_graph::{Available, Graph, Tier};
use strata_services::instance::InstanceSeed;

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
