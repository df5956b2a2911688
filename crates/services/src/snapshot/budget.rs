//! Keeping a shadow repository under its size budget: measure it (a `du` of the folder),
//! and past the budget drop the oldest snapshots that no live session can revert to, then
//! `git gc --prune=now` and remove the temp packs an interrupted gc leaves behind.
//! The choices (which refs, when to try again) are plain functions with their own tests.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::SnapshotError;
use super::git::Git;

/// Answers whether a session still exists, so that its snapshots may still be reverted to.
pub type Liveness = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// Namespace of the per-message marks: `refs/strata/<session>/<message>`.
pub(super) const MARKS: &str = "refs/strata/";
/// Namespace of the files before a revert, kept for unrevert: `refs/strata-keep/<session>`.
pub(super) const KEEPS: &str = "refs/strata-keep/";

/// Far from the budget, the store is measured once per this many captures.
const MEASURE_EVERY: u64 = 16;

/// Temp files younger than this may belong to a git command still running.
const TEMP_GRACE: Duration = Duration::from_secs(60);

/// What a budget check found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BudgetReport {
    /// The store's size on disk after the check, in bytes.
    pub bytes: u64,
    /// Snapshots (refs) dropped.
    pub pruned: usize,
    /// Whether `git gc` ran.
    pub collected: bool,
}

/// Per repository: captures since the last measurement, the last size, and the size after
/// the last collection that could not get under the budget.
#[derive(Debug, Default)]
pub(super) struct BudgetState {
    /// Trees written since the last measurement; without new ones the size has not grown.
    pub(super) captures: u64,
    last: Option<u64>,
    floor: Option<u64>,
    warned: bool,
}

/// Whether to measure the store now: on the first check, and after new captures, each time
/// once it holds more than half the budget, else once per [`MEASURE_EVERY`] captures (a
/// `du` of many loose objects is not free; the skip rules bound what one capture adds).
pub(super) fn should_measure(captures: u64, last: Option<u64>, budget: u64) -> bool {
    match last {
        None => true,
        Some(_) if captures == 0 => false,
        Some(bytes) => bytes > budget / 2 || captures >= MEASURE_EVERY,
    }
}

/// Whether a store of `bytes` should be collected: over `budget`, and when the last
/// collection could not get under it, either some snapshot has become droppable since (its
/// session was deleted) or the store grew by a tenth of the budget. So a store whose
/// snapshots all still count is not collected on every capture.
pub(super) fn should_collect(bytes: u64, budget: u64, floor: Option<u64>, droppable: bool) -> bool {
    bytes > budget && (droppable || floor.is_none_or(|f| bytes > f.saturating_add(budget / 10)))
}

/// The refs no live session can revert to, oldest first (ids sort by creation time).
pub(super) fn dead_refs(refs: &str, live: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut dead: Vec<(&str, &str)> = refs
        .lines()
        .filter_map(|name| {
            let (session, key) = if let Some(rest) = name.strip_prefix(MARKS) {
                let (session, message) = rest.split_once('/')?;
                (session, message)
            } else {
                let session = name.strip_prefix(KEEPS)?;
                (session, session)
            };
            (!live(session)).then_some((key, name))
        })
        .collect();
    dead.sort();
    dead.into_iter().map(|(_, name)| name.to_string()).collect()
}

/// Whether a file name in `objects/` or `objects/pack/` is a temp file git left behind.
pub(super) fn is_temp(name: &str) -> bool {
    ["tmp_pack_", "tmp_idx_", "tmp_rev_", "tmp_obj_", ".tmp-"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// The space `dir` takes on disk, like `du -s` (allocated blocks, so loose objects count
/// what they really cost).
pub fn disk_usage(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.metadata() {
            Ok(m) if m.is_dir() => disk_usage(&entry.path()),
            Ok(m) => allocated(&m),
            Err(_) => 0,
        })
        .sum()
}

#[cfg(unix)]
fn allocated(m: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    m.blocks() * 512
}

#[cfg(not(unix))]
fn allocated(m: &std::fs::Metadata) -> u64 {
    m.len()
}

/// Removes temp files older than [`TEMP_GRACE`] from `objects/` and `objects/pack/`.
fn remove_temps(git_dir: &Path) -> usize {
    let now = SystemTime::now();
    let mut removed = 0;
    for dir in [git_dir.join("objects"), git_dir.join("objects/pack")] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| now.duration_since(t).unwrap_or_default() > TEMP_GRACE);
            if old && is_temp(&entry.file_name().to_string_lossy()) {
                let path = entry.path();
                let gone = if path.is_dir() {
                    std::fs::remove_dir_all(&path)
                } else {
                    std::fs::remove_file(&path)
                };
                removed += usize::from(gone.is_ok());
            }
        }
    }
    removed
}

/// The size of the repository, measured off the async threads.
async fn measure(git_dir: &Path) -> u64 {
    let dir = git_dir.to_path_buf();
    tokio::task::spawn_blocking(move || disk_usage(&dir))
        .await
        .unwrap_or(0)
}

/// `git gc --prune=now`, then the leftover temp files.
async fn collect(git: &Git<'_>) -> Result<u64, SnapshotError> {
    git.run(&["gc", "--prune=now", "--quiet"]).await?;
    let dir = git.git_dir.clone();
    let removed = tokio::task::spawn_blocking(move || remove_temps(&dir))
        .await
        .unwrap_or(0);
    if removed > 0 {
        tracing::info!(removed, dir = %git.git_dir.display(), "removed leftover git temp files");
    }
    Ok(measure(&git.git_dir).await)
}

/// Brings the repository under `budget` bytes if it is over: collect first; then drop the
/// oldest half of the dead snapshots and collect again, until under or none is left.
pub(super) async fn enforce(
    git: &Git<'_>,
    state: &mut BudgetState,
    budget: u64,
    live: &(dyn Fn(&str) -> bool + Send + Sync),
) -> Result<BudgetReport, SnapshotError> {
    let bytes = match state.last {
        Some(bytes) if !should_measure(state.captures, state.last, budget) => bytes,
        _ => {
            state.captures = 0;
            measure(&git.git_dir).await
        }
    };
    state.last = Some(bytes);
    let mut report = BudgetReport {
        bytes,
        ..BudgetReport::default()
    };
    if report.bytes <= budget {
        state.floor = None;
        return Ok(report);
    }
    let refs = git
        .run(&["for-each-ref", "--format=%(refname)", MARKS, KEEPS])
        .await?;
    let mut dead = dead_refs(&refs, live);
    if !should_collect(report.bytes, budget, state.floor, !dead.is_empty()) {
        return Ok(report);
    }
    report.bytes = collect(git).await?;
    report.collected = true;
    while report.bytes > budget && !dead.is_empty() {
        let rest = dead.split_off(dead.len().div_ceil(2));
        for name in &dead {
            git.run(&["update-ref", "-d", name]).await?;
        }
        report.pruned += dead.len();
        dead = rest;
        report.bytes = collect(git).await?;
    }
    state.last = Some(report.bytes);
    state.floor = (report.bytes > budget).then_some(report.bytes);
    if report.bytes > budget && !state.warned {
        state.warned = true;
        tracing::warn!(
            worktree = %git.worktree.display(),
            mib = report.bytes / (1024 * 1024),
            budget_mib = budget / (1024 * 1024),
            "the snapshot store is over `snapshot.max_mb`, but every snapshot left belongs to \
             a session that can still revert; delete old sessions or raise snapshot.max_mb"
        );
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn far_from_the_budget_the_store_is_measured_now_and_then() {
        assert!(should_measure(0, None, 100));
        assert!(!should_measure(0, Some(90), 100), "nothing new captured");
        assert!(
            should_measure(1, Some(51), 100),
            "close to the budget: every capture"
        );
        assert!(!should_measure(15, Some(50), 100));
        assert!(should_measure(16, Some(50), 100));
    }

    #[test]
    fn collection_waits_for_growth_or_a_droppable_snapshot_after_a_failed_attempt() {
        assert!(!should_collect(100, 100, None, true));
        assert!(should_collect(101, 100, None, false));
        // The last collection left 150: wait until 160 (150 + a tenth of 100)...
        assert!(!should_collect(160, 100, Some(150), false));
        assert!(should_collect(161, 100, Some(150), false));
        // ...unless a session was deleted since.
        assert!(should_collect(151, 100, Some(150), true));
    }

    #[test]
    fn dead_refs_are_those_of_gone_sessions_oldest_first() {
        let refs = "refs/strata/ses_2/msg_5\nrefs/strata/ses_1/msg_3\nrefs/strata/ses_9/msg_1\n\
                    refs/strata/ses_1/msg_1\nrefs/strata-keep/ses_1\nrefs/strata-keep/ses_9\n\
                    refs/heads/main\n";
        let live = |s: &str| s == "ses_9";
        assert_eq!(
            dead_refs(refs, &live),
            [
                "refs/strata/ses_1/msg_1",
                "refs/strata/ses_1/msg_3",
                "refs/strata/ses_2/msg_5",
                "refs/strata-keep/ses_1",
            ]
        );
        assert!(dead_refs(refs, &|_| true).is_empty());
    }

    #[test]
    fn temp_files_are_recognised_by_name() {
        for name in ["tmp_pack_Ab12", ".tmp-123-pack", "tmp_idx_x", "tmp_obj_y"] {
            assert!(is_temp(name), "{name}");
        }
        for name in ["pack-abc.pack", "pack-abc.idx", "ab", "info"] {
            assert!(!is_temp(name), "{name}");
        }
    }

    #[test]
    fn disk_usage_counts_files_in_nested_folders() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::fs::write(dir.path().join("a/b/f"), vec![1u8; 100_000]).unwrap();
        std::fs::write(dir.path().join("g"), vec![1u8; 10]).unwrap();
        let used = disk_usage(dir.path());
        assert!((100_010..200_000).contains(&used), "{used}");
        assert_eq!(disk_usage(&dir.path().join("missing")), 0);
    }

    #[test]
    fn old_temp_files_go_and_packs_stay() {
        let dir = tempfile::tempdir().unwrap();
        let pack = dir.path().join("objects/pack");
        std::fs::create_dir_all(&pack).unwrap();
        for name in ["tmp_pack_1", "pack-1.pack", "tmp_pack_new"] {
            std::fs::write(pack.join(name), b"x").unwrap();
        }
        let old = SystemTime::now() - Duration::from_secs(3600);
        for name in ["tmp_pack_1", "pack-1.pack"] {
            let f = std::fs::File::options()
                .write(true)
                .open(pack.join(name))
                .unwrap();
            f.set_modified(old).unwrap();
        }
        assert_eq!(remove_temps(dir.path()), 1);
        assert!(!pack.join("tmp_pack_1").exists());
        assert!(pack.join("pack-1.pack").exists());
        // A fresh temp file may belong to a gc still running.
        assert!(pack.join("tmp_pack_new").exists());
    }
}
