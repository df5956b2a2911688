//! Writing a verified patch all or nothing: every file touched is remembered first, and a
//! failure midway puts each one back (spec §4.3 step 4).

use std::path::{Path, PathBuf};

use strata_services::fs::FsUtil;

use crate::common::filewrite::MAX_EDIT_BYTES;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ChangeKind {
    Add,
    Update,
    Move,
    Delete,
}

impl ChangeKind {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Add => "add",
            ChangeKind::Update => "update",
            ChangeKind::Move => "move",
            ChangeKind::Delete => "delete",
        }
    }
}

/// One verified section: where it writes, what it writes, and its diff.
#[derive(Debug, Clone)]
pub(super) struct Change {
    pub kind: ChangeKind,
    pub path: PathBuf,
    pub move_to: Option<PathBuf>,
    /// The new content (`None` for a delete).
    pub new: Option<String>,
    pub diff: String,
    pub additions: usize,
    pub deletions: usize,
}

/// What was there before the first write to a path.
struct Saved {
    path: PathBuf,
    old: Option<Vec<u8>>,
}

/// Applies `changes` in order; on failure restores every file already touched and removes
/// directories it created. The error says what failed and whether the restore succeeded.
pub(super) async fn write_all(fs: &FsUtil, changes: &[Change]) -> Result<(), String> {
    let mut saved: Vec<Saved> = Vec::new();
    let mut created_dirs: Vec<PathBuf> = Vec::new();
    for c in changes {
        if let Err(e) = apply_one(fs, c, &mut saved, &mut created_dirs).await {
            let left = restore(fs, &saved, &created_dirs).await;
            let tail = if left.is_empty() {
                "Every file was put back as it was: nothing was changed.".to_string()
            } else {
                format!(
                    "Restoring failed for these files, which remain changed: {}",
                    left.join(", ")
                )
            };
            return Err(format!("The patch could not be written: {e}. {tail}"));
        }
    }
    Ok(())
}

async fn remember(fs: &FsUtil, path: &Path, saved: &mut Vec<Saved>) -> Result<(), String> {
    if saved.iter().any(|s| s.path == path) {
        return Ok(());
    }
    let old = match fs.stat(path).await.map_err(|e| e.to_string())? {
        Some(_) => Some(
            fs.read(path, MAX_EDIT_BYTES)
                .await
                .map_err(|e| e.to_string())?,
        ),
        None => None,
    };
    saved.push(Saved {
        path: path.to_path_buf(),
        old,
    });
    Ok(())
}

/// Records the missing ancestors of `path`, outermost first, before they get created.
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
    missing.reverse();
    for d in missing {
        if !created.contains(&d) {
            created.push(d);
        }
    }
}

async fn write_file(
    fs: &FsUtil,
    path: &Path,
    content: &str,
    saved: &mut Vec<Saved>,
    created: &mut Vec<PathBuf>,
) -> Result<(), String> {
    remember(fs, path, saved).await?;
    note_missing_dirs(fs, path, created).await;
    fs.write_atomic(path, content.as_bytes())
        .await
        .map_err(|e| e.to_string())
}

async fn apply_one(
    fs: &FsUtil,
    c: &Change,
    saved: &mut Vec<Saved>,
    created: &mut Vec<PathBuf>,
) -> Result<(), String> {
    let content = c.new.as_deref().unwrap_or_default();
    match c.kind {
        ChangeKind::Add | ChangeKind::Update => {
            write_file(fs, &c.path, content, saved, created).await
        }
        ChangeKind::Move => {
            let dest = c.move_to.as_ref().unwrap_or(&c.path);
            write_file(fs, dest, content, saved, created).await?;
            if dest != &c.path {
                remember(fs, &c.path, saved).await?;
                fs.remove_file(&c.path).await.map_err(|e| e.to_string())?;
            }
            Ok(())
        }
        ChangeKind::Delete => {
            remember(fs, &c.path, saved).await?;
            fs.remove_file(&c.path).await.map_err(|e| e.to_string())
        }
    }
}

/// Puts saved files back, newest change first; returns the paths it could not restore.
async fn restore(fs: &FsUtil, saved: &[Saved], created: &[PathBuf]) -> Vec<String> {
    let mut failed = Vec::new();
    for s in saved.iter().rev() {
        let ok = match &s.old {
            // The failed step itself changed nothing (writes are atomic): skip files that
            // still hold their old bytes, e.g. a read-only file that refused the write.
            Some(bytes) => {
                let same = fs
                    .read(&s.path, MAX_EDIT_BYTES)
                    .await
                    .is_ok_and(|now| now == *bytes);
                same || fs.write_atomic(&s.path, bytes).await.is_ok()
            }
            None => !fs.exists(&s.path).await || fs.remove_file(&s.path).await.is_ok(),
        };
        if !ok {
            failed.push(s.path.display().to_string());
        }
    }
    for d in created.iter().rev() {
        let _ = fs.remove_dir(d).await;
    }
    failed
}
