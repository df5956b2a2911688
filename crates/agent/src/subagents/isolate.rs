//! `isolation: worktree`: a child that works in a git worktree of its own. The worktree is
//! made from the parent's repository before the child runs, the child runs in an instance
//! built for it (sharing the parent's permission asks, questions, config and agents, so the
//! same front-end answers and the same rules apply), and when the child ends an unchanged
//! worktree is removed with its branch; a changed one is kept and reported to the parent.

use std::path::{Path, PathBuf};

use strata_graph::Context;
use strata_registry::{Agents, Instance, InstanceBuilder};
use strata_services::config::Config;
use strata_services::permission::Permission;
use strata_services::question::Question;
use strata_services::subagents::SubagentError;
use strata_services::worktree::{Changes, Created, Worktree, Worktrees};

/// What a parent instance hands its isolated children.
#[derive(Debug, Clone)]
pub struct Isolation {
    pub worktrees: Worktrees,
    pub builder: InstanceBuilder,
    /// The parent's services the child uses instead of its own.
    pub shared: Context,
}

impl Isolation {
    pub fn new(
        worktrees: Worktrees,
        builder: InstanceBuilder,
        (permission, question, config, agents): (Permission, Question, Config, Agents),
    ) -> Self {
        let shared = Context::new()
            .with(permission)
            .with(question)
            .with(config)
            .with(agents);
        Self {
            worktrees,
            builder,
            shared,
        }
    }
}

/// A child's worktree and the instance it runs in.
#[derive(Debug)]
pub struct Isolated {
    pub created: Created,
    /// The child's directory: the parent's, moved into the worktree.
    pub directory: PathBuf,
    pub instance: Instance,
}

fn unavailable(what: &str, e: impl std::fmt::Display) -> SubagentError {
    SubagentError::Unavailable(format!(
        "the subagent runs in a worktree of its own (`isolation: worktree`), but {what}: {e}"
    ))
}

impl Isolation {
    /// Makes (or, for a continued child, finds again) the worktree and builds its instance.
    /// `parent_dir` is the parent's directory; `previous` the child's directory so far.
    pub async fn enter(
        &self,
        parent_dir: &Path,
        previous: &Path,
        name: &str,
    ) -> Result<Isolated, SubagentError> {
        let again = self
            .worktrees
            .containing(previous)
            .filter(|(_, path)| path.is_dir())
            .map(|(n, _)| n);
        let created = self
            .worktrees
            .create(parent_dir, Some(again.as_deref().unwrap_or(name)), true)
            .await
            .map_err(|e| unavailable("its worktree could not be made", e))?;
        // The same folder of the project, inside the worktree.
        let repo = self
            .worktrees
            .repo(parent_dir)
            .await
            .map_err(|e| unavailable("the repository could not be read", e))?;
        let inner = parent_dir
            .strip_prefix(&repo.toplevel)
            .unwrap_or(Path::new(""));
        // `join("")` would add a trailing slash to the stored directory.
        let directory = Some(inner)
            .filter(|i| !i.as_os_str().is_empty())
            .map(|i| created.worktree.path.join(i))
            .filter(|d| d.is_dir())
            .unwrap_or_else(|| created.worktree.path.clone());
        let instance = self
            .builder
            .build(&directory, &self.shared)
            .await
            .map_err(|e| unavailable("its instance could not be built", e))?;
        Ok(Isolated {
            created,
            directory,
            instance,
        })
    }

    /// Disposes the child's instance, then removes its worktree if nothing changed. Returns
    /// the note for the parent when the worktree is kept.
    pub async fn leave(&self, isolated: Isolated) -> Option<String> {
        isolated.instance.dispose().await;
        let Created {
            worktree,
            base,
            reused,
        } = isolated.created;
        let outcome = if reused {
            // Continued: what it held before counts as its own, so it is never removed here.
            self.worktrees.changes(&worktree.path, &base).await
        } else {
            self.worktrees.remove_if_unchanged(&worktree, &base).await
        };
        match outcome {
            Ok(changes) if changes.is_empty() && !reused => None,
            Ok(changes) => Some(report(&worktree, &changes)),
            Err(e) => Some(format!(
                "<worktree path=\"{}\" branch=\"{}\">\nThe worktree was kept: checking it \
                 failed ({e}).\n</worktree>",
                worktree.path.display(),
                worktree.branch
            )),
        }
    }
}

/// The note a parent gets about a kept worktree: where it is, its branch, and a diff stat.
pub fn report(worktree: &Worktree, changes: &Changes) -> String {
    let mut what = Vec::new();
    if !changes.files.is_empty() {
        what.push(format!("{} uncommitted file(s)", changes.files.len()));
    }
    if changes.commits > 0 {
        what.push(format!("{} commit(s)", changes.commits));
    }
    if what.is_empty() {
        what.push("no changes".into());
    }
    let stat = if changes.stat.is_empty() {
        String::new()
    } else {
        format!("{}\n", changes.stat)
    };
    format!(
        "<worktree path=\"{path}\" branch=\"{branch}\">\nThe subagent worked in its own git \
         worktree, which was kept with its changes ({what}); your checkout is untouched. \
         Review them there and merge what you want (commit in the worktree, then `git merge \
         {branch}`); `strata worktree remove {name}` removes it.\n{stat}</worktree>",
        path = worktree.path.display(),
        branch = worktree.branch,
        what = what.join(", "),
        name = worktree.name,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_worktree_is_reported_with_its_path_branch_and_stat() {
        let wt = Worktree {
            name: "task-a".into(),
            branch: "strata/task-a".into(),
            path: "/d/worktrees/p/task-a".into(),
            repo: "/r".into(),
        };
        let changes = Changes {
            files: vec!["a.txt".into()],
            commits: 1,
            stat: " a.txt | 2 +-\n 1 file changed".into(),
        };
        let text = report(&wt, &changes);
        assert!(
            text.starts_with("<worktree path=\"/d/worktrees/p/task-a\" branch=\"strata/task-a\">"),
            "{text}"
        );
        assert!(
            text.contains("1 uncommitted file(s), 1 commit(s)"),
            "{text}"
        );
        assert!(
            text.contains(" a.txt | 2 +-\n 1 file changed\n</worktree>"),
            "{text}"
        );
        assert!(text.contains("strata worktree remove task-a"), "{text}");
    }
}
