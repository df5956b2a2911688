//! What `write`, `edit` and `apply_patch` share around a write: the read-before-edit check,
//! and the bookkeeping after it (events, FileTime refresh).

use std::path::Path;

use strata_services::bus::{Bus, FileEdited, FileWatcher, WatchKind};
use strata_services::file_time::{FileTime, hash_bytes};
use strata_services::fs::FsUtil;

use crate::contract::{ToolCx, ToolError};

/// Files larger than this are not edited in memory.
pub const MAX_EDIT_BYTES: u64 = 64 * 1024 * 1024;

/// Reads a file to edit, as text (invalid UTF-8 replaced).
pub async fn read_text(fs: &FsUtil, path: &Path) -> Result<String, ToolError> {
    let bytes = fs
        .read(path, MAX_EDIT_BYTES)
        .await
        .map_err(|e| ToolError::model(e.to_string()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The read-before-edit check (spec §18 a), unless the call turned it off.
pub async fn check_fresh(
    cx: &ToolCx,
    file_time: &FileTime,
    fs: &FsUtil,
    path: &Path,
) -> Result<(), ToolError> {
    if !cx.read_before_edit {
        return Ok(());
    }
    let meta = fs
        .stat(path)
        .await
        .map_err(|e| ToolError::model(e.to_string()))?
        .ok_or_else(|| ToolError::model(format!("{} does not exist.", path.display())))?;
    let hash_now = async {
        fs.read(path, MAX_EDIT_BYTES)
            .await
            .ok()
            .map(|b| hash_bytes(&b))
    };
    file_time
        .assert_fresh(&cx.session_id, path, (meta.mtime, meta.len), hash_now)
        .await
        .map_err(|e| ToolError::model(e.to_string()))
}

/// After a successful write: events on the Bus and a fresh FileTime record, so the next edit
/// in this session needs no new read.
pub async fn after_write(
    cx: &ToolCx,
    file_time: &FileTime,
    fs: &FsUtil,
    bus: &Bus,
    path: &Path,
    kind: WatchKind,
) {
    bus.publish(FileEdited {
        path: path.to_path_buf(),
    });
    bus.publish(FileWatcher {
        path: path.to_path_buf(),
        kind,
    });
    if kind == WatchKind::Unlink {
        return;
    }
    if let (Ok(Some(meta)), Ok(bytes)) = (fs.stat(path).await, fs.read(path, MAX_EDIT_BYTES).await)
    {
        file_time.record_read(
            &cx.session_id,
            path,
            meta.mtime,
            meta.len,
            Some(hash_bytes(&bytes)),
        );
    }
}
