//! The runs alive in this process, by session id. A [`Runner`](crate::session::Runner)
//! registers itself for the length of a run; a child started from that session runs with what
//! the parent runs with (services, model, options, the front-end's event sink).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use strata_graph::{BoxError, Node, Scope, Tier};
use tokio::sync::mpsc::UnboundedSender;

use crate::events::LoopEvent;
use crate::session::{LoopServices, Model, RunOptions};

/// What a run runs with.
#[derive(Debug, Clone)]
pub struct RunContext {
    pub services: LoopServices,
    pub model: Model,
    pub options: RunOptions,
    pub sink: Option<UnboundedSender<LoopEvent>>,
}

type Table = HashMap<String, (u64, Arc<RunContext>)>;

/// The registry of live runs. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct SubagentRuns {
    table: Arc<Mutex<Table>>,
    next: Arc<AtomicU64>,
}

impl strata_graph::Service for SubagentRuns {
    const KEY: &'static str = "SubagentRuns";
}

/// The global-tier node of the live-run registry.
pub fn subagent_runs_node() -> Node {
    Node::new(Tier::Global, |(): (), _scope: Scope| async move {
        Ok::<_, BoxError>(SubagentRuns::default())
    })
}

impl SubagentRuns {
    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        // Each statement leaves the table whole, so a poisoned lock is still usable.
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers the run of `session_id` until the returned guard drops.
    pub fn register(&self, session_id: &str, cx: RunContext) -> LiveRun {
        let token = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock()
            .insert(session_id.to_string(), (token, Arc::new(cx)));
        LiveRun {
            runs: self.clone(),
            session_id: session_id.to_string(),
            token,
        }
    }

    /// The run of `session_id`, while it lasts.
    pub fn get(&self, session_id: &str) -> Option<Arc<RunContext>> {
        self.lock().get(session_id).map(|(_, cx)| cx.clone())
    }
}

/// Keeps a run registered; dropping it removes the registration (unless a newer run of the
/// same session replaced it).
#[derive(Debug)]
pub struct LiveRun {
    runs: SubagentRuns,
    session_id: String,
    token: u64,
}

impl Drop for LiveRun {
    fn drop(&mut self) {
        let mut table = self.runs.lock();
        if table
            .get(&self.session_id)
            .is_some_and(|(t, _)| *t == self.token)
        {
            table.remove(&self.session_id);
        }
    }
}
