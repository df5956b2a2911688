//! Atomic replacement of a file's content (spec §18 e).
//!
//! The new bytes go to a temporary file in the target's own directory (so the final rename
//! never crosses filesystems), are flushed to disk, take the old file's permissions and owner,
//! then the temp file is renamed over the target. A reader sees the old or the new content,
//! never a mix. A symlink is followed so the file it points at is replaced and the link kept.

use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::FsError;

/// Mode for brand-new files; the process umask narrows it (0644 under umask 022).
const NEW_FILE_MODE: u32 = 0o666;

/// Longest chain of symlinks followed before giving up, as the kernel does.
const MAX_LINK_HOPS: usize = 40;

pub(crate) fn write_atomic(path: &Path, data: &[u8]) -> Result<(), FsError> {
    let target =
        follow_links(path).map_err(|e| FsError::from_io(e, path, "follow the symlink at"))?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir).map_err(|e| FsError::from_io(e, &dir, "create the directory"))?;

    let existing = match fs::metadata(&target) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(FsError::from_io(e, &target, "inspect")),
    };
    if let Some(meta) = &existing {
        if meta.is_dir() {
            return Err(FsError::IsADirectory { path: target });
        }
        check_writable(&target, meta)?;
    }

    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "strata".to_string());
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .permissions(Permissions::from_mode(NEW_FILE_MODE))
        .tempfile_in(&dir)
        .map_err(|e| FsError::from_io(e, &target, "create a temporary file next to"))?;
    tmp.write_all(data)
        .map_err(|e| FsError::from_io(e, &target, "write the temporary file for"))?;

    if let Some(meta) = &existing {
        let file = tmp.as_file();
        // Root rewriting another user's file should not take it over; a refusal is harmless.
        if let Ok(own) = file.metadata()
            && (own.uid() != meta.uid() || own.gid() != meta.gid())
        {
            let _ = std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()));
        }
        // After chown, which may clear set-id bits.
        file.set_permissions(Permissions::from_mode(meta.mode() & 0o7777))
            .map_err(|e| FsError::from_io(e, &target, "copy the permissions of"))?;
    }
    tmp.as_file()
        .sync_all()
        .map_err(|e| FsError::from_io(e, &target, "flush the new content of"))?;
    tmp.persist(&target)
        .map_err(|e| FsError::from_io(e.error, &target, "replace"))?;
    // Make the rename itself durable; a filesystem that cannot sync a directory loses nothing.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Refuses to replace a file the caller may not write. The rename only needs the directory
/// to be writable, so without this a read-only file would be silently overwritten; the mode
/// bits are checked too because root may open anything.
fn check_writable(target: &Path, meta: &fs::Metadata) -> Result<(), FsError> {
    if meta.permissions().readonly() {
        return Err(FsError::PermissionDenied {
            path: target.to_path_buf(),
        });
    }
    // Only regular files: opening a FIFO for writing would block.
    if meta.is_file() {
        OpenOptions::new()
            .write(true)
            .open(target)
            .map_err(|e| FsError::from_io(e, target, "open for writing"))?;
    }
    Ok(())
}

/// The path a write should land on: follows a chain of symlinks (even a dangling one) to the
/// final target, which may not exist yet.
fn follow_links(path: &Path) -> io::Result<PathBuf> {
    let mut cur = path.to_path_buf();
    for _ in 0..MAX_LINK_HOPS {
        match fs::symlink_metadata(&cur) {
            Ok(m) if m.file_type().is_symlink() => {
                let dest = fs::read_link(&cur)?;
                cur = match cur.parent() {
                    Some(parent) if dest.is_relative() => parent.join(dest),
                    _ => dest,
                };
            }
            Ok(_) => return Ok(cur),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(cur),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::from_raw_os_error(libc::ELOOP))
}
