//! The graph the CLI runs: the registry's production graph plus the session store and the
//! subagents run by the loop.

use strata_graph::{BoxError, Graph, Node, Scope, Tier};
use strata_services::flags::RuntimeFlags;
use strata_services::process::ChildProcessSpawner;
use strata_services::snapshot::Snapshots;
use strata_services::subagents::Subagents;
use strata_services::todo::Todos;

use crate::owned::RecordingSpawner;
use crate::store::{Store, StoreError};
use crate::subagents::{subagent_runs_node, subagents_node};
use crate::todos::todos_node;

/// The global-tier node opening `<data dir>/strata.db`.
pub fn store_node() -> Node {
    Node::new(
        Tier::Global,
        |(flags,): (RuntimeFlags,), _scope: Scope| async move {
            Ok::<_, BoxError>(crate::store::Store::open_in(&flags.data_dir)?)
        },
    )
}

/// The global-tier spawner that records the process groups tools start in the store, so
/// that those left behind by a killed process can be ended later (see `recover`).
pub fn recording_spawner_node() -> Node {
    Node::new(
        Tier::Global,
        |(store,): (Store,), _scope: Scope| async move {
            Ok::<_, BoxError>(ChildProcessSpawner::new(RecordingSpawner::new(
                ChildProcessSpawner::live(),
                store,
            )))
        },
    )
}

/// The global-tier snapshot store, told which sessions still exist: past `snapshot.max_mb`
/// it may drop the snapshots of deleted sessions, never those of a session that can revert.
fn snapshots_node() -> Node {
    Node::new(
        Tier::Global,
        |(spawner, flags, store): (ChildProcessSpawner, RuntimeFlags, Store), _scope: Scope| async move {
            let snapshots = Snapshots::new(spawner, &flags);
            snapshots.set_liveness(std::sync::Arc::new(move |id: &str| {
                session_lives(&store, id)
            }));
            Ok::<_, BoxError>(snapshots)
        },
    )
}

/// Whether session `id` is still in the store; when the store cannot say, it counts as live.
fn session_lives(store: &Store, id: &str) -> bool {
    !matches!(store.session(id), Err(StoreError::NotFound { .. }))
}

/// Everything the CLI runs: tools, services and the session store, which also keeps the
/// session todo lists (in place of the tools-only graph's throwaway ones) and the process
/// groups tools start.
pub fn production() -> Graph {
    let mut graph = strata_registry::production().with(store_node());
    if graph.replace::<Todos>(todos_node()).is_err() {
        graph.add(todos_node());
    }
    if graph
        .replace::<ChildProcessSpawner>(recording_spawner_node())
        .is_err()
    {
        graph.add(recording_spawner_node());
    }
    if graph.replace::<Snapshots>(snapshots_node()).is_err() {
        graph.add(snapshots_node());
    }
    graph.add(subagent_runs_node());
    if graph.replace::<Subagents>(subagents_node()).is_err() {
        graph.add(subagents_node());
    }
    graph
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
        let todos: Vec<_> = graph
            .nodes()
            .iter()
            .filter(|n| n.key() == "Todos")
            .collect();
        assert_eq!(todos.len(), 1, "one Todos node");
        assert!(
            todos[0].requires().iter().any(|r| r.key == "Store"),
            "the agent keeps todo lists in the store"
        );
        let snapshots = graph
            .nodes()
            .iter()
            .find(|n| n.key() == "Snapshots")
            .unwrap();
        assert!(
            snapshots.requires().iter().any(|r| r.key == "Store"),
            "the snapshot store asks the session store which sessions live"
        );
    }

    #[test]
    fn a_session_lives_until_it_is_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open_in(dir.path()).unwrap();
        let session = store.create_session(dir.path(), None).unwrap();
        assert!(super::session_lives(&store, &session.id));
        // A session that ran and was reverted still deletes (its run and revert rows go too).
        let owner = strata_services::process::ProcessIdentity::current().unwrap();
        store.begin_run(&session.id, &owner).unwrap();
        let revert = crate::store::Revert {
            message_id: "msg_1".into(),
            snapshot: "t".into(),
        };
        store.set_revert(&session.id, &revert).unwrap();
        store.delete_session(&session.id).unwrap();
        assert!(!super::session_lives(&store, &session.id));
        assert!(!super::session_lives(&store, "ses_never"));
    }
}
