//! The transport-free server: [`ServerCore`] owns the instances (one per project directory,
//! built on first use, disposed on shutdown), the per-session turn queues, the event fan-out
//! and the permission and question replies. HTTP handlers and the TUI's in-process client both
//! call it.
//!
//! ```ignore
//! let core = ServerCore::start(CoreOptions::new(dir)).await?;
//! let session = core.create_session(&dir, SessionCreateBody::default()).await?;
//! let mut events = core.subscribe(EventFilter::All, None);
//! let turn = core.prompt(&session.id, body).await?;   // queued; runs on its own task
//! let last = core.answer(turn).await?;                 // the turn's last assistant message
//! core.shutdown().await;
//! ```

pub mod asks;
pub mod background;
pub mod catalog;
pub mod commands;
mod compaction;
pub mod convert;
mod error;
mod fanout;
mod frame;
pub mod hub;
pub mod instances;
mod message_json;
pub mod messages;
mod progress;
pub mod provider_json;
pub mod recovery;
mod replies;
mod session_end;
pub mod sessions;
pub mod tools;
pub mod turns;
pub mod undo;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_agent::provider::Credentials;
use strata_agent::session::LoopServices;
use strata_agent::store::Store;
use strata_graph::{Consumer, Graph};
use strata_registry::Runtime;
use strata_services::flags::RuntimeFlags;
use tokio_util::sync::CancellationToken;

pub use error::CoreError;
pub use hub::{EventFilter, Frame, Hub, Subscription};
pub use instances::{InstanceEntry, Overlay};
pub use messages::{MessagePage, MessageReader};
pub use sessions::{MessageEntry, SessionUpdate};
pub use turns::TurnHandle;

/// How a [`ServerCore`] starts.
#[derive(Debug)]
pub struct CoreOptions {
    /// The project used when a request names none (`--dir`, else the working directory).
    pub default_dir: PathBuf,
    /// The service graph (production by default; tests may replace nodes).
    pub graph: Graph,
}

impl CoreOptions {
    pub fn new(default_dir: impl Into<PathBuf>) -> Self {
        Self {
            default_dir: default_dir.into(),
            graph: strata_agent::production(),
        }
    }
}

/// The server without its transport; cheap to clone.
#[derive(Clone, Debug)]
pub struct ServerCore {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    runtime: Runtime,
    store: Store,
    default_dir: PathBuf,
    instances: instances::Instances,
    /// The overlay each bound session's instance is built with.
    overlays: std::sync::Mutex<std::collections::HashMap<String, Overlay>>,
    hub: Hub,
    turns: turns::Turns,
    /// Sessions prompted here that have not ended (`SessionEnd`) yet.
    active: session_end::Active,
    closed: CancellationToken,
}

impl ServerCore {
    /// Builds the global tier, closes what a stopped server left running, and starts the
    /// event fan-out.
    pub async fn start(options: CoreOptions) -> Result<ServerCore, CoreError> {
        let loop_needs = [Consumer::of::<LoopServices>(LoopServices::CONSUMER)];
        let runtime = Runtime::start_for(options.graph, &loop_needs)
            .await
            .map_err(|e| CoreError::Start(e.to_string()))?;
        let store = runtime
            .global()
            .get::<Store>()
            .map_err(|e| CoreError::Start(e.to_string()))?;
        let closed = recovery::close_orphaned_turns(&store)?;
        if closed > 0 {
            tracing::warn!(closed, "closed turns left running by a stopped server");
        }
        let stop = CancellationToken::new();
        let hub = Hub::start(store.clone(), stop.clone())?;
        let core = ServerCore {
            inner: Arc::new(Inner {
                runtime,
                store,
                default_dir: options.default_dir,
                instances: instances::Instances::default(),
                overlays: Default::default(),
                hub,
                turns: turns::Turns::default(),
                active: session_end::Active::default(),
                closed: stop,
            }),
        };
        core.settle_lost_prompts().await?;
        Ok(core)
    }

    /// The session database.
    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// The project used when a request names none.
    pub fn default_dir(&self) -> &Path {
        &self.inner.default_dir
    }

    /// The API key files: `auth.json` in the server's data directory (written by `PUT
    /// /auth/{id}`), then opencode's, read only.
    pub fn credentials(&self) -> Result<Credentials, CoreError> {
        let flags = self
            .inner
            .runtime
            .global()
            .get::<RuntimeFlags>()
            .map_err(|e| CoreError::Internal(e.to_string()))?;
        let env = |k: &str| std::env::var(k).ok();
        Ok(Credentials::standard(
            &flags.data_dir,
            &flags.home_dir,
            &env,
        ))
    }

    /// The worktree operations (`/experimental/worktree`).
    pub fn worktrees(&self) -> Result<strata_services::worktree::Worktrees, CoreError> {
        self.inner
            .runtime
            .global()
            .get::<strata_services::worktree::Worktrees>()
            .map_err(|e| CoreError::Internal(e.to_string()))
    }

    /// The event fan-out.
    pub fn hub(&self) -> &Hub {
        &self.inner.hub
    }

    /// The instance of `dir`, built on first use.
    pub async fn instance(&self, dir: &Path) -> Result<Arc<InstanceEntry>, CoreError> {
        self.instance_keyed(dir, None).await
    }

    /// Binds session `session_id` to `overlay`: from now on its turns run in the instance of
    /// its directory built with the overlay's services (one instance per overlay key).
    pub fn bind_overlay(&self, session_id: &str, overlay: Overlay) {
        let mut overlays = self
            .inner
            .overlays
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        overlays.insert(session_id.to_string(), overlay);
    }

    /// The instance session `session_id`'s turns run in: its overlay's if it is bound to one,
    /// else its directory's.
    pub async fn session_instance(
        &self,
        session_id: &str,
    ) -> Result<Arc<InstanceEntry>, CoreError> {
        let row = self.session_row(session_id)?;
        let overlay = self.overlay_of(session_id);
        self.instance_keyed(&row.directory, overlay.as_ref()).await
    }

    fn overlay_of(&self, session_id: &str) -> Option<Overlay> {
        // Each critical section is one insert or lookup: a poisoned map is still whole.
        let overlays = self
            .inner
            .overlays
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        overlays.get(session_id).cloned()
    }

    async fn instance_keyed(
        &self,
        dir: &Path,
        overlay: Option<&Overlay>,
    ) -> Result<Arc<InstanceEntry>, CoreError> {
        if self.inner.closed.is_cancelled() {
            return Err(CoreError::ShuttingDown);
        }
        let entry = self
            .inner
            .instances
            .get_or_build(&self.inner.runtime, dir, overlay, &self.inner.hub)
            .await?;
        // The server keeps undo points (snapshots are off for one-shot commands).
        if let Ok(snapshots) = entry.instance.get::<strata_services::snapshot::Snapshots>() {
            snapshots.set_enabled(true);
        }
        Ok(entry)
    }

    /// Every stored event after `after` (a cursor from an SSE `id:` line), then live ones,
    /// filtered. Without a cursor, a new subscriber still gets the events of the turns running
    /// in its scope from their start, so a client that subscribes just after prompting misses
    /// nothing.
    pub fn subscribe(&self, filter: EventFilter, after: Option<i64>) -> Subscription {
        let after = after.or_else(|| {
            self.inner
                .turns
                .earliest_running_start(&filter)
                .map(|start| start - 1)
        });
        self.inner.hub.subscribe(filter, after)
    }

    /// Cancels the session's running turn (its tools' process groups are killed). `false` when
    /// nothing was running.
    pub fn abort(&self, session_id: &str) -> bool {
        self.inner.turns.abort(session_id)
    }

    /// Whether [`shutdown`](Self::shutdown) has begun.
    pub fn is_closed(&self) -> bool {
        self.inner.closed.is_cancelled()
    }

    /// Sessions with a running or queued turn: `busy`.
    pub fn busy_sessions(&self) -> Vec<String> {
        self.inner.turns.busy()
    }

    /// Stops taking work, cancels running turns, ends the sessions prompted here (their
    /// `SessionEnd` hooks run with `reason: "other"`), disposes every instance (pending
    /// permission requests and questions are rejected), then closes the global tier.
    pub async fn shutdown(&self) {
        self.inner.turns.abort_all();
        self.end_sessions("other").await;
        self.inner.instances.dispose_all(&self.inner.hub).await;
        self.inner.closed.cancel();
        self.inner.runtime.shutdown().await;
    }
}
