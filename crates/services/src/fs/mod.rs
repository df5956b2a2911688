//! FsUtil: the only way tools touch the filesystem.
//!
//! Bounded whole-file reads, lazy byte streams that can be stopped early, atomic writes that
//! keep permissions and symlinks (spec §18 e), stat, directory listing and real-path
//! resolution. The pure path helpers of spec §0.3 live in [`path`] and are re-exported here.

mod error;
pub mod journal;
mod live;
pub mod path;
mod write;

#[cfg(test)]
mod tests;

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use async_trait::async_trait;
use futures::Stream;

pub use error::FsError;
pub use path::{contains, normalize, relative_to, resolve, to_slash};

/// What kind of thing a path names (after following symlinks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    File,
    Dir,
    /// Sockets, devices, FIFOs, dangling symlinks in listings.
    Other,
}

/// What `stat` reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    pub kind: FileKind,
    pub len: u64,
    pub mtime: SystemTime,
    /// Permission bits (`mode & 0o7777`).
    pub mode: u32,
    /// No write bit is set for anyone.
    pub readonly: bool,
    /// The path itself is a symlink (the other fields describe its target).
    pub is_symlink: bool,
}

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    pub name: String,
    pub path: PathBuf,
    /// Kind after following symlinks; `Other` for a dangling link.
    pub kind: FileKind,
    pub is_symlink: bool,
}

/// A lazily read file: each poll reads at most one chunk, and dropping the stream stops reading.
pub type ByteStream = Pin<Box<dyn Stream<Item = Result<bytes::Bytes, FsError>> + Send>>;

/// Bytes actually read from disk by every [`ByteStream`] in this process.
static BYTES_STREAMED: AtomicU64 = AtomicU64::new(0);

pub(crate) fn count_streamed(n: usize) {
    BYTES_STREAMED.fetch_add(n as u64, Ordering::Relaxed);
}

/// What a filesystem implementation provides. Every method takes the path it acts on and names
/// it in its errors.
#[async_trait]
pub trait FsApi: Send + Sync + 'static {
    /// Metadata following symlinks; `None` when nothing is there (or a symlink dangles).
    async fn stat(&self, path: &Path) -> Result<Option<Metadata>, FsError>;
    /// The whole file, or `TooLarge` when it holds more than `max_bytes`.
    async fn read(&self, path: &Path, max_bytes: u64) -> Result<Vec<u8>, FsError>;
    /// At most the first `n` bytes.
    async fn read_head(&self, path: &Path, n: usize) -> Result<Vec<u8>, FsError>;
    /// A lazy stream of chunks of at most `chunk_size` bytes.
    async fn stream(&self, path: &Path, chunk_size: usize) -> Result<ByteStream, FsError>;
    /// Replaces the file's content atomically (temp file in the same folder, fsync, rename),
    /// keeping its permissions, writing through a symlink and creating missing parents.
    async fn write_atomic(&self, path: &Path, data: &[u8]) -> Result<(), FsError>;
    /// The entries of a directory, sorted by name.
    async fn read_dir(&self, path: &Path) -> Result<Vec<DirEntry>, FsError>;
    /// The canonical path; the path must exist.
    async fn realpath(&self, path: &Path) -> Result<PathBuf, FsError>;
    /// The real path of the nearest existing ancestor with the rest appended; never fails.
    async fn resolve_real(&self, path: &Path) -> PathBuf;
    async fn create_dir_all(&self, path: &Path) -> Result<(), FsError>;
    async fn remove_file(&self, path: &Path) -> Result<(), FsError>;
    /// Removes an empty directory.
    async fn remove_dir(&self, path: &Path) -> Result<(), FsError>;
    async fn rename(&self, from: &Path, to: &Path) -> Result<(), FsError>;
    /// Sets the permission bits (`mode & 0o7777`) of the file or folder at the path.
    async fn set_mode(&self, path: &Path, mode: u32) -> Result<(), FsError>;
    /// Whether something exists at the path (following symlinks); errors count as absent.
    async fn exists(&self, path: &Path) -> bool;
    /// Whether the path is a regular file (after symlinks) with an execute bit. Synchronous (one
    /// `stat`) for callers that choose a program while they are built, such as the shell.
    fn is_executable(&self, path: &Path) -> bool;
}

/// Handle to the filesystem service.
#[derive(Clone)]
pub struct FsUtil(Arc<dyn FsApi>);

impl strata_graph::Service for FsUtil {
    const KEY: &'static str = "FsUtil";
}

impl FsUtil {
    /// Wraps any implementation; changes made inside a [`journal::Journal`] scope are noted.
    pub fn new(api: impl FsApi) -> Self {
        Self(Arc::new(journal::Journaled(api)))
    }

    /// The real filesystem.
    pub fn live() -> Self {
        Self::new(live::LiveFs)
    }

    /// Bytes read from disk so far by all streams of this process.
    pub fn bytes_streamed() -> u64 {
        BYTES_STREAMED.load(Ordering::Relaxed)
    }
}

impl Deref for FsUtil {
    type Target = dyn FsApi;

    fn deref(&self) -> &Self::Target {
        &*self.0
    }
}

impl std::fmt::Debug for FsUtil {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FsUtil")
    }
}
