//! Instructions: the instruction files that go into the system prompt, each with its path.
//!
//! Sources, in the order they are given to the model (broad to specific):
//! 1. the user's global file: `<config dir>/AGENTS.md`, else `~/.config/strata/AGENTS.md`;
//! 2. in each directory from the worktree root down to the instance directory, `AGENTS.md`,
//!    else `CLAUDE.md`;
//! 3. each entry of config `instructions`: a path or a glob (`*`, `?`, `[…]`, `**`), relative to
//!    the instance directory, `~/` for the home directory; a glob's matches in name order.
//!
//! A file found twice is given once. Files are read through [`FsUtil`] each time
//! [`Instructions::load`] is called, so an edit shows in the next run. The `read` tool asks
//! [`Instructions::paths`] so that it never attaches a file the prompt already holds.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use strata_graph::{BoxError, Node, Scope, Tier};

use crate::config::Config;
use crate::flags::RuntimeFlags;
use crate::fs::{FileKind, FsUtil};
use crate::instance::InstanceInfo;
use crate::skills::resolve_config_path;

/// Per directory, the first of these that exists is the directory's instruction file.
pub const PROJECT_FILES: [&str; 2] = ["AGENTS.md", "CLAUDE.md"];

/// A larger file is left out (with a warning) rather than flooding every request.
pub const MAX_INSTRUCTION_BYTES: u64 = 64 * 1024;

/// How deep below its fixed prefix a config glob is matched.
const MAX_GLOB_DEPTH: usize = 8;
/// At most this many files per config glob.
const MAX_GLOB_MATCHES: usize = 50;
/// Folders a glob never walks into.
const SKIPPED_DIRS: [&str; 2] = [".git", "node_modules"];

/// One instruction file and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstructionFile {
    pub path: PathBuf,
    pub text: String,
}

#[derive(Debug)]
struct Inner {
    fs: FsUtil,
    info: InstanceInfo,
    config: Config,
    flags: RuntimeFlags,
}

/// Handle to an instance's instruction files. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Instructions(Arc<Inner>);

impl strata_graph::Service for Instructions {
    const KEY: &'static str = "Instructions";
}

impl Instructions {
    pub fn new(fs: FsUtil, info: InstanceInfo, config: Config, flags: RuntimeFlags) -> Self {
        Self(Arc::new(Inner {
            fs,
            info,
            config,
            flags,
        }))
    }

    /// The instance-tier node.
    pub fn node() -> Node {
        Node::new(
            Tier::Instance,
            |(fs, info, config, flags): (FsUtil, InstanceInfo, Config, RuntimeFlags),
             _scope: Scope| async move {
                Ok::<_, BoxError>(Instructions::new(fs, info, config, flags))
            },
        )
    }

    /// Every instruction file that exists now, in prompt order, read. Never fails: a file that
    /// cannot be read is left out with a warning.
    pub async fn load(&self) -> Vec<InstructionFile> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        for path in self.candidates().await {
            if !seen.insert(path.clone()) {
                continue;
            }
            match self.0.fs.read(&path, MAX_INSTRUCTION_BYTES).await {
                Ok(bytes) => out.push(InstructionFile {
                    text: String::from_utf8_lossy(&bytes).into_owned(),
                    path,
                }),
                Err(e) => tracing::warn!(target: "strata::instructions", "left out: {e}"),
            }
        }
        out
    }

    /// The paths [`load`](Self::load) would read.
    pub async fn paths(&self) -> HashSet<PathBuf> {
        self.candidates().await.into_iter().collect()
    }

    /// The existing files of every source, in order (duplicates possible).
    async fn candidates(&self) -> Vec<PathBuf> {
        let Inner {
            fs,
            info,
            config,
            flags,
        } = &*self.0;
        let mut out = Vec::new();
        let global = [
            flags.config_dir.join("AGENTS.md"),
            flags.home_dir.join(".config/strata/AGENTS.md"),
        ];
        if let Some(file) = first_file(fs, &global).await {
            out.push(file);
        }
        for dir in info.project_dirs() {
            let names = PROJECT_FILES.map(|n| dir.join(n));
            if let Some(file) = first_file(fs, &names).await {
                out.push(file);
            }
        }
        for entry in &config.instructions {
            let path = resolve_config_path(entry, &flags.home_dir, &info.directory);
            if is_glob(entry) {
                out.extend(glob(fs, &path).await);
            } else if is_file(fs, &path).await {
                out.push(path);
            } else {
                tracing::warn!(
                    target: "strata::instructions",
                    "config `instructions` names {}, which is not a file; fix or remove the entry",
                    path.display()
                );
            }
        }
        out
    }
}

async fn is_file(fs: &FsUtil, path: &Path) -> bool {
    matches!(fs.stat(path).await, Ok(Some(m)) if m.kind == FileKind::File)
}

async fn first_file(fs: &FsUtil, paths: &[PathBuf]) -> Option<PathBuf> {
    for p in paths {
        if is_file(fs, p).await {
            return Some(p.clone());
        }
    }
    None
}

fn is_glob(entry: &str) -> bool {
    entry.contains(['*', '?', '['])
}

/// The files matching an absolute glob, in path order, walked from its fixed prefix.
async fn glob(fs: &FsUtil, pattern: &Path) -> Vec<PathBuf> {
    let text = pattern.to_string_lossy();
    let matcher = match globset::GlobBuilder::new(&text)
        .literal_separator(true)
        .build()
    {
        Ok(g) => g.compile_matcher(),
        Err(e) => {
            tracing::warn!(
                target: "strata::instructions",
                "config `instructions` entry {text} is not a valid glob ({e}); fix or remove it"
            );
            return Vec::new();
        }
    };
    let base: PathBuf = pattern
        .components()
        .take_while(|c| !matches!(c, Component::Normal(n) if is_glob(&n.to_string_lossy())))
        .collect();
    let mut found = Vec::new();
    let mut stack = vec![(base, 0)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = fs.read_dir(&dir).await else {
            continue;
        };
        for e in entries {
            match e.kind {
                FileKind::Dir if depth < MAX_GLOB_DEPTH && !SKIPPED_DIRS.contains(&&*e.name) => {
                    stack.push((e.path, depth + 1));
                }
                FileKind::File if matcher.is_match(&e.path) => found.push(e.path),
                _ => {}
            }
        }
    }
    found.sort();
    found.truncate(MAX_GLOB_MATCHES);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_are_told_from_paths() {
        assert!(is_glob("docs/*.md") && is_glob("a?.md") && is_glob("[ab].md"));
        assert!(!is_glob("docs/rules.md"));
    }
}
