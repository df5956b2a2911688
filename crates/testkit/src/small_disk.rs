//! A small filesystem of its own for the tests of full and read-only disks: a `tmpfs` of a
//! few MiB mounted on a temporary folder, unmounted when dropped.
//!
//! Mounting needs root (or `CAP_SYS_ADMIN`). Where it is refused the test prints one line
//! saying it skipped and passes, like a missing program ([`crate::require_external!`]); under
//! `STRATA_TEST_REQUIRE_EXTERNAL=1` (CI, which runs as root) it fails instead.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A mounted `tmpfs`; unmounted (and its folder removed) on drop.
#[derive(Debug)]
pub struct SmallDisk {
    root: tempfile::TempDir,
}

impl SmallDisk {
    /// Mounts a `tmpfs` of `size_kib` KiB; `None` (after the skip line) when this process may
    /// not mount.
    #[track_caller]
    pub fn mount(size_kib: u64) -> Option<SmallDisk> {
        let root = tempfile::Builder::new()
            .prefix("strata-disk-")
            .tempdir()
            .expect("create the mount point");
        let options = format!("size={size_kib}k,mode=0777");
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &options, "tmpfs"])
            .arg(root.path())
            .output()
            .is_ok_and(|o| o.status.success());
        crate::external_found(
            "mount -t tmpfs",
            "run the tests as root, or where mounting a tmpfs is allowed",
            ok,
        )
        .then_some(SmallDisk { root })
    }

    /// The mount point.
    pub fn path(&self) -> &Path {
        self.root.path()
    }

    /// Fills the disk until a write fails, then frees `leave` bytes of the filler; returns
    /// the filler's path (remove it to give the space back).
    pub fn fill(&self, leave: u64) -> PathBuf {
        let filler = self.path().join(".filler");
        let mut file = std::fs::File::create(&filler).expect("create the filler");
        let chunk = vec![0x5au8; 64 * 1024];
        // Whole chunks, then single KiBs, so the disk is full to the last block.
        while file.write_all(&chunk).is_ok() {}
        while file.write_all(&chunk[..1024]).is_ok() {}
        let _ = file.sync_all();
        let len = std::fs::metadata(&filler).expect("stat the filler").len();
        file.set_len(len.saturating_sub(leave))
            .expect("shrink the filler");
        filler
    }

    /// Makes the whole filesystem read-only (what is on it stays readable).
    pub fn make_read_only(&self) {
        let status = Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(self.path())
            .status()
            .expect("run mount");
        assert!(
            status.success(),
            "remount {} read-only",
            self.path().display()
        );
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        // Lazy: a process still holding a file there must not keep the mount (or fail a test).
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.root.path())
            .status();
    }
}
