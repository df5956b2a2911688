//! `MemoMap`: one build per node identity.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};

use crate::context::AnyService;
use crate::error::BuildError;
use crate::node::Node;

pub(crate) type SharedBuild = Shared<BoxFuture<'static, Result<AnyService, BuildError>>>;

/// Remembers the build of each node (by identity) so a node reached twice is built once.
/// A failed build is remembered too: every later use within this map sees the same error.
#[derive(Debug, Clone, Default)]
pub struct MemoMap {
    inner: Arc<Mutex<HashMap<usize, (Node, SharedBuild)>>>,
}

impl MemoMap {
    pub fn new() -> Self {
        Self::default()
    }

    pub(crate) fn get_or_insert_with(
        &self,
        node: &Node,
        make: impl FnOnce() -> BoxFuture<'static, Result<AnyService, BuildError>>,
    ) -> SharedBuild {
        // Poisoning only happens if `make` panicked while building the future; the map holds
        // nothing half-written in that case.
        let mut map = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        // The node is kept in the map so its address cannot be reused by another node.
        map.entry(node.id())
            .or_insert_with(|| (node.clone(), make().shared()))
            .1
            .clone()
    }

    /// How many nodes this map has started building.
    pub fn len(&self) -> usize {
        self.inner.lock().map(|m| m.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
