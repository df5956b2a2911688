//! FileTime: what each session has read, and the read-before-edit check (spec §18 a).
//!
//! For every (session, resolved path) it keeps the file's mtime and size when the session last
//! read or wrote it, plus a content hash when the whole file was seen. `edit` and `write` call
//! [`FileTime::assert_fresh`] before changing an existing file, so the model never overwrites
//! changes it has not seen. [`FileTime::lock`] serialises writes to one file.
//!
//! The service does not touch the disk itself: callers pass the path already resolved (so
//! aliases share one record and one lock), the current `(mtime, size)`, and a future that hashes
//! the current content, which is only awaited when mtime or size changed.

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use sha2::{Digest, Sha256};
use strata_graph::{BoxError, Node, Scope, Tier};
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

use crate::config::Config;

/// SHA-256 of a file's whole content.
pub type ContentHash = [u8; 32];

/// The hash FileTime compares: SHA-256 of `bytes`.
pub fn hash_bytes(bytes: &[u8]) -> ContentHash {
    Sha256::digest(bytes).into()
}

/// What a session last saw of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadRecord {
    pub mtime: SystemTime,
    pub size: u64,
    /// Present only when the whole file was read (or written) at that moment.
    pub hash: Option<ContentHash>,
}

/// Why an edit of an existing file must wait for a fresh read. Shown to the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileTimeError {
    #[error(
        "{} has not been read in this session. Read it with the `read` tool first, then edit or \
         overwrite it.",
        .path.display()
    )]
    NeverRead { path: PathBuf },
    #[error(
        "{} was modified on disk after you last read it. Read it again with the `read` tool \
         before changing it.",
        .path.display()
    )]
    Stale { path: PathBuf },
}

/// Handle to one instance's read records and per-file write locks. Clones share them.
#[derive(Clone)]
pub struct FileTime {
    inner: Arc<Inner>,
}

impl strata_graph::Service for FileTime {
    const KEY: &'static str = "FileTime";
}

struct Inner {
    enabled: bool,
    reads: Mutex<HashMap<(String, PathBuf), ReadRecord>>,
    locks: Mutex<HashMap<PathBuf, Arc<AsyncMutex<()>>>>,
}

impl std::fmt::Debug for FileTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileTime")
            .field("enabled", &self.inner.enabled)
            .field("records", &lock(&self.inner.reads).len())
            .finish()
    }
}

impl FileTime {
    /// `enabled` is config `tools.read_before_edit`; when false, `assert_fresh` always passes
    /// (records and locks still work).
    pub fn new(enabled: bool) -> Self {
        FileTime {
            inner: Arc::new(Inner {
                enabled,
                reads: Mutex::new(HashMap::new()),
                locks: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// The instance-tier node: needs [`Config`] for `tools.read_before_edit`.
    pub fn node() -> Node {
        Node::new(
            Tier::Instance,
            |(config,): (Config,), _scope: Scope| async move {
                Ok::<_, BoxError>(FileTime::new(config.data().tools.read_before_edit))
            },
        )
    }

    /// The instance-tier node with the check off whatever the config says: the one-shot
    /// `strata tool` command, where a person at the command line knows what they edit.
    pub fn node_unchecked() -> Node {
        Node::new(Tier::Instance, |(): (), _scope: Scope| async move {
            Ok::<_, BoxError>(FileTime::new(false))
        })
    }

    pub fn enabled(&self) -> bool {
        self.inner.enabled
    }

    /// Notes that `session` has just seen `path` (after a read, or after its own write) with
    /// this mtime and size; `hash` only when the whole content was seen.
    pub fn record_read(
        &self,
        session: &str,
        path: &Path,
        mtime: SystemTime,
        size: u64,
        hash: Option<ContentHash>,
    ) {
        let record = ReadRecord { mtime, size, hash };
        lock(&self.inner.reads).insert(key(session, path), record);
    }

    /// What `session` last saw of `path`.
    pub fn get(&self, session: &str, path: &Path) -> Option<ReadRecord> {
        lock(&self.inner.reads).get(&key(session, path)).cloned()
    }

    /// Drops every record of `session` (e.g. when the session is deleted).
    pub fn forget_session(&self, session: &str) {
        lock(&self.inner.reads).retain(|(s, _), _| s != session);
    }

    /// Passes when `session` has read `path` and it has not changed since: same mtime and size,
    /// or else the same content hash (`hash_now`, awaited only then), in which case the record
    /// takes the new mtime and size. Always passes when the check is disabled.
    pub async fn assert_fresh<F>(
        &self,
        session: &str,
        path: &Path,
        current: (SystemTime, u64),
        hash_now: F,
    ) -> Result<(), FileTimeError>
    where
        F: Future<Output = Option<ContentHash>>,
    {
        if !self.inner.enabled {
            return Ok(());
        }
        let (mtime, size) = current;
        let Some(record) = self.get(session, path) else {
            return Err(FileTimeError::NeverRead {
                path: path.to_path_buf(),
            });
        };
        if record.mtime == mtime && record.size == size {
            return Ok(());
        }
        let stale = || FileTimeError::Stale {
            path: path.to_path_buf(),
        };
        let Some(recorded) = record.hash else {
            return Err(stale());
        };
        match hash_now.await {
            Some(now) if now == recorded => {
                let mut reads = lock(&self.inner.reads);
                // Only refresh the record we compared against; a newer one stays.
                if let Some(entry) = reads.get_mut(&key(session, path))
                    && entry.hash == Some(recorded)
                {
                    entry.mtime = mtime;
                    entry.size = size;
                }
                Ok(())
            }
            _ => Err(stale()),
        }
    }

    /// The write lock of `path`: holders run one after the other, in the order they asked.
    pub async fn lock(&self, path: &Path) -> OwnedMutexGuard<()> {
        let mutex = {
            let mut locks = lock(&self.inner.locks);
            // Forget locks nobody holds or waits for, so the map stays as small as the set of
            // files being written.
            locks.retain(|p, m| p == path || Arc::strong_count(m) > 1);
            locks.entry(path.to_path_buf()).or_default().clone()
        };
        mutex.lock_owned().await
    }
}

fn key(session: &str, path: &Path) -> (String, PathBuf) {
    (session.to_string(), path.to_path_buf())
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The maps stay consistent between statements, so a poisoned lock is still usable.
    m.lock().unwrap_or_else(|e| e.into_inner())
}
