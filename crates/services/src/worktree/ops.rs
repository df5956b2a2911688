//! The git behind [`Worktrees`](super::Worktrees).

use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};
use tokio::sync::Mutex;

use super::parse::{changed_files, worktree_list};
use super::{
    BRANCH_PREFIX, Changes, Created, Removed, Repo, Worktree, WorktreeError, WorktreeState,
    invalid_reason,
};
use crate::process::{ChildProcessSpawner, CommandSpec};

/// A checkout of a large repository takes a while; nothing is left hanging past this.
const TIMEOUT: Duration = Duration::from_secs(300);

pub(super) struct Live {
    spawner: ChildProcessSpawner,
    /// `<data>/worktrees`.
    pub(super) root: PathBuf,
    /// Creations and removals one at a time, so git's worktree list is never raced.
    lock: Mutex<()>,
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

impl Live {
    pub(super) fn new(spawner: ChildProcessSpawner, root: PathBuf) -> Self {
        Self {
            spawner,
            root,
            lock: Mutex::new(()),
        }
    }

    async fn git_env(
        &self,
        dir: &Path,
        args: &[&str],
        env: &[(&str, &Path)],
    ) -> Result<String, WorktreeError> {
        let mut spec = CommandSpec::new("git")
            .args(args)
            .cwd(dir)
            .env("GIT_TERMINAL_PROMPT", "0");
        for (k, v) in env {
            spec = spec.env(k, v);
        }
        let failed = |detail: String| WorktreeError::Git {
            command: args.join(" "),
            dir: dir.to_path_buf(),
            detail,
        };
        let out = self
            .spawner
            .run(spec, TIMEOUT)
            .await
            .map_err(|e| failed(format!("{e}; is git installed and on the PATH?")))?;
        if !out.success() {
            return Err(failed(out.stderr_text().trim().to_string()));
        }
        Ok(out.stdout_text())
    }

    async fn git(&self, dir: &Path, args: &[&str]) -> Result<String, WorktreeError> {
        self.git_env(dir, args, &[]).await
    }

    pub(super) async fn repo(&self, dir: &Path) -> Result<Repo, WorktreeError> {
        let not_git = || WorktreeError::NotGit {
            dir: dir.to_path_buf(),
        };
        if !dir.is_dir() {
            return Err(not_git());
        }
        let args = [
            "rev-parse",
            "--path-format=absolute",
            "--show-toplevel",
            "--git-common-dir",
        ];
        let out = self.git(dir, &args).await.map_err(|_| not_git())?;
        let mut lines = out.lines();
        let (Some(top), Some(common)) = (lines.next(), lines.next()) else {
            return Err(not_git());
        };
        let common_dir = canonical(Path::new(common.trim()));
        let main = match common_dir.file_name() {
            Some(n) if n == ".git" => common_dir.parent().map(Path::to_path_buf),
            _ => None,
        }
        .unwrap_or_else(|| common_dir.clone());
        let folder = main
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "repo".into());
        let folder: String = folder
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let digest = Sha256::digest(common_dir.to_string_lossy().as_bytes());
        let hash: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
        Ok(Repo {
            toplevel: canonical(Path::new(top.trim())),
            common_dir,
            main,
            project_id: format!("{folder}-{hash}"),
        })
    }

    fn root_of(&self, repo: &Repo) -> PathBuf {
        canonical(&self.root.join(&repo.project_id))
    }

    fn worktree(repo: &Repo, path: PathBuf) -> Worktree {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Worktree {
            branch: format!("{BRANCH_PREFIX}{name}"),
            name,
            path,
            repo: repo.main.clone(),
        }
    }

    /// The repository's worktrees under our folder, as git lists them.
    async fn ours(&self, repo: &Repo) -> Result<Vec<(Worktree, bool)>, WorktreeError> {
        let root = self.root_of(repo);
        let text = self
            .git(&repo.toplevel, &["worktree", "list", "--porcelain"])
            .await?;
        Ok(worktree_list(&text)
            .into_iter()
            .filter_map(|w| {
                let path = canonical(&w.path);
                (path.parent() == Some(root.as_path())).then(|| {
                    let mut wt = Self::worktree(repo, path);
                    if let Some(branch) = w.branch {
                        wt.branch = branch;
                    }
                    (wt, w.prunable)
                })
            })
            .collect())
    }

    async fn state(&self, worktree: Worktree, missing: bool) -> WorktreeState {
        let changed = if missing {
            Vec::new()
        } else {
            let args = ["status", "--porcelain", "--untracked-files=all"];
            match self.git(&worktree.path, &args).await {
                Ok(text) => changed_files(&text),
                Err(e) => vec![format!("(git status failed: {e})")],
            }
        };
        WorktreeState {
            worktree,
            changed,
            missing,
        }
    }

    pub(super) async fn list(&self, dir: &Path) -> Result<Vec<WorktreeState>, WorktreeError> {
        let repo = self.repo(dir).await?;
        let mut out = Vec::new();
        for (wt, missing) in self.ours(&repo).await? {
            out.push(self.state(wt, missing).await);
        }
        out.sort_by(|a, b| a.worktree.name.cmp(&b.worktree.name));
        Ok(out)
    }

    pub(super) async fn find(&self, dir: &Path, key: &str) -> Result<WorktreeState, WorktreeError> {
        let repo = self.repo(dir).await?;
        self.find_in(&repo, key).await
    }

    async fn find_in(&self, repo: &Repo, key: &str) -> Result<WorktreeState, WorktreeError> {
        let as_path = canonical(Path::new(key));
        let found = self
            .ours(repo)
            .await?
            .into_iter()
            .find(|(w, _)| w.name == key || w.path == as_path);
        match found {
            Some((wt, missing)) => Ok(self.state(wt, missing).await),
            None => Err(WorktreeError::NotFound {
                name: key.to_string(),
                repo: repo.main.clone(),
            }),
        }
    }

    pub(super) fn containing(&self, path: &Path) -> Option<(String, PathBuf)> {
        let root = canonical(&self.root);
        let path = canonical(path);
        let rest = path.strip_prefix(&root).ok()?;
        let mut parts = rest.components();
        let project = parts.next()?;
        let name = parts.next()?.as_os_str().to_string_lossy().into_owned();
        Some((name.clone(), root.join(project).join(name)))
    }

    pub(super) async fn create(
        &self,
        dir: &Path,
        name: Option<&str>,
        reuse: bool,
    ) -> Result<Created, WorktreeError> {
        let repo = self.repo(dir).await?;
        let base = self
            .git(
                &repo.toplevel,
                &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"],
            )
            .await
            .map_err(|_| WorktreeError::NoCommit {
                repo: repo.toplevel.clone(),
            })?
            .trim()
            .to_string();
        if let Some(name) = name
            && let Some(reason) = invalid_reason(name)
        {
            return Err(WorktreeError::InvalidName {
                name: name.into(),
                reason: reason.into(),
            });
        }
        let _one_at_a_time = self.lock.lock().await;
        let root = self.root.join(&repo.project_id);
        std::fs::create_dir_all(&root).map_err(|e| WorktreeError::Git {
            command: "worktree add".into(),
            dir: root.clone(),
            detail: format!("could not create the folder: {e}; check the data directory"),
        })?;
        let root = canonical(&root);
        let name = match name {
            Some(n) => n.to_string(),
            None => self.fresh_name(&repo, &root).await?,
        };
        let path = root.join(&name);
        let branch = format!("{BRANCH_PREFIX}{name}");
        if path.exists() {
            let listed = self
                .ours(&repo)
                .await?
                .into_iter()
                .find(|(w, _)| w.path == path);
            return match listed {
                Some((worktree, _)) if reuse => {
                    let head = self.git(&path, &["rev-parse", "HEAD"]).await?;
                    Ok(Created {
                        worktree,
                        base: head.trim().to_string(),
                        reused: true,
                    })
                }
                Some(_) => Err(WorktreeError::Exists { name, path }),
                None => Err(WorktreeError::NotOurs { path }),
            };
        }
        if self.branch_exists(&repo, &branch).await {
            return Err(WorktreeError::BranchExists { branch });
        }
        let path_text = path.to_string_lossy().into_owned();
        let args = [
            "worktree", "add", "--quiet", "-b", &branch, &path_text, &base,
        ];
        self.git(&repo.toplevel, &args).await?;
        Ok(Created {
            worktree: Self::worktree(&repo, path),
            base,
            reused: false,
        })
    }

    async fn branch_exists(&self, repo: &Repo, branch: &str) -> bool {
        let r = format!("refs/heads/{branch}");
        let args = ["rev-parse", "--verify", "--quiet", r.as_str()];
        self.git(&repo.toplevel, &args).await.is_ok()
    }

    /// A generated name whose folder and branch are both free.
    async fn fresh_name(&self, repo: &Repo, root: &Path) -> Result<String, WorktreeError> {
        for _ in 0..8 {
            let name = super::generated(rand::random());
            let branch = format!("{BRANCH_PREFIX}{name}");
            if !root.join(&name).exists() && !self.branch_exists(repo, &branch).await {
                return Ok(name);
            }
        }
        Err(WorktreeError::InvalidName {
            name: "(generated)".into(),
            reason: "no free name was found; pass one".into(),
        })
    }

    pub(super) async fn remove(
        &self,
        dir: &Path,
        key: &str,
        force: bool,
    ) -> Result<Removed, WorktreeError> {
        let repo = self.repo(dir).await?;
        let _one_at_a_time = self.lock.lock().await;
        let state = self.find_in(&repo, key).await?;
        let wt = state.worktree;
        if !state.changed.is_empty() && !force {
            return Err(WorktreeError::Dirty {
                name: wt.name.clone(),
                count: state.changed.len(),
                files: state.changed.into_iter().take(5).collect(),
            });
        }
        if state.missing {
            self.git(&repo.toplevel, &["worktree", "prune"]).await?;
        } else {
            let path = wt.path.to_string_lossy().into_owned();
            let mut args = vec!["worktree", "remove"];
            if force {
                args.push("--force");
            }
            args.push(&path);
            self.git(&repo.toplevel, &args).await?;
        }
        let branch_kept = self
            .git(&repo.toplevel, &["branch", "-d", &wt.branch])
            .await
            .err()
            .map(|_| {
                format!(
                    "the branch `{}` was kept: it has commits not merged into HEAD; merge it, \
                     or delete it with `git branch -D {}`",
                    wt.branch, wt.branch
                )
            });
        Ok(Removed {
            worktree: wt,
            branch_kept,
        })
    }

    pub(super) async fn remove_if_unchanged(
        &self,
        wt: &Worktree,
        base: &str,
    ) -> Result<Changes, WorktreeError> {
        let changes = self.changes(&wt.path, base).await?;
        if !changes.is_empty() {
            return Ok(changes);
        }
        let _one_at_a_time = self.lock.lock().await;
        let path = wt.path.to_string_lossy().into_owned();
        self.git(&wt.repo, &["worktree", "remove", &path]).await?;
        // No commits of its own: nothing is lost with the branch.
        self.git(&wt.repo, &["branch", "-D", &wt.branch]).await?;
        Ok(changes)
    }

    pub(super) async fn reset(&self, dir: &Path, key: &str) -> Result<Worktree, WorktreeError> {
        let repo = self.repo(dir).await?;
        let wt = self.find_in(&repo, key).await?.worktree;
        let head = self.git(&repo.main, &["rev-parse", "HEAD"]).await?;
        self.git(&wt.path, &["reset", "--quiet", "--hard", head.trim()])
            .await?;
        self.git(&wt.path, &["clean", "-ffdq"]).await?;
        Ok(wt)
    }

    pub(super) async fn changes(&self, path: &Path, base: &str) -> Result<Changes, WorktreeError> {
        let status = self
            .git(path, &["status", "--porcelain", "--untracked-files=all"])
            .await?;
        let range = format!("{base}..HEAD");
        let commits = self.git(path, &["rev-list", "--count", &range]).await?;
        let mut changes = Changes {
            files: changed_files(&status),
            commits: commits.trim().parse().unwrap_or(0),
            stat: String::new(),
        };
        if !changes.is_empty() {
            changes.stat = self.stat(path, base).await?;
        }
        Ok(changes)
    }

    /// `git diff --stat` from `base` to the files now, untracked ones included: everything is
    /// added to a throwaway index, so the worktree's own index is left alone.
    async fn stat(&self, path: &Path, base: &str) -> Result<String, WorktreeError> {
        let git_dir = self.git(path, &["rev-parse", "--absolute-git-dir"]).await?;
        let index = PathBuf::from(git_dir.trim()).join("strata-stat-index");
        let env = [("GIT_INDEX_FILE", index.as_path())];
        let result = async {
            self.git_env(path, &["read-tree", "HEAD"], &env).await?;
            self.git_env(path, &["add", "-A"], &env).await?;
            self.git_env(path, &["diff", "--cached", "--stat", base], &env)
                .await
        }
        .await;
        // The index is ours alone and rebuilt on every call.
        let _ = std::fs::remove_file(&index);
        Ok(result?.trim_end().to_string())
    }
}
