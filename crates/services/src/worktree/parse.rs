//! Reading git's porcelain output: `git worktree list --porcelain` and `git status
//! --porcelain`.

use std::path::PathBuf;

/// One entry of `git worktree list --porcelain`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedWorktree {
    pub path: PathBuf,
    /// `refs/heads/…` without the prefix; `None` when detached or bare.
    pub branch: Option<String>,
    pub head: Option<String>,
    /// Git marked it prunable: its folder is gone.
    pub prunable: bool,
}

/// Parses `git worktree list --porcelain` (entries separated by blank lines).
pub fn worktree_list(text: &str) -> Vec<ListedWorktree> {
    let mut out = Vec::new();
    let mut current: Option<ListedWorktree> = None;
    for line in text.lines().chain([""]) {
        if line.is_empty() {
            out.extend(current.take());
            continue;
        }
        let (key, value) = line.split_once(' ').unwrap_or((line, ""));
        match (key, current.as_mut()) {
            ("worktree", _) => {
                out.extend(current.take());
                current = Some(ListedWorktree {
                    path: PathBuf::from(value),
                    branch: None,
                    head: None,
                    prunable: false,
                });
            }
            ("HEAD", Some(w)) => w.head = Some(value.to_string()),
            ("branch", Some(w)) => {
                w.branch = Some(value.strip_prefix("refs/heads/").unwrap_or(value).into());
            }
            ("prunable", Some(w)) => w.prunable = true,
            _ => {}
        }
    }
    out
}

/// The paths `git status --porcelain` (v1) lists: each changed, staged or untracked file.
pub fn changed_files(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.len() > 3)
        .map(|l| l[3..].to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worktree_list_gives_paths_branches_and_prunable_entries() {
        let text = "worktree /r\nHEAD abc\nbranch refs/heads/main\n\n\
                    worktree /d/wt/x\nHEAD def\nbranch refs/heads/strata/x\n\n\
                    worktree /d/wt/gone\nHEAD 123\ndetached\nprunable gitdir file points to non-existent location\n";
        let got = worktree_list(text);
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].branch.as_deref(), Some("main"));
        assert_eq!(got[1].path, PathBuf::from("/d/wt/x"));
        assert_eq!(got[1].branch.as_deref(), Some("strata/x"));
        assert_eq!(got[1].head.as_deref(), Some("def"));
        assert_eq!(got[2].branch, None);
        assert!(got[2].prunable && !got[1].prunable);
        assert!(worktree_list("").is_empty());
    }

    #[test]
    fn status_lines_are_files() {
        let text = " M src/a.rs\n?? new.txt\nA  staged.rs\n";
        assert_eq!(changed_files(text), ["src/a.rs", "new.txt", "staged.rs"]);
        assert!(changed_files("").is_empty());
    }
}
