//! Writing a transaction's files, and putting them back. The writes run inside a write journal
//! of their own (FsUtil notes what each path held before its first change, the record the diff
//! budget reads too), so a rollback restores exactly what the transaction changed, byte for
//! byte, and removes the files and directories it created.

use std::path::{Path, PathBuf};

use strata_services::fs::FsUtil;
use strata_services::fs::journal::{Before, Journal};

use super::plan::FileChange;
use crate::common::bom::split_bom;
use crate::common::filewrite::{MAX_EDIT_BYTES, Writer};

/// What a rollback needs: the journal of the writes and the directories they created.
#[derive(Debug, Default)]
pub(crate) struct Undo {
    journal: Journal,
    created_dirs: Vec<PathBuf>,
}

/// A write that failed: its error, and the undo of the writes made before it.
#[derive(Debug)]
pub(crate) struct WriteFailure {
    pub error: String,
    pub undo: Undo,
}

/// Writes every change in order (atomic writes, parents created), then runs the formatters of
/// the written files. Stops at the first failed write.
pub(crate) async fn write_all(w: &Writer, changes: &[FileChange]) -> Result<Undo, WriteFailure> {
    let mut undo = Undo::default();
    let journal = undo.journal.clone();
    let result = journal
        .scope(async {
            for c in changes {
                note_missing_dirs(&w.fs, &c.path, &mut undo.created_dirs).await;
                w.fs.write_atomic(&c.path, c.after.as_bytes())
                    .await
                    .map_err(|e| e.to_string())?;
            }
            for c in changes {
                // A formatter's own changes go back with the rest on a rollback.
                w.format(&c.path, split_bom(&c.after).0).await;
            }
            Ok::<(), String>(())
        })
        .await;
    match result {
        Ok(()) => Ok(undo),
        Err(error) => Err(WriteFailure { error, undo }),
    }
}

impl Undo {
    /// The files the writes changed, in the order first changed.
    pub(crate) fn paths(&self) -> Vec<PathBuf> {
        self.journal.entries().into_iter().map(|e| e.path).collect()
    }

    /// Puts every changed path back as it was, newest change first, then removes the
    /// directories the writes created (those still empty). Returns the paths it could not
    /// restore.
    pub(crate) async fn restore(&self, fs: &FsUtil) -> Vec<PathBuf> {
        let mut failed = Vec::new();
        for e in self.journal.entries().iter().rev() {
            if !restore_one(fs, &e.path, &e.before).await {
                failed.push(e.path.clone());
            }
        }
        for d in self.created_dirs.iter().rev() {
            // A directory the check filled (a build folder) stays.
            let _ = fs.remove_dir(d).await;
        }
        failed
    }
}

/// Puts `path` back; false when that failed or is impossible (the old content was unreadable).
async fn restore_one(fs: &FsUtil, path: &Path, before: &Before) -> bool {
    match before {
        Before::Bytes(bytes) => {
            let same = fs
                .read(path, MAX_EDIT_BYTES)
                .await
                .is_ok_and(|now| now == *bytes);
            same || fs.write_atomic(path, bytes).await.is_ok()
        }
        Before::Absent => !fs.exists(path).await || fs.remove_file(path).await.is_ok(),
        Before::Unreadable => false,
    }
}

/// Records the missing ancestors of `path`, outermost first, before a write creates them.
async fn note_missing_dirs(fs: &FsUtil, path: &Path, created: &mut Vec<PathBuf>) {
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
        if !created.contains(&d) {
            created.push(d);
        }
    }
}
