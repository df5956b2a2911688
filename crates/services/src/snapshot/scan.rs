//! Before each capture: list the untracked files git does not ignore, decide what to leave
//! out ([`super::skip`]), and hand that to the shadow repository's `info/exclude`.
//!
//! "Untracked" means not tracked by the project's own git. In a folder that is not a git
//! repository every file counts as untracked; the listing then comes from an empty scratch
//! repository beside the shadow one, so earlier exclusions never hide a path from the check.

use std::collections::BTreeSet;
use std::path::Path;

use super::SnapshotError;
use super::git::Git;
use super::skip::{
    MAX_DIR_ENTRIES, MAX_FILE_BYTES, SkipReason, Skipped, crowded_dirs, exclude_file, inside,
    large_files, outermost,
};

/// What the snapshots of one worktree leave out, and which of those were already reported.
#[derive(Debug, Default)]
pub(super) struct Skips {
    pub(super) now: Vec<Skipped>,
    warned: BTreeSet<String>,
}

/// The scratch repository used to list a non-git folder.
pub(super) fn scratch_dir(git_dir: &Path) -> std::path::PathBuf {
    git_dir.join("strata-scan")
}

/// Whether the worktree is a git repository of its own (`.git` folder or file).
pub(super) fn project_is_git(worktree: &Path) -> bool {
    worktree.join(".git").exists()
}

/// Recomputes what to leave out; when it changed, rewrites `info/exclude` and takes newly
/// skipped paths out of the shadow index (git keeps tracking what it once added).
pub(super) async fn refresh(git: &Git<'_>, skips: &mut Skips) -> Result<(), SnapshotError> {
    let (listed, by_project) = untracked(git).await?;
    let mut crowded = crowded_dirs(&listed, MAX_DIR_ENTRIES);
    if by_project && !crowded.is_empty() {
        let dirs: Vec<&str> = crowded.iter().map(|(d, _)| d.as_str()).collect();
        let tracked = git
            .run_project(&[&["ls-files", "-z", "--"][..], &dirs].concat())
            .await?;
        // A folder holding tracked files belongs to the project, however many new files.
        crowded.retain(|(d, _)| !tracked.split('\0').any(|p| p.starts_with(d.as_str())));
    }
    let crowded = outermost(crowded);
    let dirs: Vec<String> = crowded.iter().map(|(d, _)| d.clone()).collect();
    let files: Vec<String> = listed
        .into_iter()
        .filter(|f| !f.ends_with('/') && !inside(f, &dirs))
        .collect();
    let root = git.worktree.to_path_buf();
    let sized = tokio::task::spawn_blocking(move || sizes(&root, files))
        .await
        .unwrap_or_default();
    let mut now: Vec<Skipped> = crowded
        .into_iter()
        .map(|(path, entries)| Skipped {
            path,
            reason: SkipReason::Crowded { entries },
        })
        .collect();
    now.extend(large_files(&sized, MAX_FILE_BYTES));
    apply(git, skips, now).await
}

/// The untracked, not ignored files of the worktree (folders git will not enter end in `/`),
/// and whether the project's own git listed them.
async fn untracked(git: &Git<'_>) -> Result<(Vec<String>, bool), SnapshotError> {
    let args = ["ls-files", "-z", "--others", "--exclude-standard"];
    let split = |listing: String| -> Vec<String> {
        listing
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect()
    };
    if project_is_git(git.worktree) {
        match git.run_project(&args).await {
            Ok(listing) => return Ok((split(listing), true)),
            // A repository git refuses (another owner, say): list it as a plain folder.
            Err(e) => tracing::debug!(error = %e, "listing with the project's git failed"),
        }
    }
    let scratch = scratch_dir(&git.git_dir);
    if !scratch.join("HEAD").exists() {
        git.init(&scratch).await?;
    }
    Ok((split(git.run_in(&scratch, &args).await?), false))
}

/// The size of each regular file (symlinks and vanished files are left out).
fn sizes(root: &Path, files: Vec<String>) -> Vec<(String, u64)> {
    files
        .into_iter()
        .filter_map(|f| {
            let meta = std::fs::symlink_metadata(root.join(&f)).ok()?;
            meta.is_file().then_some((f, meta.len()))
        })
        .collect()
}

/// Installs `now` as the skip list: warns once per path, rewrites the exclude file and drops
/// newly skipped paths from the shadow index.
async fn apply(git: &Git<'_>, skips: &mut Skips, now: Vec<Skipped>) -> Result<(), SnapshotError> {
    let paths = |list: &[Skipped]| -> Vec<String> { list.iter().map(|s| s.path.clone()).collect() };
    let (before, after) = (paths(&skips.now), paths(&now));
    for s in &now {
        if skips.warned.insert(s.path.clone()) {
            tracing::warn!(
                worktree = %git.worktree.display(),
                "snapshots leave out {s}; undo cannot restore it"
            );
        }
    }
    if before != after || !git.git_dir.join("info/exclude").exists() {
        let info = git.git_dir.join("info");
        std::fs::create_dir_all(&info)
            .and_then(|()| std::fs::write(info.join("exclude"), exclude_file(&now)))
            .map_err(|e| git.error(format!("could not write {}: {e}", info.display())))?;
        let added: Vec<String> = after
            .iter()
            .filter(|p| !before.contains(p))
            .map(|p| p.trim_end_matches('/').to_string())
            .collect();
        git.run_paths(
            &["rm", "-r", "--cached", "--quiet", "--ignore-unmatch"],
            &added,
        )
        .await?;
    }
    skips.now = now;
    Ok(())
}
