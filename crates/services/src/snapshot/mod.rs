//! Snapshots: the project's files (tracked and untracked, gitignored left out) captured in a
//! shadow git repository under the data directory, so a session's changes can be listed and
//! undone. The project's own `.git` is never touched.
//!
//! A snapshot is a git tree. [`Snapshots::mark`] captures one for a (session, message) the
//! first time that message is about to change files, and keeps it under a ref named after
//! them; revert restores the earliest mark at or after a message, and [`Snapshots::changes`]
//! diffs two snapshots (or a snapshot and the files now).
//!
//! Off unless switched on ([`Snapshots::set_enabled`]; `strata serve` does, and
//! `STRATA_SNAPSHOT=1` does for any command): a capture costs a `git add` of the project.
//! Without `git` on the PATH a capture fails with an error saying so.
//!
//! The store cannot eat the disk: untracked files over 10 MiB and untracked folders with more
//! than 200 entries are left out ([`skip`]), a home directory or a file system root is never
//! snapshotted, and [`Snapshots::enforce_budget`] keeps each shadow repository under
//! `snapshot.max_mb` by dropping the oldest snapshots no live session can revert to.

mod budget;
mod git;
mod live;
mod parse;
mod scan;
pub mod skip;

use std::path::Path;
use std::sync::Arc;

use strata_graph::{BoxError, Node, Scope, Tier};

use crate::flags::RuntimeFlags;
use crate::process::ChildProcessSpawner;

pub use budget::{BudgetReport, Liveness, disk_usage};
pub use parse::FileChange;
pub use skip::{SkipReason, Skipped};

/// The default of `snapshot.max_mb`: each shadow repository may take this many MiB.
pub const DEFAULT_MAX_MB: u64 = 2048;

/// Why a snapshot could not be taken, restored or compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("snapshot {action} failed in {worktree}: {detail}")]
pub struct SnapshotError {
    /// `capture`, `restore`, `diff`, …
    pub action: &'static str,
    pub worktree: String,
    pub detail: String,
}

/// Handle to the snapshot store (global tier: one per process, a shadow repo per worktree).
#[derive(Clone)]
pub struct Snapshots(Arc<live::LiveSnapshots>);

impl strata_graph::Service for Snapshots {
    const KEY: &'static str = "Snapshots";
}

impl std::fmt::Debug for Snapshots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshots")
            .field("enabled", &self.enabled())
            .finish()
    }
}

impl Snapshots {
    /// Shadow repositories under `<data dir>/snapshot/`, run with the given spawner.
    pub fn new(spawner: ChildProcessSpawner, flags: &RuntimeFlags) -> Self {
        let on = std::env::var("STRATA_SNAPSHOT")
            .is_ok_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true"));
        Self(Arc::new(live::LiveSnapshots::new(
            spawner,
            flags.data_dir.join("snapshot"),
            flags.home_dir.clone(),
            on,
        )))
    }

    /// The production node (global tier).
    pub fn node() -> Node {
        Node::new(
            Tier::Global,
            |(spawner, flags): (ChildProcessSpawner, RuntimeFlags), _s: Scope| async move {
                Ok::<_, BoxError>(Snapshots::new(spawner, &flags))
            },
        )
    }

    pub fn enabled(&self) -> bool {
        self.0.enabled()
    }

    /// Turns marking on or off for the whole process.
    pub fn set_enabled(&self, on: bool) {
        self.0.set_enabled(on);
    }

    /// Tells the store which sessions still exist: only the snapshots of sessions for which
    /// `live` says `false` may be dropped to keep under the budget. Until this is set, none is.
    pub fn set_liveness(&self, live: Liveness) {
        self.0.set_liveness(live);
    }

    /// Why `worktree` is never snapshotted (a home directory or a file system root), if so.
    pub fn refused(&self, worktree: &Path) -> Option<SnapshotError> {
        self.0.refused(worktree)
    }

    /// Captures the files of `worktree` now; returns the tree id. Nothing keeps the tree: a
    /// collection may remove it (use [`Snapshots::keep`] for a tree that must last).
    pub async fn capture(&self, worktree: &Path) -> Result<String, SnapshotError> {
        self.0.capture(worktree).await
    }

    /// Captures the files of `worktree` and keeps the tree while `session` lives (one kept
    /// tree per session, replaced by the next): the files before a revert, for unrevert.
    pub async fn keep(&self, worktree: &Path, session: &str) -> Result<String, SnapshotError> {
        self.0.keep(worktree, session).await
    }

    /// What the snapshots of `worktree` leave out, as of its last capture in this process.
    pub async fn skipped(&self, worktree: &Path) -> Result<Vec<Skipped>, SnapshotError> {
        self.0.skipped(worktree).await
    }

    /// Measures the shadow repository of `worktree` and, past `max_bytes`, collects it and
    /// drops its oldest snapshots that no live session can revert to.
    pub async fn enforce_budget(
        &self,
        worktree: &Path,
        max_bytes: u64,
    ) -> Result<BudgetReport, SnapshotError> {
        self.0.enforce_budget(worktree, max_bytes).await
    }

    /// Captures `worktree` for (`session`, `message`) unless that message already has a mark
    /// or snapshots are off. Returns the message's mark, if any.
    pub async fn mark(
        &self,
        worktree: &Path,
        session: &str,
        message: &str,
    ) -> Result<Option<String>, SnapshotError> {
        if !self.enabled() || self.0.refused(worktree).is_some() {
            return Ok(None);
        }
        self.0.mark(worktree, session, message).await.map(Some)
    }

    /// The session's marks: (message id, tree id), in message id order.
    pub async fn marks(
        &self,
        worktree: &Path,
        session: &str,
    ) -> Result<Vec<(String, String)>, SnapshotError> {
        self.0.marks(worktree, session).await
    }

    /// Makes the files of `worktree` what they were in `tree`: changed and deleted files are
    /// written back, files added since are removed. Returns the paths it touched.
    pub async fn restore(&self, worktree: &Path, tree: &str) -> Result<Vec<String>, SnapshotError> {
        self.0.restore(worktree, tree).await
    }

    /// What changed from `from` to `to` (the files now when `to` is `None`).
    pub async fn changes(
        &self,
        worktree: &Path,
        from: &str,
        to: Option<&str>,
    ) -> Result<Vec<FileChange>, SnapshotError> {
        self.0.changes(worktree, from, to).await
    }
}
