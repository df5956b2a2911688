//! What a snapshot leaves out, decided from a listing (plain functions, tested alone):
//! untracked files over [`MAX_FILE_BYTES`], untracked folders with more than
//! [`MAX_DIR_ENTRIES`] entries (a forgotten `node_modules`), and whole home directories or
//! file system roots, which are never snapshotted at all.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Untracked files larger than this are not captured.
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;
/// Untracked folders with more direct entries than this are not captured.
pub const MAX_DIR_ENTRIES: usize = 200;

/// Why a path is left out of the snapshots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// A file over the size limit.
    Large { bytes: u64 },
    /// A folder with too many entries.
    Crowded { entries: usize },
}

/// A path the snapshots leave out. Folders end with `/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Relative to the worktree, `/`-separated.
    pub path: String,
    pub reason: SkipReason,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.reason {
            SkipReason::Large { bytes } => write!(
                f,
                "{} ({:.1} MiB, over the {} MiB limit for untracked files)",
                self.path,
                bytes as f64 / (1024.0 * 1024.0),
                MAX_FILE_BYTES / (1024 * 1024)
            ),
            SkipReason::Crowded { entries } => write!(
                f,
                "{} ({entries} entries, over the {MAX_DIR_ENTRIES} allowed in an untracked folder)",
                self.path
            ),
        }
    }
}

/// Why `worktree` must not be snapshotted at all, if it must not: a file system root or the
/// user's home directory would copy far more than a project into the store.
pub fn refusal(worktree: &Path, home: Option<&Path>) -> Option<&'static str> {
    if worktree.parent().is_none() {
        return Some("it is a file system root");
    }
    if home.is_some_and(|h| h.parent().is_some() && h == worktree) {
        return Some("it is your home directory");
    }
    None
}

/// Every folder among the untracked `files` with more than `limit` direct entries (distinct
/// names one level below it). The worktree itself (the empty path) never counts.
pub(super) fn crowded_dirs(files: &[String], limit: usize) -> Vec<(String, usize)> {
    let mut children: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for file in files {
        let file = file.trim_end_matches('/');
        let mut start = 0;
        while let Some(slash) = file[start..].find('/') {
            let end = start + slash;
            let next = file[end + 1..].split('/').next().unwrap_or_default();
            if !next.is_empty() {
                children.entry(&file[..end]).or_default().insert(next);
            }
            start = end + 1;
        }
        // A top-level entry is a child of the worktree, which is never skipped.
    }
    children
        .into_iter()
        .filter(|(_, names)| names.len() > limit)
        .map(|(dir, names)| (format!("{dir}/"), names.len()))
        .collect()
}

/// `dirs` without those inside another of them (each ends with `/`).
pub(super) fn outermost(mut dirs: Vec<(String, usize)>) -> Vec<(String, usize)> {
    dirs.sort();
    let mut kept: Vec<(String, usize)> = Vec::new();
    for (dir, n) in dirs {
        if !kept
            .iter()
            .any(|(outer, _)| dir.starts_with(outer.as_str()))
        {
            kept.push((dir, n));
        }
    }
    kept
}

/// Whether `path` lies inside one of the folders `dirs` (each ends with `/`).
pub(super) fn inside(path: &str, dirs: &[String]) -> bool {
    dirs.iter().any(|d| path.starts_with(d.as_str()))
}

/// The files among `sized` (path, bytes) over `limit`.
pub(super) fn large_files(sized: &[(String, u64)], limit: u64) -> Vec<Skipped> {
    sized
        .iter()
        .filter(|(_, bytes)| *bytes > limit)
        .map(|(path, bytes)| Skipped {
            path: path.clone(),
            reason: SkipReason::Large { bytes: *bytes },
        })
        .collect()
}

/// The shadow repository's `info/exclude`: one anchored, escaped pattern per skipped path, so
/// `git add` never sees them.
pub(super) fn exclude_file(skipped: &[Skipped]) -> String {
    let mut out = String::from("# Written by Strata: paths its snapshots leave out.\n");
    for s in skipped {
        out.push('/');
        out.push_str(&escape(&s.path));
        out.push('\n');
    }
    out
}

/// A literal path as a gitignore pattern: wildcards, `\`, a leading `#` or `!` and trailing
/// spaces lose their meaning.
fn escape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for (i, c) in path.chars().enumerate() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') || (i == 0 && matches!(c, '#' | '!')) {
            out.push('\\');
        }
        out.push(c);
    }
    let trailing = out.len() - out.trim_end_matches(' ').len();
    if trailing > 0 {
        out.truncate(out.len() - trailing);
        out.push_str(&"\\ ".repeat(trailing));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(dir: &str, n: usize) -> Vec<String> {
        (0..n).map(|i| format!("{dir}/f{i}.js")).collect()
    }

    #[test]
    fn only_folders_over_the_limit_count_and_the_outermost_wins() {
        let mut files = listing("node_modules", 201);
        files.extend(listing("node_modules/pkg", 300));
        files.extend(listing("src", 200));
        files.extend(
            listing("", 500)
                .iter()
                .map(|f| f.trim_start_matches('/').to_string()),
        );
        let crowded = crowded_dirs(&files, MAX_DIR_ENTRIES);
        // node_modules holds 201 files and the folder `pkg`.
        assert_eq!(
            crowded,
            [
                ("node_modules/".to_string(), 202),
                ("node_modules/pkg/".to_string(), 300)
            ]
        );
        assert_eq!(outermost(crowded), [("node_modules/".to_string(), 202)]);
    }

    #[test]
    fn entries_are_distinct_names_one_level_down() {
        // 250 packages of two files each: 250 entries, not 500.
        let files: Vec<String> = (0..250)
            .flat_map(|i| [format!("dist/p{i}/a"), format!("dist/p{i}/b")])
            .collect();
        assert_eq!(crowded_dirs(&files, 200), [("dist/".to_string(), 250)]);
        assert!(crowded_dirs(&files, 250).is_empty());
        // A nested repository listed as `dir/` is one entry.
        assert!(crowded_dirs(&["vendor/repo/".to_string()], 0).len() == 1);
    }

    #[test]
    fn large_files_are_those_over_the_limit() {
        let sized = vec![
            ("a.bin".to_string(), MAX_FILE_BYTES + 1),
            ("b.bin".to_string(), MAX_FILE_BYTES),
        ];
        let big = large_files(&sized, MAX_FILE_BYTES);
        assert_eq!(big.len(), 1);
        assert_eq!(big[0].path, "a.bin");
        assert!(
            big[0].to_string().contains("over the 10 MiB limit"),
            "{}",
            big[0]
        );
        assert!(inside("node_modules/x/y", &["node_modules/".to_string()]));
        assert!(!inside("node_modules2/y", &["node_modules/".to_string()]));
    }

    #[test]
    fn exclude_lines_are_anchored_and_literal() {
        let s = |p: &str| Skipped {
            path: p.into(),
            reason: SkipReason::Crowded { entries: 1 },
        };
        let file = exclude_file(&[
            s("node_modules/"),
            s("#odd [x]*.bin"),
            s("!neg "),
            s("a\\b"),
        ]);
        let lines: Vec<&str> = file.lines().skip(1).collect();
        assert_eq!(
            lines,
            [
                "/node_modules/",
                "/\\#odd \\[x\\]\\*.bin",
                "/\\!neg\\ ",
                "/a\\\\b"
            ]
        );
    }

    #[test]
    fn roots_and_home_are_refused() {
        let home = Path::new("/home/me");
        assert_eq!(
            refusal(Path::new("/"), Some(home)),
            Some("it is a file system root")
        );
        assert_eq!(refusal(home, Some(home)), Some("it is your home directory"));
        assert_eq!(refusal(&home.join("project"), Some(home)), None);
        assert_eq!(refusal(Path::new("/srv/app"), None), None);
        // A home of `/` is a root, refused as such, not as a home.
        assert_eq!(refusal(Path::new("/x"), Some(Path::new("/"))), None);
    }
}
