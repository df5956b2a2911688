//! Undoing a multi-file write: the write journal of its changes (FsUtil notes what each path
//! held, bytes and mode, before its first change) and the folders it created. Shared by
//! `apply_patch` (all or nothing) and `transaction` (roll back on a failed check).

use std::path::{Path, PathBuf};

use strata_services::fs::FsUtil;
use strata_services::fs::journal::{Journal, put_back};

/// What a rollback needs: the journal of the writes and the directories they created.
#[derive(Debug, Default)]
pub(crate) struct Undo {
    journal: Journal,
    created_dirs: Vec<PathBuf>,
}

impl Undo {
    /// The journal to run the writes in (`journal.scope(work)`); a handle, so the work can
    /// still note the folders it creates here.
    pub(crate) fn journal(&self) -> Journal {
        self.journal.clone()
    }

    /// Records the missing ancestors of `path`, outermost first, before a write creates them.
    pub(crate) async fn note_missing_dirs(&mut self, fs: &FsUtil, path: &Path) {
        let mut missing = Vec::new();
        let mut dir = path.parent();
        while let Some(d) = dir {
            if fs.exists(d).await {
                break;
            }
            missing.push(d.to_path_buf());
            dir = d.parent();
        }
        for d in missing.into_iter().rev() {
            if !self.created_dirs.contains(&d) {
                self.created_dirs.push(d);
            }
        }
    }

    /// The files the writes changed, in the order first changed.
    pub(crate) fn paths(&self) -> Vec<PathBuf> {
        self.journal.entries().into_iter().map(|e| e.path).collect()
    }

    /// Puts every changed path back as it was (bytes and mode), newest change first, then
    /// removes the directories the writes created (those still empty). Returns the paths it
    /// could not restore.
    pub(crate) async fn restore(&self, fs: &FsUtil) -> Vec<PathBuf> {
        let mut failed = Vec::new();
        for e in self.journal.entries().iter().rev() {
            if !put_back(fs, &e.path, &e.before).await {
                failed.push(e.path.clone());
            }
        }
        for d in self.created_dirs.iter().rev() {
            // A directory something else filled meanwhile (a check's build folder) stays.
            let _ = fs.remove_dir(d).await;
        }
        failed
    }
}
