//! `Node`: how one service is built from its declared `Deps` inside a `Scope`.

use std::any::TypeId;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;

use crate::context::{AnyService, Context, Entry};
use crate::deps::{Deps, Part, Requirement};
use crate::error::{BoxError, BuildError};
use crate::scope::Scope;
use crate::service::{Service, Tier};

type BuildFn =
    dyn Fn(Context, Scope) -> BoxFuture<'static, Result<AnyService, BoxError>> + Send + Sync;

/// Builds one service. Identity is the `Arc`: clones are the same node and are memoized as one.
#[derive(Clone)]
pub struct Node {
    pub(crate) inner: Arc<NodeInner>,
}

#[derive(Clone)]
pub(crate) struct NodeInner {
    pub(crate) key: &'static str,
    pub(crate) type_id: TypeId,
    pub(crate) type_name: &'static str,
    pub(crate) tier: Tier,
    pub(crate) requires: Vec<Requirement>,
    pub(crate) parts: Arc<[Part]>,
    pub(crate) fresh: bool,
    pub(crate) build: Arc<BuildFn>,
}

impl Node {
    /// A node that builds `S` from the services in `D`, in `tier`.
    ///
    /// ```
    /// # use strata_graph::{Node, Service, Tier, Scope};
    /// #[derive(Clone)] struct Greeting(String);
    /// impl Service for Greeting { const KEY: &'static str = "Greeting"; }
    /// #[derive(Clone)] struct Shout(String);
    /// impl Service for Shout { const KEY: &'static str = "Shout"; }
    /// let node = Node::new(Tier::Global, |(g,): (Greeting,), _scope: Scope| async move {
    ///     Ok(Shout(g.0.to_uppercase()))
    /// });
    /// assert_eq!(node.requires()[0].key, "Greeting");
    /// ```
    pub fn new<S, D, F, Fut>(tier: Tier, f: F) -> Node
    where
        S: Service,
        D: Deps,
        F: Fn(D, Scope) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<S, BoxError>> + Send + 'static,
    {
        let f = Arc::new(f);
        Node::with_requirements(tier, D::requires(), move |cx: Context, scope: Scope| {
            let f = f.clone();
            async move {
                let deps = D::resolve(&cx).map_err(|m| Box::new(m.for_consumer(S::KEY)))?;
                f(deps, scope).await
            }
        })
    }

    /// A node whose requirements are known only at run time (e.g. the union of every tool's
    /// `Deps`). `f` receives a context holding at least those services; it must read no other.
    pub fn with_requirements<S, F, Fut>(tier: Tier, requires: Vec<Requirement>, f: F) -> Node
    where
        S: Service,
        F: Fn(Context, Scope) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<S, BoxError>> + Send + 'static,
    {
        let f = Arc::new(f);
        let build: Arc<BuildFn> = Arc::new(move |cx: Context, scope: Scope| {
            let f = f.clone();
            Box::pin(async move { Ok(Arc::new(f(cx, scope).await?) as AnyService) })
        });
        Node {
            inner: Arc::new(NodeInner {
                key: S::KEY,
                type_id: TypeId::of::<S>(),
                type_name: std::any::type_name::<S>(),
                tier,
                requires,
                parts: Arc::new([]),
                fresh: false,
                build,
            }),
        }
    }

    /// A node made of parts (e.g. the tools of a registry): its requirements are the union of
    /// the parts', and validation names the part that needs a missing service.
    pub fn with_parts<S, F, Fut>(tier: Tier, parts: Vec<Part>, f: F) -> Node
    where
        S: Service,
        F: Fn(Context, Scope) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<S, BoxError>> + Send + 'static,
    {
        let mut requires: Vec<Requirement> = Vec::new();
        for r in parts.iter().flat_map(|p| &p.requires) {
            if !requires.contains(r) {
                requires.push(*r);
            }
        }
        let node = Node::with_requirements(tier, requires, f);
        Node {
            inner: Arc::new(NodeInner {
                parts: parts.into(),
                ..(*node.inner).clone()
            }),
        }
    }

    /// A node that provides an already built value.
    pub fn value<S: Service>(tier: Tier, service: S) -> Node {
        Node::new(tier, move |(): (), _scope: Scope| {
            let s = service.clone();
            async move { Ok(s) }
        })
    }

    /// The same constructor, never memoized: every build that reaches it builds a new instance,
    /// and the in-graph services it depends on are built anew for it too (their own memo).
    pub fn fresh(&self) -> Node {
        Node {
            inner: Arc::new(NodeInner {
                fresh: true,
                ..(*self.inner).clone()
            }),
        }
    }

    pub fn key(&self) -> &'static str {
        self.inner.key
    }
    pub fn type_name(&self) -> &'static str {
        self.inner.type_name
    }
    pub fn tier(&self) -> Tier {
        self.inner.tier
    }
    pub fn requires(&self) -> &[Requirement] {
        &self.inner.requires
    }
    pub fn parts(&self) -> &[Part] {
        &self.inner.parts
    }
    pub fn is_fresh(&self) -> bool {
        self.inner.fresh
    }
    /// Runs the constructor on `cx` (which holds the node's dependencies) in `scope`.
    pub(crate) fn build(
        &self,
        cx: Context,
        scope: Scope,
    ) -> impl Future<Output = Result<AnyService, BuildError>> + Send + 'static {
        let key = self.key();
        let build = (self.inner.build)(cx, scope);
        async move {
            build.await.map_err(|e| BuildError::Failed {
                key,
                source: Arc::new(e),
            })
        }
    }
    pub(crate) fn type_id(&self) -> TypeId {
        self.inner.type_id
    }
    pub(crate) fn id(&self) -> usize {
        Arc::as_ptr(&self.inner) as *const () as usize
    }
    pub(crate) fn entry(&self, value: AnyService) -> Entry {
        Entry {
            key: self.inner.key,
            type_name: self.inner.type_name,
            value,
        }
    }
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Node")
            .field("key", &self.inner.key)
            .field("tier", &self.inner.tier)
            .field(
                "requires",
                &self
                    .inner
                    .requires
                    .iter()
                    .map(|r| r.key)
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}
