//! The graph the CLI runs: the registry's production graph plus the session store.

use strata_graph::{BoxError, Graph, Node, Scope, Tier};
use strata_services::flags::RuntimeFlags;

/// The global-tier node opening `<data dir>/strata.db`.
pub fn store_node() -> Node {
    Node::new(
        Tier::Global,
        |(flags,): (RuntimeFlags,), _scope: Scope| async move {
            Ok::<_, BoxError>(crate::store::Store::open_in(&flags.data_dir)?)
        },
    )
}

/// Everything the CLI runs: tools, services and the session store.
pub fn production() -> Graph {
    strata_registry::production().with(store_node())
}

#[cfg(test)]
mod tests {
    use strata_graph::{Available, Tier};
    use strata_services::instance::InstanceSeed;

    #[test]
    fn the_production_graph_with_the_store_validates() {
        let graph = super::production();
        graph
            .validate(&[Available::of::<InstanceSeed>(Tier::Instance)])
            .unwrap_or_else(|r| panic!("{r}"));
        assert!(graph.nodes().iter().any(|n| n.key() == "Store"));
    }
}
