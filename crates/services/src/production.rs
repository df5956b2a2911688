//! `production()`: every service node of both tiers, as Strata runs them.

use strata_graph::{BoxError, Graph, Node, Scope, Tier};

use crate::bus::Bus;
use crate::clock::Clock;
use crate::config::Config;
use crate::file_time::FileTime;
use crate::flags::RuntimeFlags;
use crate::fs::FsUtil;
use crate::http::HttpClient;
use crate::instance::InstanceInfo;
use crate::permission::Permission;
use crate::process::ChildProcessSpawner;
use crate::truncate::Truncate;

/// The production graph. The instance tier is built on top of the global context plus an
/// [`InstanceSeed`](crate::instance::InstanceSeed) naming the project directory.
pub fn production() -> Graph {
    Graph::new()
        // Global tier: one per process.
        .with(Node::new(Tier::Global, |(): (), _s: Scope| async {
            Ok::<_, BoxError>(RuntimeFlags::from_env())
        }))
        .with(Node::new(Tier::Global, |(): (), _s: Scope| async {
            Ok::<_, BoxError>(Clock::live())
        }))
        .with(Node::new(Tier::Global, |(): (), _s: Scope| async {
            Ok::<_, BoxError>(FsUtil::live())
        }))
        .with(Node::new(Tier::Global, |(): (), _s: Scope| async {
            Ok::<_, BoxError>(ChildProcessSpawner::live())
        }))
        .with(Node::new(Tier::Global, |(): (), _s: Scope| async {
            Ok::<_, BoxError>(Bus::new())
        }))
        .with(HttpClient::node())
        .with(Truncate::node())
        // Instance tier: one per project directory.
        .with(InstanceInfo::node())
        .with(Config::node())
        .with(Permission::node())
        .with(FileTime::node())
}

#[cfg(test)]
mod tests {
    use strata_graph::Available;

    use super::*;
    use crate::instance::InstanceSeed;

    #[test]
    fn the_production_graph_validates() {
        production()
            .validate(&[Available::of::<InstanceSeed>(Tier::Instance)])
            .unwrap_or_else(|r| panic!("{r}"));
    }

    #[test]
    fn every_node_has_its_own_key() {
        let g = production();
        let mut keys: Vec<_> = g.nodes().iter().map(|n| n.key()).collect();
        let n = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), n);
        assert!(keys.contains(&"FsUtil") && keys.contains(&"Permission"));
    }
}
