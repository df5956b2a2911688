//! `production()`: every service node of both tiers, as Strata runs them.

use strata_graph::{BoxError, Graph, Node, Scope, Tier};

use crate::background::BackgroundShells;
use crate::bus::Bus;
use crate::clock::Clock;
use crate::config::Config;
use crate::diff_budget::DiffBudget;
use crate::file_time::FileTime;
use crate::flags::RuntimeFlags;
use crate::format::Formatter;
use crate::fs::FsUtil;
use crate::hooks::Hooks;
use crate::http::HttpClient;
use crate::instance::InstanceInfo;
use crate::instructions::Instructions;
use crate::lsp::Lsp;
use crate::mcp::Mcp;
use crate::permission::Permission;
use crate::process::ChildProcessSpawner;
use crate::process::sandbox::Sandbox;
use crate::question::Question;
use crate::skills::Skills;
use crate::snapshot::Snapshots;
use crate::subagents::Subagents;
use crate::todo::Todos;
use crate::truncate::Truncate;
use crate::worktree::Worktrees;

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
        .with(Snapshots::node())
        .with(Worktrees::node())
        // Throwaway lists; the agent's graph keeps them in the session database instead.
        .with(Todos::node())
        // Instance tier: one per project directory.
        .with(InstanceInfo::node())
        .with(Config::node())
        .with(Sandbox::node())
        .with(BackgroundShells::node())
        .with(Permission::node())
        .with(Question::node())
        .with(FileTime::node())
        .with(DiffBudget::node())
        .with(Lsp::node())
        .with(Formatter::node())
        .with(Mcp::node())
        .with(Skills::node())
        .with(Instructions::node())
        .with(Hooks::node())
        // No agent loop here; the agent's graph runs subagents itself.
        .with(Subagents::node())
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

    #[tokio::test]
    async fn permission_events_reach_the_bus() {
        use crate::permission::{AskRequest, PermissionEvent, Reply};
        use strata_graph::{Context, Scope};

        let dir = tempfile::tempdir().unwrap();
        let flags = RuntimeFlags::for_dirs(dir.path().join("data"), dir.path().join("cfg"));
        let mut g = production();
        g.replace::<RuntimeFlags>(Node::value(Tier::Global, flags))
            .unwrap();
        let scope = Scope::new();
        let global = g
            .tier(Tier::Global)
            .build(&Context::new(), &scope)
            .await
            .unwrap();
        let base = global.with(InstanceSeed {
            directory: dir.path().to_path_buf(),
        });
        let cx = g.tier(Tier::Instance).build(&base, &scope).await.unwrap();
        let mut on_bus = cx.get::<Bus>().unwrap().subscribe::<PermissionEvent>();
        let permission = cx.get::<Permission>().unwrap();
        let asker = permission.clone();
        let ask = tokio::spawn(async move {
            asker
                .ask(
                    AskRequest {
                        session_id: "s".into(),
                        permission: "bash".into(),
                        patterns: vec!["ls".into()],
                        always: vec!["ls *".into()],
                        metadata: serde_json::json!({}),
                        tool: None,
                        ruleset: vec![],
                        sandbox_auto_allow: false,
                        shown: None,
                        hook: None,
                    },
                    tokio_util::sync::CancellationToken::new(),
                )
                .await
        });
        let event = tokio::time::timeout(std::time::Duration::from_secs(5), on_bus.recv())
            .await
            .unwrap()
            .unwrap();
        let PermissionEvent::Asked(req) = event else {
            panic!("expected an asked event, got {event:?}");
        };
        permission.reply(&req.id, Reply::Once).unwrap();
        ask.await.unwrap().unwrap();
        scope.close().await;
    }
}
