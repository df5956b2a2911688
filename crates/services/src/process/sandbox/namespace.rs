//! The read-only binds of the protected files, planned in the parent before each spawn.
//!
//! Where the kernel allows unprivileged user namespaces, a sandboxed child enters a new user
//! and mount namespace and binds every protected path that exists read-only over itself, so
//! a write fails at once with EROFS instead of being undone afterwards. This module decides
//! what to bind and with which flags, and formats the id maps; [`super::child`] makes the
//! syscalls. Everything here allocates, so it runs in the parent.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::protect::{PROTECTED_DIRS, PROTECTED_FILES};

/// The environment switch that makes the sandbox act as if user namespaces were unavailable,
/// so the snapshot-and-restore fallback can be tried on any machine.
pub const SIMULATE_NO_USERNS_ENV: &str = "STRATA_SANDBOX_SIMULATE_NO_USERNS";

/// What a policy protects with binds: the project's protected paths, and absolute extras (the
/// hooks and config of a linked worktree's shared git directory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protected {
    pub project: PathBuf,
    pub extra: Vec<PathBuf>,
}

impl Protected {
    /// The protected paths that exist now, in a stable order: these can be bound.
    pub fn existing(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = PROTECTED_FILES
            .iter()
            .chain(PROTECTED_DIRS)
            .map(|rel| self.project.join(rel))
            .collect();
        if let Ok(entries) = std::fs::read_dir(self.project.join(".claude")) {
            let mut settings: Vec<PathBuf> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| is_claude_settings(p))
                .collect();
            settings.sort();
            out.extend(settings);
        }
        out.extend(self.extra.iter().cloned());
        out.retain(|p| p.exists());
        out
    }
}

fn is_claude_settings(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("settings") && n.ends_with(".json"))
}

/// Mount flags as `statvfs` reports them (`ST_*`), for [`remount_flags`].
pub(super) mod st {
    pub(in super::super) const NOSUID: u64 = 2;
    pub(in super::super) const NODEV: u64 = 4;
    pub(in super::super) const NOEXEC: u64 = 8;
    pub(in super::super) const NOATIME: u64 = 1024;
    pub(in super::super) const NODIRATIME: u64 = 2048;
    pub(in super::super) const RELATIME: u64 = 4096;
}

/// The flags that remount a bind read-only while keeping the flags of the mount it lies on:
/// inside a user namespace those are locked, and a remount that drops one is refused.
pub(super) fn remount_flags(statvfs_flags: u64) -> libc::c_ulong {
    let mut flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY;
    let keep = [
        (st::NOSUID, libc::MS_NOSUID),
        (st::NODEV, libc::MS_NODEV),
        (st::NOEXEC, libc::MS_NOEXEC),
        (st::NOATIME, libc::MS_NOATIME),
        (st::NODIRATIME, libc::MS_NODIRATIME),
        (st::RELATIME, libc::MS_RELATIME),
    ];
    for (st, ms) in keep {
        if statvfs_flags & st != 0 {
            flags |= ms;
        }
    }
    if statvfs_flags & (st::NOATIME | st::RELATIME) == 0 {
        // Without a flag the kernel assumes relatime, which would differ from the locked one.
        flags |= libc::MS_STRICTATIME;
    }
    flags
}

/// One line of `/proc/self/uid_map` or `gid_map` mapping `id` to itself, so files keep their
/// owner inside (git refuses a repository it thinks someone else owns).
pub(super) fn identity_map(id: u32) -> Vec<u8> {
    format!("{id} {id} 1\n").into_bytes()
}

/// A path as a C string; `None` for a path with a NUL byte (it cannot exist anyway).
pub(super) fn c_path(path: &Path) -> Option<CString> {
    CString::new(path.as_os_str().as_bytes()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remounts_keep_the_locked_flags_and_the_atime_mode() {
        let base = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY;
        assert_eq!(remount_flags(0), base | libc::MS_STRICTATIME);
        assert_eq!(
            remount_flags(st::NOSUID | st::NODEV | st::RELATIME),
            base | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_RELATIME
        );
        assert_eq!(
            remount_flags(st::NOEXEC | st::NOATIME | st::NODIRATIME),
            base | libc::MS_NOEXEC | libc::MS_NOATIME | libc::MS_NODIRATIME
        );
    }

    #[test]
    fn identity_maps_and_c_paths() {
        assert_eq!(identity_map(1000), b"1000 1000 1\n");
        assert_eq!(identity_map(0), b"0 0 1\n");
        assert_eq!(c_path(Path::new("/p/a b")).unwrap().as_bytes(), b"/p/a b");
        assert!(c_path(Path::new("/p/a\0b")).is_none());
    }

    #[test]
    fn only_existing_protected_paths_are_bound() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let extra = root.join("common/hooks");
        let p = Protected {
            project: root.to_path_buf(),
            extra: vec![extra.clone(), root.join("common/config")],
        };
        assert!(p.existing().is_empty());
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        std::fs::create_dir_all(&extra).unwrap();
        for f in [
            "strata.json",
            "AGENTS.md",
            ".claude/settings.local.json",
            ".claude/other.json",
        ] {
            std::fs::write(root.join(f), "{}").unwrap();
        }
        let rel: Vec<PathBuf> = p
            .existing()
            .iter()
            .map(|e| e.strip_prefix(root).unwrap().to_path_buf())
            .collect();
        assert_eq!(
            rel,
            [
                "strata.json",
                "AGENTS.md",
                ".git/hooks",
                ".claude/settings.local.json",
                "common/hooks"
            ]
            .map(PathBuf::from)
        );
    }
}
