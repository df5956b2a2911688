//! Starting Strata: the global tier once per process, an instance per project directory.
//! The CLI and the testkit both go through here, so tests run the production wiring.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use strata_graph::{
    BoxError, BuildError, Consumer, Context, Graph, Missing, Node, Scope, Service, Tier,
};
use strata_services::instance::InstanceSeed;

/// The global tier, built once.
#[derive(Debug)]
pub struct Runtime {
    graph: Graph,
    global: Context,
    scope: Scope,
}

impl Runtime {
    /// Validates the whole graph (both tiers), then builds the global tier.
    pub async fn start(graph: Graph) -> Result<Runtime, BuildError> {
        Self::start_for(graph, &[]).await
    }

    /// Like [`start`](Self::start), also validating what `consumers` (the front-end code that
    /// resolves services from an instance) need, so a missing service is named with its
    /// consumer before anything runs.
    pub async fn start_for(graph: Graph, consumers: &[Consumer]) -> Result<Runtime, BuildError> {
        graph
            .validate_for(
                &[strata_graph::Available::of::<InstanceSeed>(Tier::Instance)],
                consumers,
            )
            .map_err(BuildError::Invalid)?;
        let scope = Scope::new();
        let global = graph
            .tier(Tier::Global)
            .build(&Context::new(), &scope)
            .await?;
        if let Ok(builder) = global.get::<InstanceBuilder>() {
            builder.set(graph.tier(Tier::Instance), global.clone());
        }
        Ok(Runtime {
            graph,
            global,
            scope,
        })
    }

    pub fn global(&self) -> &Context {
        &self.global
    }

    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Builds a fresh instance for `dir` on top of the global context.
    pub async fn instance(&self, dir: &Path) -> Result<Instance, BuildError> {
        self.instance_with(dir, &Context::new()).await
    }

    /// Builds a fresh instance for `dir` on top of the global context with `overrides` in
    /// place of the global services of the same type: everything the instance builds (its
    /// services, its tools) resolves those instead. An ACP session's own `FsUtil` is one.
    pub async fn instance_with(
        &self,
        dir: &Path,
        overrides: &Context,
    ) -> Result<Instance, BuildError> {
        let scope = Scope::new();
        let base = self.global.merge(overrides).with(InstanceSeed {
            directory: dir.to_path_buf(),
        });
        let cx = self.graph.tier(Tier::Instance).build(&base, &scope).await?;
        Ok(Instance { cx, scope })
    }

    /// Closes the global scope (background tasks, then finalizers).
    pub async fn shutdown(&self) {
        // The builder holds the global context, which holds the builder: let go first.
        if let Ok(builder) = self.global.get::<InstanceBuilder>() {
            builder.clear();
        }
        self.scope.close().await;
    }
}

/// One project directory's services.
#[derive(Debug)]
pub struct Instance {
    cx: Context,
    scope: Scope,
}

impl Instance {
    pub fn get<S: Service>(&self) -> Result<S, Missing> {
        self.cx.get::<S>()
    }

    pub fn context(&self) -> &Context {
        &self.cx
    }

    /// Shuts the instance down: language servers stop, pending permission asks are rejected.
    pub async fn dispose(&self) {
        self.scope.close().await;
    }
}

/// What [`InstanceBuilder`] builds from: the instance tier and the global context.
type Parts = Option<(Graph, Context)>;

/// Builds more instances of the running graph from inside it, such as a subagent's in its
/// own worktree. Global tier; [`Runtime::start_for`] hands it the graph once the global tier
/// is built, and [`Runtime::shutdown`] takes it back.
#[derive(Clone, Default)]
pub struct InstanceBuilder(Arc<Mutex<Parts>>);

impl Service for InstanceBuilder {
    const KEY: &'static str = "InstanceBuilder";
}

impl std::fmt::Debug for InstanceBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("InstanceBuilder")
    }
}

impl InstanceBuilder {
    /// The global-tier node (empty until the runtime starts).
    pub fn node() -> Node {
        Node::new(Tier::Global, |(): (), _s: Scope| async move {
            Ok::<_, BoxError>(InstanceBuilder::default())
        })
    }

    fn parts(&self) -> std::sync::MutexGuard<'_, Parts> {
        // Each statement replaces the value whole, so a poisoned lock is still usable.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn set(&self, graph: Graph, global: Context) {
        *self.parts() = Some((graph, global));
    }

    fn clear(&self) {
        *self.parts() = None;
    }

    /// A fresh instance for `dir` that uses `shared`'s services in place of building its own
    /// (a child shares its parent's permission asks, so the same front-end answers them).
    pub async fn build(&self, dir: &Path, shared: &Context) -> Result<Instance, String> {
        let Some((graph, global)) = self.parts().clone() else {
            return Err(
                "no runtime is running to build an instance from; start one with \
                        Runtime::start_for"
                    .into(),
            );
        };
        let scope = Scope::new();
        let base = global.merge(shared).with(InstanceSeed {
            directory: dir.to_path_buf(),
        });
        let cx = graph
            .without_provided(shared)
            .build(&base, &scope)
            .await
            .map_err(|e| e.to_string())?;
        Ok(Instance { cx, scope })
    }
}
