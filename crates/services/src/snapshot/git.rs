//! Running git against a shadow repository whose work tree is the project.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::process::{ChildProcessSpawner, CommandSpec, Output};

use super::SnapshotError;

/// Long enough for `git add` of a large project; a capture is never left hanging.
const TIMEOUT: Duration = Duration::from_secs(120);

/// One shadow repository and the work tree it tracks.
#[derive(Debug)]
pub(super) struct Git<'a> {
    pub(super) spawner: &'a ChildProcessSpawner,
    pub(super) git_dir: PathBuf,
    pub(super) worktree: &'a Path,
    pub(super) action: &'static str,
}

impl Git<'_> {
    /// Runs `git ARGS` and returns stdout; a failure names the command and git's message.
    pub(super) async fn run(&self, args: &[&str]) -> Result<String, SnapshotError> {
        let spec = CommandSpec::new("git")
            .args(args)
            .cwd(self.worktree)
            .env("GIT_DIR", &self.git_dir)
            .env("GIT_WORK_TREE", self.worktree);
        self.exec(args, spec).await
    }

    /// Runs `git ARGS` against `git_dir` (another repository) with the same work tree.
    pub(super) async fn run_in(
        &self,
        git_dir: &Path,
        args: &[&str],
    ) -> Result<String, SnapshotError> {
        let spec = CommandSpec::new("git")
            .args(args)
            .cwd(self.worktree)
            .env("GIT_DIR", git_dir)
            .env("GIT_WORK_TREE", self.worktree);
        self.exec(args, spec).await
    }

    /// Runs `git ARGS` in the work tree with the project's own repository (read-only uses).
    pub(super) async fn run_project(&self, args: &[&str]) -> Result<String, SnapshotError> {
        let spec = CommandSpec::new("git").args(args).cwd(self.worktree);
        self.exec(args, spec).await
    }

    /// Creates the repository `dir` (and its parent folders) if it is not there yet, without
    /// git's sample hooks.
    pub(super) async fn init(&self, dir: &Path) -> Result<(), SnapshotError> {
        let dir = dir.to_string_lossy().into_owned();
        let args = ["init", "--quiet", "--bare", "--template=", dir.as_str()];
        self.exec(&args, CommandSpec::new("git").args(args).cwd(self.worktree))
            .await?;
        Ok(())
    }

    async fn exec(&self, args: &[&str], spec: CommandSpec) -> Result<String, SnapshotError> {
        let spec = spec
            // Paths are file names, never patterns; no system config, no prompts.
            .env("GIT_LITERAL_PATHSPECS", "1")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0");
        let output: Output = self
            .spawner
            .run(spec, TIMEOUT)
            .await
            .map_err(|e| self.error(e.to_string()))?;
        if !output.success() {
            return Err(self.error(format!(
                "`git {}` failed: {}",
                args.join(" "),
                output.stderr_text().trim()
            )));
        }
        Ok(output.stdout_text())
    }

    /// Runs `git ARGS -- PATHS` in batches, so long lists stay under the argument limit.
    pub(super) async fn run_paths(
        &self,
        args: &[&str],
        paths: &[String],
    ) -> Result<(), SnapshotError> {
        for chunk in paths.chunks(200) {
            let mut all: Vec<&str> = args.to_vec();
            all.push("--");
            all.extend(chunk.iter().map(String::as_str));
            self.run(&all).await?;
        }
        Ok(())
    }

    pub(super) fn error(&self, detail: String) -> SnapshotError {
        SnapshotError {
            action: self.action,
            worktree: self.worktree.display().to_string(),
            detail,
        }
    }
}
