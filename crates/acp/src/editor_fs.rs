//! The editor's buffers as a file system: an [`FsApi`] over the disk `FsUtil` that sends the
//! text reads and writes of files inside the project to the editor (`fs/read_text_file`,
//! `fs/write_text_file`), so unsaved changes are seen and edits land in the editor. Everything
//! else (stat, listings, real paths, removals, renames) and every binary file stays on disk.
//!
//! An ACP session's instance is built with this in place of the global `FsUtil` (see
//! [`overlay`]), so `read`, `write`, `edit` and `apply_patch` use it without knowing.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{ReadTextFileRequest, WriteTextFileRequest};
use async_trait::async_trait;
use strata_graph::Context;
use strata_server::core::Overlay;
use strata_services::fs::{ByteStream, DirEntry, FsApi, FsError, FsUtil, Metadata, contains};

/// How much of a file on disk is looked at to tell text from binary.
const SNIFF: usize = 8 * 1024;

/// The editor side of one session: its connection, its ACP session id and its project.
#[derive(Clone)]
pub(crate) struct EditorFs {
    disk: FsUtil,
    cx: ConnectionTo<Client>,
    session: String,
    project: PathBuf,
    /// Off until the editor knows the session (after `session/new` or `session/load` answered):
    /// what the instance reads while it is built comes from the disk.
    live: Arc<AtomicBool>,
}

/// Turns the editor's file access on once the editor knows the session.
#[derive(Debug, Clone)]
pub(crate) struct Switch(Arc<AtomicBool>);

impl Switch {
    pub(crate) fn on(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// The overlay a session's instance is built with: this file system as its `FsUtil`, keyed by
/// `key` (the connection and the session), so no other session shares the instance.
pub(crate) fn overlay(
    key: String,
    disk: FsUtil,
    cx: ConnectionTo<Client>,
    session: &str,
    project: &Path,
) -> (Overlay, Switch) {
    let live = Arc::new(AtomicBool::new(false));
    let fs = EditorFs {
        disk,
        cx,
        session: session.to_string(),
        project: project.to_path_buf(),
        live: live.clone(),
    };
    let services = Context::new().with(FsUtil::new(fs));
    (Overlay { key, services }, Switch(live))
}

/// Whether `bytes` (the start of a file) is text: no NUL, and UTF-8 but for a character cut
/// at the end.
fn looks_like_text(bytes: &[u8]) -> bool {
    if bytes.contains(&0) {
        return false;
    }
    match std::str::from_utf8(bytes) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && bytes.len() == SNIFF,
    }
}

fn editor_error(path: &Path, op: &'static str, e: agent_client_protocol::Error) -> FsError {
    FsError::Io {
        path: path.to_path_buf(),
        op,
        source: std::io::Error::other(format!("the editor answered: {e}")),
    }
}

impl EditorFs {
    /// Whether the editor serves `path`: its access is on, the path is inside the project,
    /// and the file on disk is text. A file not on disk is the editor's to create when
    /// `absent_ok` (a write); a read of it is the disk's (nothing there, one answer, no round
    /// trip for every probe of a missing file).
    async fn serves(&self, path: &Path, absent_ok: bool) -> bool {
        if !self.live.load(Ordering::SeqCst) || !contains(&self.project, path) {
            return false;
        }
        match self.disk.read_head(path, SNIFF).await {
            Ok(head) => looks_like_text(&head),
            Err(FsError::NotFound { .. }) => absent_ok,
            Err(_) => false,
        }
    }

    /// The buffer's text; `None` when the editor could not give it (the disk answers then).
    async fn editor_text(&self, path: &Path) -> Option<String> {
        let request = ReadTextFileRequest::new(self.session.clone(), path.to_path_buf());
        match self.cx.send_request(request).block_task().await {
            Ok(r) => Some(r.content),
            Err(e) => {
                tracing::debug!(path = %path.display(), error = %e,
                    "the editor did not read a file; reading it from disk");
                None
            }
        }
    }

    /// The text to serve for `path` from the editor, if it serves it.
    async fn text(&self, path: &Path) -> Option<String> {
        if !self.serves(path, false).await {
            return None;
        }
        self.editor_text(path).await
    }
}

#[async_trait]
impl FsApi for EditorFs {
    async fn stat(&self, path: &Path) -> Result<Option<Metadata>, FsError> {
        self.disk.stat(path).await
    }

    async fn read(&self, path: &Path, max_bytes: u64) -> Result<Vec<u8>, FsError> {
        let Some(text) = self.text(path).await else {
            return self.disk.read(path, max_bytes).await;
        };
        let size = text.len() as u64;
        if size > max_bytes {
            return Err(FsError::TooLarge {
                path: path.to_path_buf(),
                size,
                limit: max_bytes,
            });
        }
        Ok(text.into_bytes())
    }

    async fn read_head(&self, path: &Path, n: usize) -> Result<Vec<u8>, FsError> {
        let Some(text) = self.text(path).await else {
            return self.disk.read_head(path, n).await;
        };
        let mut bytes = text.into_bytes();
        bytes.truncate(n);
        Ok(bytes)
    }

    async fn stream(&self, path: &Path, chunk_size: usize) -> Result<ByteStream, FsError> {
        let Some(text) = self.text(path).await else {
            return self.disk.stream(path, chunk_size).await;
        };
        let bytes = bytes::Bytes::from(text.into_bytes());
        let step = chunk_size.max(1);
        let chunks: Vec<Result<bytes::Bytes, FsError>> = (0..bytes.len())
            .step_by(step)
            .map(|at| Ok(bytes.slice(at..(at + step).min(bytes.len()))))
            .collect();
        Ok(Box::pin(futures::stream::iter(chunks)))
    }

    async fn write_atomic(&self, path: &Path, data: &[u8]) -> Result<(), FsError> {
        let text = match std::str::from_utf8(data) {
            Ok(t) if !data.contains(&0) && self.serves(path, true).await => t,
            _ => return self.disk.write_atomic(path, data).await,
        };
        // The disk path keeps its promise to create missing parents; so does this one.
        if let Some(parent) = path.parent()
            && !self.disk.exists(parent).await
        {
            self.disk.create_dir_all(parent).await?;
        }
        let request =
            WriteTextFileRequest::new(self.session.clone(), path.to_path_buf(), text.to_string());
        self.cx
            .send_request(request)
            .block_task()
            .await
            .map(|_| ())
            .map_err(|e| editor_error(path, "write through the editor", e))
    }

    async fn read_dir(&self, path: &Path) -> Result<Vec<DirEntry>, FsError> {
        self.disk.read_dir(path).await
    }

    async fn realpath(&self, path: &Path) -> Result<PathBuf, FsError> {
        self.disk.realpath(path).await
    }

    async fn resolve_real(&self, path: &Path) -> PathBuf {
        self.disk.resolve_real(path).await
    }

    async fn create_dir_all(&self, path: &Path) -> Result<(), FsError> {
        self.disk.create_dir_all(path).await
    }

    async fn remove_file(&self, path: &Path) -> Result<(), FsError> {
        self.disk.remove_file(path).await
    }

    async fn remove_dir(&self, path: &Path) -> Result<(), FsError> {
        self.disk.remove_dir(path).await
    }

    async fn rename(&self, from: &Path, to: &Path) -> Result<(), FsError> {
        self.disk.rename(from, to).await
    }

    async fn set_mode(&self, path: &Path, mode: u32) -> Result<(), FsError> {
        self.disk.set_mode(path, mode).await
    }

    async fn exists(&self, path: &Path) -> bool {
        self.disk.exists(path).await
    }

    fn is_executable(&self, path: &Path) -> bool {
        self.disk.is_executable(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_told_from_binary_by_its_first_bytes() {
        assert!(looks_like_text(b"fn main() {}\n"));
        assert!(looks_like_text(b""));
        assert!(!looks_like_text(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"));
        assert!(!looks_like_text(b"caf\xff"));
        // A character cut by the sniff window is still text.
        let mut cut = vec![b'a'; SNIFF - 1];
        cut.push(0xc3);
        assert!(looks_like_text(&cut));
    }
}
