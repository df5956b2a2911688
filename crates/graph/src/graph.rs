//! `Graph`: a set of nodes, validated before anything is built, built in dependency order.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::{BoxFuture, try_join_all};

use crate::consumer::Consumer;
use crate::context::{AnyService, Context};
use crate::error::{BuildError, ReplaceError, ValidationReport};
use crate::memo::{MemoMap, SharedBuild};
use crate::node::Node;
use crate::scope::Scope;
use crate::service::{Service, Tier};
use crate::validate::{self, Available};

/// A set of nodes.
#[derive(Clone, Default, Debug)]
pub struct Graph {
    nodes: Vec<Node>,
}

impl Graph {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with(mut self, node: Node) -> Self {
        self.nodes.push(node);
        self
    }

    pub fn add(&mut self, node: Node) {
        self.nodes.push(node);
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The nodes of one tier.
    pub fn tier(&self, tier: Tier) -> Graph {
        Graph {
            nodes: self
                .nodes
                .iter()
                .filter(|n| n.tier() == tier)
                .cloned()
                .collect(),
        }
    }

    /// The nodes whose service `cx` does not already hold: building the result on top of `cx`
    /// keeps `cx`'s services (a child instance sharing its parent's permission asks).
    pub fn without_provided(&self, cx: &Context) -> Graph {
        Graph {
            nodes: self
                .nodes
                .iter()
                .filter(|n| !cx.contains_type(n.type_id()))
                .cloned()
                .collect(),
        }
    }

    /// Swaps the node that provides `S` (tests use this for the clock and remote URLs).
    pub fn replace<S: Service>(&mut self, node: Node) -> Result<(), ReplaceError> {
        let pos = self
            .nodes
            .iter()
            .position(|n| n.type_id() == TypeId::of::<S>())
            .ok_or(ReplaceError::NotFound { key: S::KEY })?;
        let old = &self.nodes[pos];
        if node.type_id() != TypeId::of::<S>() {
            return Err(ReplaceError::WrongKey {
                key: S::KEY,
                given: node.key(),
            });
        }
        if node.tier() != old.tier() {
            return Err(ReplaceError::WrongTier {
                key: S::KEY,
                tier: old.tier(),
                given: node.tier(),
            });
        }
        self.nodes[pos] = node;
        Ok(())
    }

    /// Checks the graph alone: every dependency must be provided by one of its nodes or by
    /// `external`.
    pub fn validate(&self, external: &[Available]) -> Result<(), ValidationReport> {
        validate::validate(&self.nodes, external)
    }

    /// Like [`validate`](Self::validate), and also checks that every service the `consumers`
    /// resolve from an instance is provided (by a node or by `external`).
    pub fn validate_for(
        &self,
        external: &[Available],
        consumers: &[Consumer],
    ) -> Result<(), ValidationReport> {
        let mut problems = match self.validate(external) {
            Ok(()) => Vec::new(),
            Err(report) => report.problems,
        };
        problems.extend(validate::unserved(&self.nodes, external, consumers));
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ValidationReport { problems })
        }
    }

    /// Builds every node on top of `base` with a new memo map. On failure the scope is closed,
    /// so whatever the partial build acquired is released.
    pub async fn build(&self, base: &Context, scope: &Scope) -> Result<Context, BuildError> {
        self.build_with(base, scope, &MemoMap::new()).await
    }

    /// Like [`build`](Self::build), sharing `memo` with other builds: a node already built in
    /// `memo` is not built again.
    pub async fn build_with(
        &self,
        base: &Context,
        scope: &Scope,
        memo: &MemoMap,
    ) -> Result<Context, BuildError> {
        let external = base_as_available(base, &self.nodes);
        if let Err(report) = validate::validate(&self.nodes, &external) {
            return Err(BuildError::Invalid(report));
        }
        let plan = Arc::new(Plan {
            providers: self
                .nodes
                .iter()
                .map(|n| (n.type_id(), n.clone()))
                .collect(),
            base: base.clone(),
            scope: scope.clone(),
        });
        let builds = self.nodes.iter().map(|n| resolve(&plan, n, memo));
        match try_join_all(builds).await {
            Ok(values) => {
                let mut cx = base.clone();
                for (node, value) in self.nodes.iter().zip(values) {
                    cx = cx.insert_raw(node.type_id(), node.entry(value));
                }
                Ok(cx)
            }
            Err(e) => {
                scope.close().await;
                Err(e)
            }
        }
    }
}

fn base_as_available(base: &Context, nodes: &[Node]) -> Vec<Available> {
    nodes
        .iter()
        .flat_map(|n| n.requires())
        .filter(|r| base.contains_type(r.type_id))
        .map(|r| Available {
            type_id: r.type_id,
            key: r.key,
            tier: None,
        })
        .collect()
}

struct Plan {
    providers: HashMap<TypeId, Node>,
    base: Context,
    scope: Scope,
}

fn resolve(plan: &Arc<Plan>, node: &Node, memo: &MemoMap) -> SharedBuild {
    if node.is_fresh() {
        let own = MemoMap::new();
        return build_node(plan.clone(), node.clone(), own).shared();
    }
    memo.get_or_insert_with(node, || {
        build_node(plan.clone(), node.clone(), memo.clone())
    })
}

fn build_node(
    plan: Arc<Plan>,
    node: Node,
    memo: MemoMap,
) -> BoxFuture<'static, Result<AnyService, BuildError>> {
    async move {
        let deps: Vec<Node> = node
            .requires()
            .iter()
            .filter_map(|r| plan.providers.get(&r.type_id).cloned())
            .collect();
        let values = try_join_all(deps.iter().map(|d| resolve(&plan, d, &memo))).await?;
        let mut cx = plan.base.clone();
        for (dep, value) in deps.iter().zip(values) {
            cx = cx.insert_raw(dep.type_id(), dep.entry(value));
        }
        node.build(cx, plan.scope.clone()).await
    }
    .boxed()
}
