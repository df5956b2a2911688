//! Atomic replacement of a file's content (spec §18 e).
//!
//! The new bytes go to a temporary file in the target's own directory (so the final rename
//! never crosses filesystems), are flushed to disk, take the old file's permissions and owner,
//! then the temp file is renamed over the target. A reader sees the old or the new content,
//! never a mix. A symlink is followed so the file it points at is replaced and the link kept.
//!
//! A writer holds a lock on its temp file until it is renamed or removed. A process killed
//! mid-write leaves its temp file behind, unlocked; the next write of the same file removes
//! such leftovers ([`remove_stale_temps`]), never one a live writer still holds or one made in
//! the last [`STALE_TEMP_AGE`] (a writer locks its file right after creating it).

use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::FsError;

/// Mode for brand-new files; the process umask narrows it (0644 under umask 022).
const NEW_FILE_MODE: u32 = 0o666;

/// Longest chain of symlinks followed before giving up, as the kernel does.
const MAX_LINK_HOPS: usize = 40;

/// How old an unlocked temp file must be before another write removes it.
pub(crate) const STALE_TEMP_AGE: Duration = Duration::from_secs(60);

/// Random characters `tempfile` puts between the prefix and the suffix.
const TEMP_RANDOM_LEN: usize = 6;

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
    // Marks the temp file as in use until it is closed (renamed or removed); a filesystem
    // without locks only loses the clean-up of leftovers.
    let _ = tmp.as_file().lock();
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
    remove_stale_temps(&dir, &name, SystemTime::now());
    Ok(())
}

/// Whether `candidate` is a temp file name [`write_atomic`] makes for the file `name`:
/// `.<name>.` then six letters or digits then `.tmp`.
pub(crate) fn is_temp_of(name: &str, candidate: &str) -> bool {
    let Some(rest) = candidate
        .strip_prefix('.')
        .and_then(|c| c.strip_prefix(name))
        .and_then(|c| c.strip_prefix('.'))
        .and_then(|c| c.strip_suffix(".tmp"))
    else {
        return false;
    };
    rest.len() == TEMP_RANDOM_LEN && rest.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Removes the temp files of `name` in `dir` that killed writers left: regular files, older
/// than [`STALE_TEMP_AGE`] at `now`, that no process holds locked. Best effort: a leftover
/// that cannot be read or removed stays for a later write.
pub(crate) fn remove_stale_temps(dir: &Path, name: &str, now: SystemTime) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        if !is_temp_of(name, &file_name.to_string_lossy()) {
            continue;
        }
        // Not following links: a link named like a temp file is not ours.
        let Ok(meta) = entry.metadata() else { continue };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age >= STALE_TEMP_AGE);
        if !meta.is_file() || !old {
            continue;
        }
        let path = entry.path();
        let Ok(file) = File::open(&path) else {
            continue;
        };
        // Held while removing, so no writer can be using it meanwhile.
        if file.try_lock().is_ok() && fs::remove_file(&path).is_ok() {
            removed += 1;
        }
    }
    removed
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_of_a_file_are_recognised_and_no_others() {
        assert!(is_temp_of("a.txt", ".a.txt.Ab12Cd.tmp"));
        assert!(
            !is_temp_of("a.txt", ".a.txt.Ab12C.tmp"),
            "five random characters"
        );
        assert!(!is_temp_of("a.txt", ".a.txt.Ab-2Cd.tmp"));
        assert!(!is_temp_of("a.txt", ".b.txt.Ab12Cd.tmp"));
        assert!(
            !is_temp_of("a", ".a.txt.Ab12Cd.tmp"),
            "another file's prefix"
        );
        assert!(!is_temp_of("a.txt", "a.txt.Ab12Cd.tmp"));
        assert!(!is_temp_of("a.txt", ".a.txt.Ab12Cd.tmp.bak"));
    }

    #[test]
    fn only_old_unlocked_temp_files_of_the_file_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let old = SystemTime::now() - STALE_TEMP_AGE * 2;
        let make = |name: &str, modified: SystemTime| {
            let path = dir.path().join(name);
            let f = File::create(&path).unwrap();
            f.set_modified(modified).unwrap();
            path
        };
        let stale = make(".a.txt.Ab12Cd.tmp", old);
        let fresh = make(".a.txt.Zz99Yy.tmp", SystemTime::now());
        let held = make(".a.txt.Held00.tmp", old);
        let other = make(".b.txt.Ab12Cd.tmp", old);
        let lookalike = make(".a.txt.notmp", old);
        fs::create_dir(dir.path().join(".a.txt.Dir000.tmp")).unwrap();
        // A live writer's lock, from another open file as another process would hold it.
        let writer = File::open(&held).unwrap();
        writer.lock().unwrap();
        let removed = remove_stale_temps(dir.path(), "a.txt", SystemTime::now());
        assert_eq!(removed, 1);
        assert!(!stale.exists());
        for kept in [&fresh, &held, &other, &lookalike] {
            assert!(kept.exists(), "{} was removed", kept.display());
        }
        assert!(dir.path().join(".a.txt.Dir000.tmp").is_dir());
        // Once its writer is gone, the held one goes too.
        drop(writer);
        assert_eq!(
            remove_stale_temps(dir.path(), "a.txt", SystemTime::now()),
            1
        );
        assert!(!held.exists());
    }

    #[test]
    fn a_write_removes_what_a_killed_write_of_the_same_file_left() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.txt");
        let left = dir.path().join(".a.txt.Kill01.tmp");
        fs::write(&left, "half a write").unwrap();
        File::options()
            .write(true)
            .open(&left)
            .unwrap()
            .set_modified(SystemTime::now() - STALE_TEMP_AGE * 2)
            .unwrap();
        write_atomic(&target, b"new").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["a.txt"]);
    }
}
