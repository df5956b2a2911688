//! Writing a verified patch all or nothing: FsUtil's write journal remembers every file touched
//! (bytes and mode) before its first change, and a failure midway puts each one back (spec
//! §4.3 step 4).

use std::path::{Path, PathBuf};

use strata_services::fs::FsUtil;

use crate::common::undo::Undo;

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

/// Applies `changes` in order inside an [`Undo`]; on failure puts back every file already
/// touched (bytes and mode) and removes directories it created. The error says what failed and
/// whether the restore succeeded.
pub(super) async fn write_all(fs: &FsUtil, changes: &[Change]) -> Result<(), String> {
    let mut undo = Undo::default();
    let journal = undo.journal();
    let result = journal
        .scope(async {
            for c in changes {
                apply_one(fs, c, &mut undo).await?;
            }
            Ok::<(), String>(())
        })
        .await;
    let Err(e) = result else {
        return Ok(());
    };
    let left = undo.restore(fs).await;
    let tail = if left.is_empty() {
        "Every file was put back as it was: nothing was changed.".to_string()
    } else {
        let left: Vec<String> = left.iter().map(|p| p.display().to_string()).collect();
        format!(
            "Restoring failed for these files, which remain changed: {}",
            left.join(", ")
        )
    };
    Err(format!("The patch could not be written: {e}. {tail}"))
}

async fn write_file(
    fs: &FsUtil,
    path: &Path,
    content: &str,
    undo: &mut Undo,
) -> Result<(), String> {
    undo.note_missing_dirs(fs, path).await;
    fs.write_atomic(path, content.as_bytes())
        .await
        .map_err(|e| e.to_string())
}

async fn apply_one(fs: &FsUtil, c: &Change, undo: &mut Undo) -> Result<(), String> {
    let content = c.new.as_deref().unwrap_or_default();
    match c.kind {
        ChangeKind::Add | ChangeKind::Update => write_file(fs, &c.path, content, undo).await,
        ChangeKind::Move => {
            let dest = c.move_to.as_ref().unwrap_or(&c.path);
            write_file(fs, dest, content, undo).await?;
            if dest != &c.path {
                fs.remove_file(&c.path).await.map_err(|e| e.to_string())?;
            }
            Ok(())
        }
        ChangeKind::Delete => fs.remove_file(&c.path).await.map_err(|e| e.to_string()),
    }
}
