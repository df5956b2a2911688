//! The shadow-repository implementation: one bare repository per worktree under
//! `<data dir>/snapshot/<hash of the worktree path>`, one operation at a time per repository.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use sha2::{Digest, Sha256};

use super::SnapshotError;
use super::git::Git;
use super::parse::{FileChange, name_status, numstat, status_word};
use crate::process::ChildProcessSpawner;

/// Files beyond this many in one diff are listed without their patch.
const MAX_PATCHES: usize = 200;

pub(super) struct LiveSnapshots {
    spawner: ChildProcessSpawner,
    root: PathBuf,
    enabled: AtomicBool,
    /// Per repository: a lock, and whether it was initialised in this process.
    repos: Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<bool>>>>,
}

impl LiveSnapshots {
    pub(super) fn new(spawner: ChildProcessSpawner, root: PathBuf, on: bool) -> Self {
        Self {
            spawner,
            root,
            enabled: AtomicBool::new(on),
            repos: Mutex::new(HashMap::new()),
        }
    }

    pub(super) fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    pub(super) fn set_enabled(&self, on: bool) {
        self.enabled.store(on, Ordering::Relaxed);
    }

    fn git_dir(&self, worktree: &Path) -> PathBuf {
        let digest = Sha256::digest(worktree.to_string_lossy().as_bytes());
        let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        self.root.join(hex)
    }

    /// Locks the worktree's repository (creating it on first use) and hands out a git runner.
    async fn open<'a>(
        &'a self,
        worktree: &'a Path,
        action: &'static str,
    ) -> Result<(tokio::sync::OwnedMutexGuard<bool>, Git<'a>), SnapshotError> {
        let git_dir = self.git_dir(worktree);
        let lock = {
            let mut repos = self.repos.lock().unwrap_or_else(PoisonError::into_inner);
            repos.entry(git_dir.clone()).or_default().clone()
        };
        let mut ready = lock.lock_owned().await;
        let git = Git {
            spawner: &self.spawner,
            git_dir,
            worktree,
            action,
        };
        if !*ready {
            // `init` on an existing repository only re-reads it, so a restart is harmless.
            git.init().await?;
            for (key, value) in [
                ("core.autocrlf", "false"),
                ("gc.auto", "0"),
                ("core.quotepath", "false"),
            ] {
                git.run(&["config", key, value]).await?;
            }
            *ready = true;
        }
        Ok((ready, git))
    }

    pub(super) async fn capture(&self, worktree: &Path) -> Result<String, SnapshotError> {
        let (_lock, git) = self.open(worktree, "capture").await?;
        write_tree(&git).await
    }

    pub(super) async fn mark(
        &self,
        worktree: &Path,
        session: &str,
        message: &str,
    ) -> Result<String, SnapshotError> {
        let (_lock, git) = self.open(worktree, "capture").await?;
        let name = format!("refs/strata/{}/{}", ref_part(session), ref_part(message));
        if let Ok(existing) = git.run(&["rev-parse", "--quiet", "--verify", &name]).await {
            return Ok(existing.trim().to_string());
        }
        let tree = write_tree(&git).await?;
        git.run(&["update-ref", &name, &tree]).await?;
        Ok(tree)
    }

    pub(super) async fn marks(
        &self,
        worktree: &Path,
        session: &str,
    ) -> Result<Vec<(String, String)>, SnapshotError> {
        let (_lock, git) = self.open(worktree, "list").await?;
        let prefix = format!("refs/strata/{}/", ref_part(session));
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
        let (_lock, git) = self.open(worktree, "restore").await?;
        let now = write_tree(&git).await?;
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
        let (_lock, git) = self.open(worktree, "diff").await?;
        let to = match to {
            Some(t) => t.to_string(),
            None => write_tree(&git).await?,
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

/// Stages every file that is not ignored and writes the index as a tree.
async fn write_tree(git: &Git<'_>) -> Result<String, SnapshotError> {
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
