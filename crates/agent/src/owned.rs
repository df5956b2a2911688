//! Ownership records that let [`crate::recover`] clean up after a killed process:
//! - [`RunGuard`]: the row saying this process runs a session, marked ended when the run
//!   ends (also on an error or a cancellation; only a killed process leaves it open);
//! - [`RecordingSpawner`]: the live spawner, plus a row for each process group a tool starts,
//!   forgotten when the child is dropped.

use async_trait::async_trait;
use strata_services::process::{
    Child, ChildProcessSpawner, CommandSpec, ProcessError, ProcessIdentity, SpawnApi,
};

use crate::store::{Store, StoreError};

/// Marks its run ended when dropped.
#[derive(Debug)]
pub struct RunGuard {
    store: Store,
    id: Option<i64>,
}

impl RunGuard {
    /// Records that this process runs `session_id`. Where this process cannot identify itself
    /// (no `/proc`), nothing is recorded and recovery never treats the run as dead.
    pub fn begin(store: &Store, session_id: &str) -> Result<Self, StoreError> {
        let id = match ProcessIdentity::current() {
            Some(me) => Some(store.begin_run(session_id, &me)?),
            None => None,
        };
        Ok(Self {
            store: store.clone(),
            id,
        })
    }
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        if let Some(id) = self.id
            && let Err(e) = self.store.end_run(id)
        {
            tracing::warn!("could not mark run {id} ended: {e}");
        }
    }
}

/// Spawns through `inner` and records each child's process group under this process.
pub(crate) struct RecordingSpawner {
    inner: ChildProcessSpawner,
    store: Store,
    owner: Option<ProcessIdentity>,
}

impl RecordingSpawner {
    pub(crate) fn new(inner: ChildProcessSpawner, store: Store) -> Self {
        Self {
            inner,
            store,
            owner: ProcessIdentity::current(),
        }
    }
}

#[async_trait]
impl SpawnApi for RecordingSpawner {
    async fn spawn(&self, spec: CommandSpec) -> Result<Child, ProcessError> {
        let mut child = self.inner.spawn(spec).await?;
        let Some(owner) = self.owner.clone() else {
            return Ok(child);
        };
        let pgid = child.pid();
        // A leader that already exited needs no record: its group is ended on drop or is gone.
        let Some(leader) = ProcessIdentity::of(pgid) else {
            return Ok(child);
        };
        match self
            .store
            .record_group(&owner, pgid, leader.start_ticks, child.command())
        {
            Ok(()) => {
                let store = self.store.clone();
                child.on_drop(move || {
                    if let Err(e) = store.forget_group(&owner, pgid) {
                        tracing::warn!("could not forget process group {pgid}: {e}");
                    }
                });
            }
            // The command still runs; only its clean-up after a crash is lost.
            Err(e) => tracing::warn!("could not record process group {pgid}: {e}"),
        }
        Ok(child)
    }
}
