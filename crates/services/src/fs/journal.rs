//! The write journal: what a piece of work is about to overwrite, so it can be undone.
//!
//! A caller runs a future inside [`Journal::scope`]; every FsUtil write, removal or rename done
//! while that future runs first notes what the path held (its bytes, or that nothing was there),
//! once per path. The diff-budget layer uses it to undo a tool call exactly without each tool
//! knowing about budgets. Outside a scope, writes cost one task-local lookup.
//!
//! Scopes nest: a tool that keeps a journal of its own (the `transaction` tool, to roll back
//! its edits) runs inside the diff budget's scope, and a change is noted in both.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;

use super::{ByteStream, DirEntry, FileKind, FsApi, FsError, FsUtil, Metadata};

/// Larger files are noted as [`Before::Unreadable`] rather than copied.
const MAX_NOTED_BYTES: u64 = 256 * 1024 * 1024;

tokio::task_local! {
    /// The journals of the enclosing scopes, outermost first.
    static CURRENT: Vec<Journal>;
}

/// What a path held before the first change made inside a scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Before {
    /// Nothing was there: undoing the change removes the file.
    Absent,
    /// A file with these bytes and permission bits.
    File { bytes: Vec<u8>, mode: u32 },
    /// It could not be read (too large, not a file): the change cannot be undone.
    Unreadable,
}

/// One path changed inside a scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub path: PathBuf,
    pub before: Before,
}

/// The paths changed inside [`Journal::scope`], in the order first changed. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct Journal(Arc<Mutex<Vec<Entry>>>);

impl Journal {
    /// Runs `work` with this journal noting its filesystem changes, beside the journals of the
    /// scopes it runs in.
    pub async fn scope<F: Future>(&self, work: F) -> F::Output {
        let mut stack = CURRENT.try_with(Vec::clone).unwrap_or_default();
        stack.push(self.clone());
        CURRENT.scope(stack, work).await
    }

    /// What was noted so far.
    pub fn entries(&self) -> Vec<Entry> {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        // Each push leaves the list whole, so a poisoned lock is still usable.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn has(&self, path: &Path) -> bool {
        self.lock().iter().any(|e| e.path == path)
    }
}

/// Puts `path` back as `before` says: the same bytes and permission bits, or nothing there.
/// A file that still holds its old bytes is not rewritten (a read-only file that refused the
/// change stays untouched). False when that failed or is impossible ([`Before::Unreadable`]).
pub async fn put_back(fs: &FsUtil, path: &Path, before: &Before) -> bool {
    match before {
        Before::File { bytes, mode } => {
            let limit = bytes.len() as u64;
            let same = fs.read(path, limit).await.is_ok_and(|now| now == *bytes);
            if !same && fs.write_atomic(path, bytes).await.is_err() {
                return false;
            }
            // A file written anew (it had been removed) gets the default mode: give back its own.
            match fs.stat(path).await {
                Ok(Some(m)) if m.mode == *mode => true,
                Ok(Some(_)) => fs.set_mode(path, *mode).await.is_ok(),
                _ => false,
            }
        }
        Before::Absent => !fs.exists(path).await || fs.remove_file(path).await.is_ok(),
        Before::Unreadable => false,
    }
}

/// Wraps every FsUtil implementation: notes paths into the current journal before changing them.
pub(super) struct Journaled<A>(pub(super) A);

impl<A: FsApi> Journaled<A> {
    async fn note(&self, path: &Path) {
        let Ok(stack) = CURRENT.try_with(Vec::clone) else {
            return;
        };
        let missing: Vec<Journal> = stack.into_iter().filter(|j| !j.has(path)).collect();
        if missing.is_empty() {
            return;
        }
        let before = match self.0.stat(path).await {
            Ok(None) => Before::Absent,
            Ok(Some(m)) if m.kind == FileKind::File => {
                match self.0.read(path, MAX_NOTED_BYTES).await {
                    Ok(bytes) => Before::File {
                        bytes,
                        mode: m.mode,
                    },
                    Err(_) => Before::Unreadable,
                }
            }
            _ => Before::Unreadable,
        };
        for journal in missing {
            // A concurrent note of the same path may have won; the first one stays.
            let mut entries = journal.lock();
            if !entries.iter().any(|e| e.path == path) {
                entries.push(Entry {
                    path: path.to_path_buf(),
                    before: before.clone(),
                });
            }
        }
    }
}

#[async_trait]
impl<A: FsApi> FsApi for Journaled<A> {
    async fn stat(&self, path: &Path) -> Result<Option<Metadata>, FsError> {
        self.0.stat(path).await
    }
    async fn read(&self, path: &Path, max_bytes: u64) -> Result<Vec<u8>, FsError> {
        self.0.read(path, max_bytes).await
    }
    async fn read_head(&self, path: &Path, n: usize) -> Result<Vec<u8>, FsError> {
        self.0.read_head(path, n).await
    }
    async fn stream(&self, path: &Path, chunk_size: usize) -> Result<ByteStream, FsError> {
        self.0.stream(path, chunk_size).await
    }
    async fn write_atomic(&self, path: &Path, data: &[u8]) -> Result<(), FsError> {
        self.note(path).await;
        self.0.write_atomic(path, data).await
    }
    async fn read_dir(&self, path: &Path) -> Result<Vec<DirEntry>, FsError> {
        self.0.read_dir(path).await
    }
    async fn realpath(&self, path: &Path) -> Result<PathBuf, FsError> {
        self.0.realpath(path).await
    }
    async fn resolve_real(&self, path: &Path) -> PathBuf {
        self.0.resolve_real(path).await
    }
    async fn create_dir_all(&self, path: &Path) -> Result<(), FsError> {
        self.0.create_dir_all(path).await
    }
    async fn remove_file(&self, path: &Path) -> Result<(), FsError> {
        self.note(path).await;
        self.0.remove_file(path).await
    }
    async fn remove_dir(&self, path: &Path) -> Result<(), FsError> {
        self.0.remove_dir(path).await
    }
    async fn rename(&self, from: &Path, to: &Path) -> Result<(), FsError> {
        self.note(from).await;
        self.note(to).await;
        self.0.rename(from, to).await
    }
    async fn set_mode(&self, path: &Path, mode: u32) -> Result<(), FsError> {
        self.note(path).await;
        self.0.set_mode(path, mode).await
    }
    async fn exists(&self, path: &Path) -> bool {
        self.0.exists(path).await
    }
    fn is_executable(&self, path: &Path) -> bool {
        self.0.is_executable(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A file as `std::fs::write` leaves it: 0666 narrowed by the process umask.
    fn file(bytes: &[u8]) -> Before {
        let dir = tempfile::tempdir().unwrap();
        let probe = dir.path().join("probe");
        std::fs::write(&probe, b"").unwrap();
        let mode = std::fs::metadata(&probe).unwrap().permissions().mode() & 0o7777;
        Before::File {
            bytes: bytes.to_vec(),
            mode,
        }
    }

    #[tokio::test]
    async fn put_back_restores_a_removed_file_with_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let ro = dir.path().join("ro.txt");
        std::fs::write(&ro, b"read\nonly\n").unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
        let fs = FsUtil::live();
        let journal = Journal::default();
        journal.scope(fs.remove_file(&ro)).await.unwrap();
        let [entry] = journal.entries().try_into().unwrap();
        assert!(put_back(&fs, &entry.path, &entry.before).await);
        assert_eq!(std::fs::read(&ro).unwrap(), b"read\nonly\n");
        let mode = std::fs::metadata(&ro).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o444);
    }

    #[tokio::test]
    async fn put_back_of_an_absent_file_removes_it_and_unreadable_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new.txt");
        std::fs::write(&new, b"x").unwrap();
        let fs = FsUtil::live();
        assert!(put_back(&fs, &new, &Before::Absent).await);
        assert!(!new.exists());
        assert!(put_back(&fs, &new, &Before::Absent).await);
        assert!(!put_back(&fs, &new, &Before::Unreadable).await);
    }

    #[tokio::test]
    async fn a_scope_notes_each_changed_path_once_with_what_it_held() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
        std::fs::write(&a, b"old\xff").unwrap();
        let fs = FsUtil::live();
        let journal = Journal::default();
        journal
            .scope(async {
                fs.write_atomic(&a, b"one").await.unwrap();
                fs.write_atomic(&a, b"two").await.unwrap();
                fs.write_atomic(&b, b"new").await.unwrap();
            })
            .await;
        // Outside the scope nothing is noted.
        fs.remove_file(&b).await.unwrap();
        assert_eq!(
            journal.entries(),
            vec![
                Entry {
                    path: a,
                    before: file(b"old\xff")
                },
                Entry {
                    path: b,
                    before: Before::Absent
                },
            ]
        );
    }

    #[tokio::test]
    async fn a_nested_scope_notes_into_both_journals() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
        std::fs::write(&a, b"first").unwrap();
        let fs = FsUtil::live();
        let (outer, inner) = (Journal::default(), Journal::default());
        outer
            .scope(async {
                fs.write_atomic(&a, b"second").await.unwrap();
                inner
                    .scope(async {
                        fs.write_atomic(&a, b"third").await.unwrap();
                        fs.write_atomic(&b, b"new").await.unwrap();
                    })
                    .await;
            })
            .await;
        let noted = |j: &Journal| -> Vec<(PathBuf, Before)> {
            j.entries()
                .into_iter()
                .map(|e| (e.path, e.before))
                .collect()
        };
        // The outer journal keeps what `a` held before its own first change.
        assert_eq!(
            noted(&outer),
            vec![(a.clone(), file(b"first")), (b.clone(), Before::Absent)]
        );
        // The inner one starts from what `a` held when the inner scope began.
        assert_eq!(
            noted(&inner),
            vec![(a, file(b"second")), (b, Before::Absent)]
        );
    }
}
