//! InstanceInfo: where the project is (instance directory, VCS worktree, data directory).
//!
//! Built once per instance from the [`InstanceSeed`] that whoever starts the instance inserts.
//! The path helpers implement spec §0.3: relative paths join the instance directory, titles and
//! permission patterns use the path relative to the worktree, and "inside the project" means
//! inside the instance directory or the worktree. All helpers are lexical (no file system).

use std::path::{Component, Path, PathBuf};

use strata_graph::{BoxError, Node, Scope, Tier};

use crate::flags::RuntimeFlags;

/// The directory an instance is built for, as given by the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstanceSeed {
    pub directory: PathBuf,
}

impl strata_graph::Service for InstanceSeed {
    const KEY: &'static str = "InstanceSeed";
}

/// The resolved location of a project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstanceInfo {
    /// The instance directory, canonicalized (symlinks resolved).
    pub directory: PathBuf,
    /// The nearest ancestor of `directory` (inclusive) holding `.git`; else `directory`.
    pub worktree: PathBuf,
    /// Strata's data directory (from [`RuntimeFlags`]).
    pub data_dir: PathBuf,
    /// `Some("git")` when a git worktree was found.
    pub vcs: Option<&'static str>,
}

impl strata_graph::Service for InstanceInfo {
    const KEY: &'static str = "InstanceInfo";
}

/// Why an instance could not be located.
#[derive(Debug, thiserror::Error)]
pub enum InstanceError {
    #[error(
        "the instance directory `{}` does not exist; pass an existing directory to run Strata in",
        path.display()
    )]
    MissingDirectory { path: PathBuf },
    #[error(
        "the instance path `{}` is not a directory; pass the project directory, not a file",
        path.display()
    )]
    NotADirectory { path: PathBuf },
    #[error(
        "could not resolve the instance directory `{}`: {source}; check that it exists and is readable",
        path.display()
    )]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl InstanceInfo {
    /// Canonicalizes the seed directory and finds its worktree.
    pub fn detect(
        seed: &InstanceSeed,
        flags: &RuntimeFlags,
    ) -> Result<InstanceInfo, InstanceError> {
        let path = seed.directory.clone();
        let directory = match std::fs::canonicalize(&path) {
            Ok(d) => d,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(InstanceError::MissingDirectory { path });
            }
            Err(source) => return Err(InstanceError::Io { path, source }),
        };
        if !directory.is_dir() {
            return Err(InstanceError::NotADirectory { path });
        }
        let git_root = directory
            .ancestors()
            .find(|dir| dir.join(".git").symlink_metadata().is_ok())
            .map(Path::to_path_buf);
        Ok(InstanceInfo {
            vcs: git_root.as_ref().map(|_| "git"),
            worktree: git_root.unwrap_or_else(|| directory.clone()),
            directory,
            data_dir: flags.data_dir.clone(),
        })
    }

    /// The instance-tier node: needs [`InstanceSeed`] and [`RuntimeFlags`].
    pub fn node() -> Node {
        Node::new(
            Tier::Instance,
            |(seed, flags): (InstanceSeed, RuntimeFlags), _scope: Scope| async move {
                Ok::<_, BoxError>(InstanceInfo::detect(&seed, &flags)?)
            },
        )
    }

    /// `path` as an absolute, lexically normalized path; relative paths join the directory.
    pub fn resolve(&self, path: &str) -> PathBuf {
        self.absolute(Path::new(path))
    }

    /// `path` relative to the worktree with `/` separators; may start with `../`, and is empty
    /// for the worktree itself.
    pub fn relative(&self, path: &Path) -> String {
        relative_to(&self.worktree, &self.absolute(path))
    }

    /// Whether `path` is inside the instance directory, or inside the worktree (unless the
    /// worktree is the file system root).
    pub fn contains(&self, path: &Path) -> bool {
        let path = self.absolute(path);
        if path.starts_with(&self.directory) {
            return true;
        }
        self.worktree.parent().is_some() && path.starts_with(&self.worktree)
    }

    /// The folders from the worktree root down to the instance directory, both included: the
    /// order in which per-folder files (instructions, agents, skills) are read, so the nearest
    /// folder comes last and wins.
    pub fn project_dirs(&self) -> Vec<&Path> {
        let mut dirs: Vec<&Path> = self
            .directory
            .ancestors()
            .take_while(|dir| dir.starts_with(&self.worktree))
            .collect();
        dirs.reverse();
        dirs
    }

    fn absolute(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            normalize(path)
        } else {
            normalize(&self.directory.join(path))
        }
    }
}

/// Removes `.` and resolves `..` lexically (never above the root).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                // Never above the root.
                Some(Component::RootDir | Component::Prefix(_)) => {}
                // A relative path climbing past its start keeps the `..`.
                _ => out.push(".."),
            },
            other => out.push(other),
        }
    }
    out
}

/// `path` relative to `base` (both absolute and normalized), `/`-separated.
fn relative_to(base: &Path, path: &Path) -> String {
    let base: Vec<Component> = base.components().collect();
    let target: Vec<Component> = path.components().collect();
    let common = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let ups = std::iter::repeat_n("..".to_string(), base.len() - common);
    let rest = target[common..]
        .iter()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    ups.chain(rest).collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(directory: &str, worktree: &str) -> InstanceInfo {
        InstanceInfo {
            directory: directory.into(),
            worktree: worktree.into(),
            data_dir: "/data".into(),
            vcs: Some("git"),
        }
    }

    #[test]
    fn project_dirs_run_from_the_worktree_down_to_the_directory() {
        let i = info("/w/repo/a/b", "/w/repo");
        let dirs: Vec<PathBuf> = i
            .project_dirs()
            .into_iter()
            .map(Path::to_path_buf)
            .collect();
        let want: Vec<PathBuf> = ["/w/repo", "/w/repo/a", "/w/repo/a/b"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(dirs, want);
        assert_eq!(info("/w/x", "/w/x").project_dirs(), [Path::new("/w/x")]);
    }

    #[test]
    fn resolve_joins_and_normalizes() {
        let i = info("/w/repo/sub", "/w/repo");
        assert_eq!(
            i.resolve("a/./b/../c.txt"),
            PathBuf::from("/w/repo/sub/a/c.txt")
        );
        assert_eq!(i.resolve("../x"), PathBuf::from("/w/repo/x"));
        assert_eq!(i.resolve("/etc/../tmp/y"), PathBuf::from("/tmp/y"));
        assert_eq!(i.resolve("/../../z"), PathBuf::from("/z"));
        assert_eq!(i.resolve("."), PathBuf::from("/w/repo/sub"));
    }

    #[test]
    fn relative_is_to_the_worktree_with_slashes() {
        let i = info("/w/repo/sub", "/w/repo");
        assert_eq!(i.relative(Path::new("/w/repo/sub/a.rs")), "sub/a.rs");
        assert_eq!(i.relative(Path::new("a.rs")), "sub/a.rs");
        assert_eq!(i.relative(Path::new("/w/repo")), "");
        assert_eq!(i.relative(Path::new("/tmp/x")), "../../tmp/x");
        assert_eq!(i.relative(Path::new("/w/other/f")), "../other/f");
    }

    #[test]
    fn contains_directory_or_worktree() {
        let i = info("/w/repo/sub", "/w/repo");
        assert!(i.contains(Path::new("/w/repo/sub/a")));
        assert!(i.contains(Path::new("/w/repo/other/b")));
        assert!(i.contains(Path::new("/w/repo")));
        assert!(i.contains(Path::new("x/../y")));
        assert!(!i.contains(Path::new("/w/repo/../elsewhere")));
        assert!(!i.contains(Path::new("/w/repository")));
        // A sibling whose name starts with `..` is still inside.
        assert!(i.contains(Path::new("/w/repo/sub/..foo")));
        // A worktree at the root does not make everything inside.
        let root = info("/p", "/");
        assert!(root.contains(Path::new("/p/q")));
        assert!(!root.contains(Path::new("/etc/passwd")));
    }

    #[test]
    fn normalize_keeps_leading_parent_of_relative_paths() {
        assert_eq!(normalize(Path::new("../a/./b/..")), PathBuf::from("../a"));
        assert_eq!(normalize(Path::new("a/../../b")), PathBuf::from("../b"));
        assert_eq!(normalize(Path::new("../../c")), PathBuf::from("../../c"));
    }

    #[test]
    fn detect_finds_git_worktree_and_canonical_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::create_dir_all(root.join("repo/.git")).unwrap();
        std::fs::create_dir_all(root.join("repo/a/b")).unwrap();
        let flags = RuntimeFlags::for_dirs(root.join("data"), root.join("cfg"));
        let seed = InstanceSeed {
            directory: root.join("repo/a/./b/../b"),
        };
        let i = InstanceInfo::detect(&seed, &flags).unwrap();
        assert_eq!(i.directory, root.join("repo/a/b"));
        assert_eq!(i.worktree, root.join("repo"));
        assert_eq!(i.vcs, Some("git"));
        assert_eq!(i.data_dir, root.join("data"));
        assert_eq!(i.relative(&root.join("repo/a/b/f.txt")), "a/b/f.txt");
    }

    #[test]
    fn detect_accepts_git_file_and_falls_back_to_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        // A `.git` file marks a linked worktree or submodule.
        std::fs::create_dir_all(root.join("wt/src")).unwrap();
        std::fs::write(root.join("wt/.git"), "gitdir: elsewhere\n").unwrap();
        std::fs::create_dir_all(root.join("plain")).unwrap();
        let flags = RuntimeFlags::for_dirs(root.join("data"), root.join("cfg"));
        let wt = InstanceInfo::detect(
            &InstanceSeed {
                directory: root.join("wt/src"),
            },
            &flags,
        );
        assert_eq!(wt.unwrap().worktree, root.join("wt"));
        let plain = InstanceInfo::detect(
            &InstanceSeed {
                directory: root.join("plain"),
            },
            &flags,
        );
        let plain = plain.unwrap();
        // No `.git` above a fresh temp dir is assumed; if one exists the worktree is above.
        if plain.vcs.is_none() {
            assert_eq!(plain.worktree, root.join("plain"));
        }
    }

    #[test]
    fn detect_reports_missing_and_file_paths() {
        let tmp = tempfile::tempdir().unwrap();
        let flags = RuntimeFlags::for_dirs(tmp.path().join("d"), tmp.path().join("c"));
        let missing = tmp.path().join("nope");
        let err = InstanceInfo::detect(
            &InstanceSeed {
                directory: missing.clone(),
            },
            &flags,
        )
        .unwrap_err();
        assert!(matches!(err, InstanceError::MissingDirectory { .. }));
        let msg = err.to_string();
        assert!(msg.contains(&missing.display().to_string()), "{msg}");
        assert!(msg.contains("existing directory"), "{msg}");

        let file = tmp.path().join("f.txt");
        std::fs::write(&file, "x").unwrap();
        let err = InstanceInfo::detect(&InstanceSeed { directory: file }, &flags).unwrap_err();
        assert!(matches!(err, InstanceError::NotADirectory { .. }), "{err}");
    }
}
