//! The shadow-repository implementation: one bare repository per worktree under
//! `<data dir>/snapshot/<hash of the worktree path>`, one operation at a time per repository.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use sha2::{Digest, Sha256};

use super::SnapshotError;
use super::budget::{self, BudgetReport, BudgetState, KEEPS, Liveness, MARKS};
use super::git::Git;
use super::parse::{FileChange, name_status, numstat, status_word};
use super::scan::{self, Skips};
use super::skip::{Skipped, refusal};
use crate::process::ChildProcessSpawner;

/// Files beyond this many in one diff are listed without their patch.
const MAX_PATCHES: usize = 200;

/// What this process knows of one shadow repository.
#[derive(Debug, Default)]
struct Repo {
    /// Initialised (or re-read) in this process.
    ready: bool,
    skips: Skips,
    budget: BudgetState,
}

pub(super) struct LiveSnapshots {
    spawner: ChildProcessSpawner,
    root: PathBuf,
    home: PathBuf,
    enabled: AtomicBool,
    repos: Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<Repo>>>>,
    /// Worktrees refused (a home or a root) that were already warned about.
    refused: Mutex<HashSet<PathBuf>>,
    live: Mutex<Option<Liveness>>,
}

impl LiveSnapshots {
    pub(super) fn new(
        spawner: ChildProcessSpawner,
        root: PathBuf,
        home: PathBuf,
        on: bool,
    ) -> Self {
        let home = std::fs::canonicalize(&home).unwrap_or(home);
        Self {
            spawner,
            root,
            home,
            enabled: AtomicBool::new(on),
            repos: Mutex::new(HashMap::new()),
            refused: Mutex::new(HashSet::new()),
            live: Mutex::new(None),
        }
    }

    pub(super) fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    pub(super) fn set_enabled(&self, on: bool) {
        self.enabled.store(on, Ordering::Relaxed);
    }

    pub(super) fn set_liveness(&self, live: Liveness) {
        *self.live.lock().unwrap_or_else(PoisonError::into_inner) = Some(live);
    }

    fn git_dir(&self, worktree: &Path) -> PathBuf {
        let digest = Sha256::digest(worktree.to_string_lossy().as_bytes());
        let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        self.root.join(hex)
    }

    /// Why `worktree` is never snapshotted, if it is not; warns the first time.
    pub(super) fn refused(&self, worktree: &Path) -> Option<SnapshotError> {
        let reason = refusal(worktree, Some(&self.home))?;
        let first = self
            .refused
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(worktree.to_path_buf());
        let detail = format!(
            "snapshots are off for this folder because {reason}; undo needs a project folder, \
             so start Strata inside one"
        );
        if first {
            tracing::warn!(worktree = %worktree.display(), "{detail}");
        }
        Some(SnapshotError {
            action: "capture",
            worktree: worktree.display().to_string(),
            detail,
        })
    }

    /// Locks the worktree's repository (creating it on first use) and hands out a git runner.
    async fn open<'a>(
        &'a self,
        worktree: &'a Path,
        action: &'static str,
    ) -> Result<(tokio::sync::OwnedMutexGuard<Repo>, Git<'a>), SnapshotError> {
        if let Some(mut refused) = self.refused(worktree) {
            refused.action = action;
            return Err(refused);
        }
        let git_dir = self.git_dir(worktree);
        let lock = {
            let mut repos = self.repos.lock().unwrap_or_else(PoisonError::into_inner);
            repos.entry(git_dir.clone()).or_default().clone()
        };
        let mut repo = lock.lock_owned().await;
        let git = Git {
            spawner: &self.spawner,
            git_dir,
            worktree,
            action,
        };
        if !repo.ready {
            // `init` on an existing repository only re-reads it, so a restart is harmless.
            git.init(&git.git_dir).await?;
            for (key, value) in [
                // Bare so nothing is checked out into it; but every command names the work tree.
                ("core.bare", "false"),
                ("core.autocrlf", "false"),
                ("gc.auto", "0"),
                ("core.quotepath", "false"),
            ] {
                git.run(&["config", key, value]).await?;
            }
            repo.ready = true;
        }
        Ok((repo, git))
    }

    pub(super) async fn capture(&self, worktree: &Path) -> Result<String, SnapshotError> {
        let (mut repo, git) = self.open(worktree, "capture").await?;
        write_tree(&git, &mut repo).await
    }

    /// Captures `worktree` and keeps the tree under the session's keep ref, so a collection
    /// never removes it while the session lives.
    pub(super) async fn keep(
        &self,
        worktree: &Path,
        session: &str,
    ) -> Result<String, SnapshotError> {
        let (mut repo, git) = self.open(worktree, "capture").await?;
        let tree = write_tree(&git, &mut repo).await?;
        let name = format!("{KEEPS}{}", ref_part(session));
        git.run(&["update-ref", &name, &tree]).await?;
        Ok(tree)
    }

    /// What the snapshots of `worktree` leave out (as of the last capture in this process).
    pub(super) async fn skipped(&self, worktree: &Path) -> Result<Vec<Skipped>, SnapshotError> {
        let (repo, _git) = self.open(worktree, "list").await?;
        Ok(repo.skips.now.clone())
    }

    /// Keeps the repository of `worktree` under `budget` bytes (see [`budget::enforce`]).
    pub(super) async fn enforce_budget(
        &self,
        worktree: &Path,
        budget: u64,
    ) -> Result<BudgetReport, SnapshotError> {
        let live = self
            .live
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        // Without a way to ask, every session counts as live: nothing is dropped, only collected.
        let live: Liveness = live.unwrap_or_else(|| Arc::new(|_: &str| true));
        let (mut repo, git) = self.open(worktree, "prune").await?;
        budget::enforce(&git, &mut repo.budget, budget, live.as_ref()).await
    }

    pub(super) async fn mark(
        &self,
        worktree: &Path,
        session: &str,
        message: &str,
    ) -> Result<String, SnapshotError> {
        let (mut repo, git) = self.open(worktree, "capture").await?;
        let name = format!("{MARKS}{}/{}", ref_part(session), ref_part(message));
        if let Ok(existing) = git.run(&["rev-parse", "--quiet", "--verify", &name]).await {
            return Ok(existing.trim().to_string());
        }
        let tree = write_tree(&git, &mut repo).await?;
        git.run(&["update-ref", &name, &tree]).await?;
        Ok(tree)
    }

    pub(super) async fn marks(
        &self,
        worktree: &Path,
        session: &str,
    ) -> Result<Vec<(String, String)>, SnapshotError> {
        let (_lock, git) = self.open(worktree, "list").await?;
        let prefix = format!("{MARKS}{}/", ref_part(session));
        let listing = git
            .run(&[
                "for-each-ref",
                "--format=%(refname)\t%(objectname)",
                &prefix,
            ])
            .await?;
        let mut marks: Vec<(String, String)> = listing
            .lines()
            .filter_map(|line| {
                let (name, tree) = line.split_once('\t')?;
                Some((name.strip_prefix(&prefix)?.to_string(), tree.to_string()))
            })
            .collect();
        marks.sort();
        Ok(marks)
    }

    pub(super) async fn restore(
        &self,
        worktree: &Path,
        tree: &str,
    ) -> Result<Vec<String>, SnapshotError> {
        let (mut repo, git) = self.open(worktree, "restore").await?;
        let now = write_tree(&git, &mut repo).await?;
        let listing = git
            .run(&[
                "diff-tree",
                "-r",
                "-z",
                "--no-renames",
                "--name-status",
                tree,
                &now,
            ])
            .await?;
        let entries = name_status(&listing);
        let (added, rest): (Vec<_>, Vec<_>) = entries.iter().partition(|(s, _)| *s == 'A');
        let added: Vec<String> = added.into_iter().map(|(_, p)| p.clone()).collect();
        let rest: Vec<String> = rest.into_iter().map(|(_, p)| p.clone()).collect();
        // The index becomes the target: changed and deleted files are written from it, and
        // files added since are untracked now, so `clean` may remove exactly those.
        git.run(&["read-tree", tree]).await?;
        git.run_paths(&["checkout-index", "--force"], &rest).await?;
        git.run_paths(&["clean", "--force", "--quiet"], &added)
            .await?;
        Ok(entries.into_iter().map(|(_, p)| p).collect())
    }

    pub(super) async fn changes(
        &self,
        worktree: &Path,
        from: &str,
        to: Option<&str>,
    ) -> Result<Vec<FileChange>, SnapshotError> {
        let (mut repo, git) = self.open(worktree, "diff").await?;
        let to = match to {
            Some(t) => t.to_string(),
            None => write_tree(&git, &mut repo).await?,
        };
        let base = ["diff-tree", "-r", "-z", "--no-renames"];
        let statuses = name_status(
            &git.run(&[&base[..], &["--name-status", from, &to]].concat())
                .await?,
        );
        let counts = numstat(
            &git.run(&[&base[..], &["--numstat", from, &to]].concat())
                .await?,
        );
        let mut out = Vec::with_capacity(statuses.len());
        for (i, (letter, path)) in statuses.into_iter().enumerate() {
            let (additions, deletions) = counts
                .iter()
                .find(|(p, _, _)| *p == path)
                .map_or((0, 0), |(_, a, d)| (*a, *d));
            let patch = if i < MAX_PATCHES {
                git.run(&["diff-tree", "-p", "--no-renames", from, &to, "--", &path])
                    .await?
            } else {
                String::new()
            };
            out.push(FileChange {
                path,
                status: status_word(letter),
                additions,
                deletions,
                patch,
            });
        }
        Ok(out)
    }
}

/// Stages every file that is neither ignored nor skipped and writes the index as a tree.
async fn write_tree(git: &Git<'_>, repo: &mut Repo) -> Result<String, SnapshotError> {
    scan::refresh(git, &mut repo.skips).await?;
    repo.budget.captures += 1;
    git.run(&["add", "--all", "--", "."]).await?;
    Ok(git.run(&["write-tree"]).await?.trim().to_string())
}

/// Ids become ref name parts: anything but `[A-Za-z0-9_-]` becomes `_`.
fn ref_part(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
