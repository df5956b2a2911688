//! Worktrees: git worktrees that Strata makes for sessions and subagents, so that parallel work
//! on one repository does not overwrite itself.
//!
//! Each lives under the data directory at `<data>/worktrees/<project>/<NAME>`, on the branch
//! `strata/NAME` made from the repository's `HEAD`; `<project>` is the repository's folder name
//! and a hash of its shared git directory, so every checkout of one repository (its main
//! checkout and its worktrees) finds the same worktrees. Git runs through the
//! [`ChildProcessSpawner`]; creations and removals are serialised within a process, so
//! parallel subagents do not race on the repository's worktree list.
//!
//! Nothing is thrown away without being asked: removing a worktree with uncommitted changes
//! needs `force`, and a branch with commits not merged into `HEAD` is kept (and said so).

mod name;
mod ops;
pub mod parse;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_graph::{BoxError, Node, Scope, Tier};

use crate::flags::RuntimeFlags;
use crate::process::ChildProcessSpawner;

pub use name::{generated, invalid_reason};

/// The prefix of every worktree branch Strata makes.
pub const BRANCH_PREFIX: &str = "strata/";

/// A repository, as found from any folder inside one of its checkouts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repo {
    /// The top of the checkout the folder is in (a linked worktree or the main checkout).
    pub toplevel: PathBuf,
    /// The shared git directory (`git rev-parse --git-common-dir`).
    pub common_dir: PathBuf,
    /// The main checkout (the common directory's parent for a `.git` folder).
    pub main: PathBuf,
    /// `<folder name>-<hash>`: the folder under `<data>/worktrees/`.
    pub project_id: String,
}

/// One worktree Strata made.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Worktree {
    pub name: String,
    pub branch: String,
    pub path: PathBuf,
    /// The repository's main checkout.
    pub repo: PathBuf,
}

/// A worktree with its uncommitted changes, as listed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WorktreeState {
    #[serde(flatten)]
    pub worktree: Worktree,
    /// Changed, staged and untracked files (empty when clean; git's paths).
    pub changed: Vec<String>,
    /// Its folder is gone (git lists it as prunable).
    pub missing: bool,
}

/// A worktree ready for work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Created {
    pub worktree: Worktree,
    /// The commit it started from.
    pub base: String,
    /// It existed already and was taken as it is.
    pub reused: bool,
}

/// What removing a worktree did with its branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    pub worktree: Worktree,
    /// Why the branch was kept (it has commits not merged into `HEAD`), if it was.
    pub branch_kept: Option<String>,
}

/// What a worktree holds that its starting commit does not.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Changes {
    /// Uncommitted files.
    pub files: Vec<String>,
    /// Commits on its branch since the start.
    pub commits: u64,
    /// `git diff --stat` from the start to the files now (untracked files included).
    pub stat: String,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.commits == 0
    }
}

/// Why a worktree could not be made, found, removed or reset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorktreeError {
    #[error(
        "{} is not inside a git repository; worktrees need one: run `git init` and commit \
         first, or pass the repository with --dir",
        dir.display()
    )]
    NotGit { dir: PathBuf },
    #[error(
        "the repository {} has no commit yet, and a worktree starts from `HEAD`; commit \
         something first",
        repo.display()
    )]
    NoCommit { repo: PathBuf },
    #[error("`{name}` cannot name a worktree: {reason}")]
    InvalidName { name: String, reason: String },
    #[error(
        "the folder {} already exists and is not a worktree of this repository; choose \
         another name",
        path.display()
    )]
    NotOurs { path: PathBuf },
    #[error(
        "the worktree `{name}` already exists at {}; choose another name, or remove it with \
         `strata worktree remove {name}`",
        path.display()
    )]
    Exists { name: String, path: PathBuf },
    #[error(
        "the branch `{branch}` already exists; choose another name, or delete the branch \
         (`git branch -d {branch}`)"
    )]
    BranchExists { branch: String },
    #[error(
        "there is no Strata worktree `{name}` for the repository {}; `strata worktree list` \
         shows them",
        repo.display()
    )]
    NotFound { name: String, repo: PathBuf },
    #[error(
        "the worktree `{name}` has {count} uncommitted changed file(s) ({}); commit or keep \
         them first, or pass --force to throw them away",
        files.join(", ")
    )]
    Dirty {
        name: String,
        count: usize,
        /// The first few changed files.
        files: Vec<String>,
    },
    #[error("`git {command}` failed in {}: {detail}", dir.display())]
    Git {
        command: String,
        dir: PathBuf,
        detail: String,
    },
}

/// Handle to the worktree operations (global tier). Cheap to clone.
#[derive(Clone)]
pub struct Worktrees(Arc<ops::Live>);

impl strata_graph::Service for Worktrees {
    const KEY: &'static str = "Worktrees";
}

impl std::fmt::Debug for Worktrees {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worktrees")
            .field("root", &self.0.root)
            .finish()
    }
}

impl Worktrees {
    /// Worktrees under `<data_dir>/worktrees/`, with git run by `spawner`.
    pub fn new(spawner: ChildProcessSpawner, data_dir: &Path) -> Self {
        Self(Arc::new(ops::Live::new(
            spawner,
            data_dir.join("worktrees"),
        )))
    }

    /// The production node (global tier).
    pub fn node() -> Node {
        Node::new(
            Tier::Global,
            |(spawner, flags): (ChildProcessSpawner, RuntimeFlags), _s: Scope| async move {
                Ok::<_, BoxError>(Worktrees::new(spawner, &flags.data_dir))
            },
        )
    }

    /// The repository `dir` is in.
    pub async fn repo(&self, dir: &Path) -> Result<Repo, WorktreeError> {
        self.0.repo(dir).await
    }

    /// The folder holding the worktrees of `repo`.
    pub fn root_of(&self, repo: &Repo) -> PathBuf {
        self.0.root.join(&repo.project_id)
    }

    /// Makes the worktree `name` (a generated one when `None`) for the repository of `dir`,
    /// on the branch `strata/NAME` from `HEAD`. An existing Strata worktree of that name is
    /// taken as it is when `reuse` is set, and refused otherwise.
    pub async fn create(
        &self,
        dir: &Path,
        name: Option<&str>,
        reuse: bool,
    ) -> Result<Created, WorktreeError> {
        self.0.create(dir, name, reuse).await
    }

    /// The Strata worktrees of the repository of `dir`, with their uncommitted changes.
    pub async fn list(&self, dir: &Path) -> Result<Vec<WorktreeState>, WorktreeError> {
        self.0.list(dir).await
    }

    /// The worktree named `key` (or whose folder is `key`) of the repository of `dir`.
    pub async fn find(&self, dir: &Path, key: &str) -> Result<WorktreeState, WorktreeError> {
        self.0.find(dir, key).await
    }

    /// The Strata worktree `path` is in, if it is in one (no git is run).
    pub fn containing(&self, path: &Path) -> Option<(String, PathBuf)> {
        self.0.containing(path)
    }

    /// Removes the worktree `key`; uncommitted changes are refused unless `force`. Its branch
    /// goes too, unless it has commits not merged into `HEAD`.
    pub async fn remove(
        &self,
        dir: &Path,
        key: &str,
        force: bool,
    ) -> Result<Removed, WorktreeError> {
        self.0.remove(dir, key, force).await
    }

    /// Removes `worktree` and its branch if nothing changed since `base`; returns the changes
    /// (and keeps the worktree) otherwise.
    pub async fn remove_if_unchanged(
        &self,
        worktree: &Worktree,
        base: &str,
    ) -> Result<Changes, WorktreeError> {
        self.0.remove_if_unchanged(worktree, base).await
    }

    /// Puts the worktree `key` back at the main checkout's `HEAD`, dropping its changes.
    pub async fn reset(&self, dir: &Path, key: &str) -> Result<Worktree, WorktreeError> {
        self.0.reset(dir, key).await
    }

    /// What `path` (a worktree) holds beyond the commit `base`.
    pub async fn changes(&self, path: &Path, base: &str) -> Result<Changes, WorktreeError> {
        self.0.changes(path, base).await
    }
}
