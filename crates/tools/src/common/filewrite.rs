//! What `write`, `edit` and `apply_patch` share around a write: the read-before-edit check,
//! the formatter, the bookkeeping after it (events, FileTime refresh) and the language
//! server's diagnostics.

use std::path::{Path, PathBuf};

use strata_services::bus::{Bus, FileEdited, FileWatcher, WatchKind};
use strata_services::file_time::{FileTime, hash_bytes};
use strata_services::format::Formatter;
use strata_services::fs::{FileKind, FsUtil, Metadata};
use strata_services::instance::InstanceInfo;
use strata_services::lsp::Lsp;
use tokio::sync::OwnedMutexGuard;

use super::bom::{split_bom, with_bom};
use super::diagnostics::Report;
use super::external::{self, Kind};
use crate::contract::{ToolCx, ToolError};

/// The services every file-changing tool (`edit`, `write`, `apply_patch`) declares.
pub(crate) type WriterDeps = (InstanceInfo, FsUtil, FileTime, Bus, Lsp, Formatter);

/// Those services, held by a file-changing tool.
#[derive(Debug)]
pub(crate) struct Writer {
    pub info: InstanceInfo,
    pub fs: FsUtil,
    pub file_time: FileTime,
    pub bus: Bus,
    pub lsp: Lsp,
    pub formatter: Formatter,
}

/// Records in FileTime that the call's session has seen `path` as `meta`, holding `bytes`.
pub(crate) fn record_seen(
    file_time: &FileTime,
    cx: &ToolCx,
    path: &Path,
    meta: &Metadata,
    bytes: &[u8],
) {
    let hash = Some(hash_bytes(bytes));
    file_time.record_read(&cx.session_id, path, meta.mtime, meta.len, hash);
}

/// The one file an `edit` or `write` call changes, ready to be read and written.
pub(crate) struct Target {
    pub path: PathBuf,
    /// The path as the call's title shows it (relative to the project).
    pub title: String,
    /// The file as it is now; `None` when it does not exist yet.
    pub stat: Option<Metadata>,
    /// Keeps other changes to the file out while it is held: bind it for the whole call.
    pub lock: OwnedMutexGuard<()>,
}

/// Files larger than this are not edited in memory.
pub(crate) const MAX_EDIT_BYTES: u64 = 64 * 1024 * 1024;

impl Writer {
    pub(crate) fn new((info, fs, file_time, bus, lsp, formatter): WriterDeps) -> Self {
        Writer {
            info,
            fs,
            file_time,
            bus,
            lsp,
            formatter,
        }
    }

    /// Resolves `file_path` from the project directory, applies the external-directory rule,
    /// locks the file (by its real path) against other changes, then reads its metadata.
    pub(crate) async fn open(&self, cx: &ToolCx, file_path: &str) -> Result<Target, ToolError> {
        let path = self.info.resolve(file_path);
        let title = self.info.relative(&path);
        external::check(cx, &self.info, &self.fs, &path, Kind::File).await?;
        let real = self.fs.resolve_real(&path).await;
        let lock = self.file_time.lock(&real).await;
        let stat = self.fs.stat(&path).await?;
        Ok(Target {
            path,
            title,
            stat,
            lock,
        })
    }

    /// Runs the file's formatters, then gives the file back the BOM state it was written with
    /// (atomically); returns the final content, or `None` when no formatter ran.
    pub(crate) async fn format(&self, path: &Path, bom: bool) -> Option<String> {
        if !self.formatter.format(path).await {
            return None;
        }
        let text = self.read_text(path).await.ok()?;
        let synced = with_bom(bom, split_bom(&text).1);
        if synced != text
            && let Err(e) = self.fs.write_atomic(path, synced.as_bytes()).await
        {
            tracing::warn!(path = %path.display(), error = %e, "could not restore the BOM after formatting");
            return Some(text);
        }
        Some(synced)
    }

    /// The language servers' diagnostics once they have seen the `changed` files.
    pub(crate) async fn diagnostics(&self, changed: &[&Path]) -> Report {
        Report::after_change(&self.lsp, changed).await
    }

    /// Reads a file to edit, as text (invalid UTF-8 replaced).
    pub(crate) async fn read_text(&self, path: &Path) -> Result<String, ToolError> {
        let bytes = self.fs.read(path, MAX_EDIT_BYTES).await?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// A file as a plan sees it: its text, or `None` when no regular file is at `path`.
    pub(crate) async fn read_state(&self, path: &Path) -> Result<Option<String>, ToolError> {
        match self.fs.stat(path).await? {
            Some(m) if m.kind == FileKind::File => Ok(Some(self.read_text(path).await?)),
            _ => Ok(None),
        }
    }

    /// The read-before-edit check (spec §18 a), unless FileTime has it off (config
    /// `tools.read_before_edit`, or the one-shot CLI).
    pub(crate) async fn check_fresh(&self, cx: &ToolCx, path: &Path) -> Result<(), ToolError> {
        if !self.file_time.enabled() {
            return Ok(());
        }
        let meta = self
            .fs
            .stat(path)
            .await?
            .ok_or_else(|| ToolError::model(format!("{} does not exist.", path.display())))?;
        let hash_now = async {
            self.fs
                .read(path, MAX_EDIT_BYTES)
                .await
                .ok()
                .map(|b| hash_bytes(&b))
        };
        self.file_time
            .assert_fresh(&cx.session_id, path, (meta.mtime, meta.len), hash_now)
            .await
            .map_err(ToolError::from)
    }

    /// After a successful write: events on the Bus and a fresh FileTime record, so the next
    /// edit in this session needs no new read.
    pub(crate) async fn after_write(&self, cx: &ToolCx, path: &Path, kind: WatchKind) {
        self.bus.publish(FileEdited {
            path: path.to_path_buf(),
        });
        self.bus.publish(FileWatcher {
            path: path.to_path_buf(),
            kind,
        });
        if kind == WatchKind::Unlink {
            return;
        }
        let (meta, bytes) = (
            self.fs.stat(path).await,
            self.fs.read(path, MAX_EDIT_BYTES).await,
        );
        if let (Ok(Some(meta)), Ok(bytes)) = (meta, bytes) {
            record_seen(&self.file_time, cx, path, &meta, &bytes);
        }
    }
}
