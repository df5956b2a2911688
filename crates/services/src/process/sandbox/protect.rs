//! Files that run later outside the sandbox (git hooks and config, Strata's and opencode's
//! config, agent instructions). Landlock cannot carve them out of a writable project, so the
//! portable fallback is used: a snapshot before the command, a comparison after, and the old
//! state put back, with a note for the model.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Protected files, relative to the project.
pub const PROTECTED_FILES: &[&str] = &[
    ".git/config",
    "strata.json",
    "opencode.json",
    "opencode.jsonc",
    "AGENTS.md",
];

/// Protected directories, relative to the project: every file below them.
pub const PROTECTED_DIRS: &[&str] = &[".git/hooks", ".strata", ".opencode"];

/// Files below the protected directories beyond this many are not watched.
const MAX_FILES: usize = 2_000;

/// A file's content and permission bits; `None` when it did not exist.
type State = Option<(Vec<u8>, u32)>;

/// The protected files of a project at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    root: PathBuf,
    /// More protected paths, absolute (a linked worktree's shared hooks and config).
    extra: Vec<PathBuf>,
    files: BTreeMap<PathBuf, State>,
    /// Whether the project had a `.git` before the command: a repository the command itself
    /// creates (`git init`) is left alone, since no hook of it existed to be run.
    had_git: bool,
}

impl Snapshot {
    /// Reads every protected file of the project at `root`.
    pub fn take(root: &Path) -> Snapshot {
        Snapshot::take_with(root, &[])
    }

    /// Reads every protected file of the project at `root` and below the absolute `extra`
    /// paths.
    pub fn take_with(root: &Path, extra: &[PathBuf]) -> Snapshot {
        let mut files = BTreeMap::new();
        for rel in protected_paths(root, extra) {
            let state = read(&root.join(&rel));
            files.insert(rel, state);
        }
        Snapshot {
            root: root.to_path_buf(),
            extra: extra.to_vec(),
            files,
            had_git: root.join(".git").exists(),
        }
    }

    /// Puts back every protected file that changed since the snapshot (content, permissions,
    /// creation or removal) and returns their paths relative to the project, sorted.
    pub fn restore(&self) -> Vec<PathBuf> {
        let now = Snapshot::take_with(&self.root, &self.extra);
        let mut changed = Vec::new();
        let paths: std::collections::BTreeSet<&PathBuf> =
            self.files.keys().chain(now.files.keys()).collect();
        for rel in paths {
            if !self.had_git && rel.starts_with(".git") {
                continue;
            }
            let before = self.files.get(rel).cloned().flatten();
            let after = now.files.get(rel).cloned().flatten();
            if before == after {
                continue;
            }
            let path = self.root.join(rel);
            let put_back = match &before {
                Some((content, mode)) => write(&path, content, *mode),
                None => std::fs::remove_file(&path),
            };
            if let Err(e) = put_back {
                tracing::warn!(path = %path.display(), error = %e, "could not restore a protected file");
            }
            changed.push(rel.clone());
        }
        changed
    }
}

/// Whether `rel`, relative to the project, is protected (a protected file, a `.claude`
/// settings file, or anything below a protected directory).
pub(super) fn is_protected(rel: &Path) -> bool {
    let claude_settings = rel.parent() == Some(Path::new(".claude"))
        && rel
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("settings") && n.ends_with(".json"));
    claude_settings
        || PROTECTED_FILES.iter().any(|f| rel == Path::new(f))
        || PROTECTED_DIRS.iter().any(|d| rel.starts_with(d))
}

/// The note for the model after `restored` files were put back.
pub fn restored_note(restored: &[PathBuf]) -> Option<String> {
    if restored.is_empty() {
        return None;
    }
    let list: Vec<String> = restored.iter().map(|p| p.display().to_string()).collect();
    Some(format!(
        "sandbox: the command changed {}; these files run or configure things outside the \
         sandbox, so the change was undone. Edit them with the edit tool, which asks first.",
        list.join(", ")
    ))
}

fn read(path: &Path) -> State {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let content = std::fs::read(path).ok()?;
    Some((content, meta.permissions().mode() & 0o7777))
}

fn write(path: &Path, content: &[u8], mode: u32) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) {
        std::fs::remove_file(path)?;
    }
    std::fs::write(path, content)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

/// Every protected path that exists now (files of the protected directories included), plus
/// the protected files by name whether they exist or not. `extra` paths stay absolute.
fn protected_paths(root: &Path, extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = PROTECTED_FILES.iter().map(PathBuf::from).collect();
    if let Ok(entries) = std::fs::read_dir(root.join(".claude")) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with("settings") && name.ends_with(".json") {
                out.push(Path::new(".claude").join(name));
            }
        }
    }
    for dir in PROTECTED_DIRS {
        walk(root, Path::new(dir), &mut out);
    }
    for path in extra {
        if path.is_dir() {
            walk(root, path, &mut out);
        } else {
            out.push(path.clone());
        }
    }
    out
}

fn walk(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root.join(rel)) else {
        return;
    };
    for entry in entries.flatten() {
        if out.len() >= MAX_FILES {
            return;
        }
        let child = rel.join(entry.file_name());
        match entry.file_type() {
            Ok(t) if t.is_dir() => walk(root, &child, out),
            Ok(_) => out.push(child),
            Err(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_to_protected_files_are_undone_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
        std::fs::write(root.join("src.txt"), "a").unwrap();
        let snap = Snapshot::take(root);

        std::fs::write(root.join(".git/hooks/pre-commit"), "#!/bin/sh\nevil\n").unwrap();
        std::fs::write(root.join(".git/config"), "[core]\nfsmonitor = evil\n").unwrap();
        std::fs::write(root.join("strata.json"), "{}").unwrap();
        std::fs::write(root.join("src.txt"), "b").unwrap();
        let restored = snap.restore();

        assert_eq!(
            restored,
            [
                PathBuf::from(".git/config"),
                PathBuf::from(".git/hooks/pre-commit"),
                PathBuf::from("strata.json")
            ]
        );
        assert!(!root.join(".git/hooks/pre-commit").exists());
        assert!(!root.join("strata.json").exists());
        assert_eq!(
            std::fs::read_to_string(root.join(".git/config")).unwrap(),
            "[core]\n"
        );
        assert_eq!(
            std::fs::read_to_string(root.join("src.txt")).unwrap(),
            "b",
            "not protected"
        );
        let note = restored_note(&restored).unwrap();
        assert!(
            note.contains(".git/hooks/pre-commit") && note.contains("undone"),
            "{note}"
        );
    }

    #[test]
    fn protected_means_a_listed_file_or_below_a_listed_directory() {
        for p in [
            ".git/config",
            ".git/hooks/pre-commit",
            "strata.json",
            ".strata/agents/x.md",
            ".claude/settings.local.json",
            "AGENTS.md",
        ] {
            assert!(is_protected(Path::new(p)), "{p}");
        }
        for p in [
            ".git/HEAD",
            "src/strata.json",
            ".claude/notes.json",
            "AGENTS.md.bak",
            ".strata-other/x",
        ] {
            assert!(!is_protected(Path::new(p)), "{p}");
        }
    }

    #[test]
    fn a_repository_the_command_creates_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let snap = Snapshot::take(root);
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
        std::fs::write(root.join(".git/hooks/pre-commit.sample"), "#!/bin/sh\n").unwrap();
        std::fs::write(root.join("AGENTS.md"), "new").unwrap();
        assert_eq!(snap.restore(), [PathBuf::from("AGENTS.md")]);
        assert!(root.join(".git/config").exists() && !root.join("AGENTS.md").exists());
    }

    #[test]
    fn extra_absolute_paths_are_watched_too() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("wt");
        let common = dir.path().join("main/.git");
        std::fs::create_dir_all(common.join("hooks")).unwrap();
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(common.join("config"), "[core]\n").unwrap();
        let extra = [common.join("hooks"), common.join("config")];
        let snap = Snapshot::take_with(&root, &extra);
        std::fs::write(common.join("hooks/pre-commit"), "evil").unwrap();
        std::fs::write(common.join("config"), "evil").unwrap();
        assert_eq!(
            snap.restore(),
            [common.join("config"), common.join("hooks/pre-commit")]
        );
        assert!(!common.join("hooks/pre-commit").exists());
        assert_eq!(
            std::fs::read_to_string(common.join("config")).unwrap(),
            "[core]\n"
        );
    }

    #[test]
    fn removed_files_come_back_with_their_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        std::fs::write(root.join(".claude/settings.local.json"), "{}").unwrap();
        std::fs::write(root.join("AGENTS.md"), "be nice").unwrap();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        let hook = root.join(".git/hooks/post-commit");
        std::fs::write(&hook, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
        let snap = Snapshot::take(root);

        std::fs::remove_file(root.join(".claude/settings.local.json")).unwrap();
        std::fs::remove_file(root.join("AGENTS.md")).unwrap();
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(snap.restore().len(), 3);
        assert!(root.join(".claude/settings.local.json").exists());
        assert_eq!(
            std::fs::read_to_string(root.join("AGENTS.md")).unwrap(),
            "be nice"
        );
        let mode = std::fs::metadata(&hook).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o755);
        assert!(snap.restore().is_empty(), "nothing changed since");
        assert_eq!(restored_note(&[]), None);
    }
}
