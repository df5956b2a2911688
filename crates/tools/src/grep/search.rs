//! Searching files in-process with ripgrep's `grep-regex` and `grep-searcher` (spec §6, §18 b).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::sinks::UTF8;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};

use crate::common::walk::{BadGlob, WalkSpec, sort_newest_first, walk_files};

/// Matches kept per file, and shown in all.
pub const LIMIT: usize = 100;
/// A match line longer than this is cut, with `...` appended.
pub const MAX_LINE_CHARS: usize = 2000;

/// The matches of one file.
#[derive(Debug, Clone)]
pub(super) struct FileHits {
    pub path: PathBuf,
    pub mtime: SystemTime,
    pub lines: Vec<(u64, String)>,
}

/// Every hit, newest file first, capped at [`LIMIT`] matches; `more` when some were left out.
#[derive(Debug, Default)]
pub(super) struct Hits {
    pub files: Vec<FileHits>,
    pub shown: usize,
    pub more: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("{0}")]
    Regex(String),
    #[error(transparent)]
    Glob(#[from] BadGlob),
}

/// A bad pattern or `include` glob: the model wrote both, so it can fix them.
impl From<SearchError> for crate::contract::ToolError {
    fn from(e: SearchError) -> Self {
        crate::contract::ToolError::model(e.to_string())
    }
}

pub(super) fn matcher(pattern: &str) -> Result<RegexMatcher, SearchError> {
    RegexMatcherBuilder::new()
        .line_terminator(Some(b'\n'))
        .build(pattern)
        .map_err(|e| SearchError::Regex(e.to_string()))
}

fn searcher() -> Searcher {
    SearcherBuilder::new()
        .line_number(true)
        .binary_detection(BinaryDetection::quit(0))
        .build()
}

fn cut(line: &str) -> String {
    let line = line.trim_end_matches(['\n', '\r']);
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((i, _)) => format!("{}...", &line[..i]),
        None => line.to_string(),
    }
}

/// The hits of one file: at most [`LIMIT`] + 1, the extra one telling [`cap`] that more exist.
pub(super) fn search_file(m: &RegexMatcher, path: &Path, mtime: SystemTime) -> Option<FileHits> {
    let mut lines = Vec::new();
    let _ = searcher().search_path(
        m,
        path,
        UTF8(|n, text| {
            lines.push((n, cut(text)));
            Ok(lines.len() <= LIMIT)
        }),
    );
    (!lines.is_empty()).then(|| FileHits {
        path: path.to_path_buf(),
        mtime,
        lines,
    })
}

/// Searches a tree: hidden files included, ignore files honoured, `include` as a glob.
pub(super) fn search_tree(
    m: &RegexMatcher,
    root: &Path,
    include: Option<&str>,
) -> Result<Hits, SearchError> {
    let spec = WalkSpec {
        root,
        hidden: true,
        glob: include,
    };
    let files = walk_files(&spec, |path, mtime| search_file(m, path, mtime))?;
    Ok(cap(files))
}

/// Sorts files newest first and keeps the first [`LIMIT`] matches in that order.
pub(super) fn cap(mut files: Vec<FileHits>) -> Hits {
    sort_newest_first(&mut files, |f| (&f.mtime, &f.path));
    let mut hits = Hits::default();
    for mut f in files {
        let room = LIMIT - hits.shown;
        if room == 0 {
            hits.more = true;
            break;
        }
        if f.lines.len() > room {
            f.lines.truncate(room);
            hits.more = true;
        }
        hits.shown += f.lines.len();
        hits.files.push(f);
    }
    hits
}

/// The model-visible text.
pub(super) fn render(h: &Hits) -> String {
    if h.files.is_empty() {
        return "No files found".into();
    }
    let mut out = if h.more {
        format!("Found {} matches (more exist beyond these)\n", h.shown)
    } else {
        format!("Found {} matches\n", h.shown)
    };
    let blocks: Vec<String> = h
        .files
        .iter()
        .map(|f| {
            let mut b = format!("{}:", f.path.display());
            for (n, text) in &f.lines {
                b.push_str(&format!("\n  Line {n}: {text}"));
            }
            b
        })
        .collect();
    out.push_str(&blocks.join("\n\n"));
    if h.more {
        out.push_str(&format!(
            "\n\n(Results stop at {LIMIT} matches. Narrow the path, the include glob or the \
             pattern to see the rest.)"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn hit(name: &str, secs: u64, n: usize) -> FileHits {
        FileHits {
            path: PathBuf::from(name),
            mtime: SystemTime::UNIX_EPOCH + Duration::from_secs(secs),
            lines: (1..=n as u64).map(|i| (i, format!("l{i}"))).collect(),
        }
    }

    #[test]
    fn cap_orders_newest_first_and_stops_at_the_limit() {
        let h = cap(vec![hit("/a", 1, 60), hit("/b", 3, 60), hit("/c", 2, 1)]);
        assert_eq!(h.files[0].path, PathBuf::from("/b"));
        assert_eq!(h.files[1].path, PathBuf::from("/c"));
        assert_eq!(h.files[2].lines.len(), 39);
        assert_eq!(h.shown, 100);
        assert!(h.more);
    }

    #[test]
    fn render_layout() {
        let h = cap(vec![hit("/a", 1, 2), hit("/b", 2, 1)]);
        assert_eq!(
            render(&h),
            "Found 3 matches\n/b:\n  Line 1: l1\n\n/a:\n  Line 1: l1\n  Line 2: l2"
        );
        assert_eq!(render(&Hits::default()), "No files found");
    }

    #[test]
    fn invalid_regex_keeps_the_parser_message() {
        let e = matcher("foo(").unwrap_err().to_string();
        assert!(e.contains("regex parse error"), "{e}");
        assert!(e.contains("unclosed group"), "{e}");
    }

    #[test]
    fn long_lines_are_cut() {
        let s = cut(&"z".repeat(2500));
        assert_eq!(s.len(), 2003);
        assert!(s.ends_with("..."));
    }
}
