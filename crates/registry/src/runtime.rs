//! Starting Strata: the global tier once per process, an instance per project directory.
//! The CLI and the testkit both go through here, so tests run the production wiring.

use std::path::Path;

use strata_graph::{BuildError, Consumer, Context, Graph, Missing, Scope, Service, Tier};
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
