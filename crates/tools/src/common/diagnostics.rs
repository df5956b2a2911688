//! Language-server diagnostics after a file changes (spec §2, §3.1 step 9, §4, §3.7): the
//! files are sent to the Lsp service, its errors come back as `<diagnostics>` blocks for the
//! model and as a map for the metadata.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use strata_services::fs::to_slash;
use strata_services::lsp::{Diagnostic, Lsp};

/// At most this many error lines per file are shown.
pub(crate) const MAX_PER_FILE: usize = 20;
/// `write` shows errors of at most this many other files.
pub(crate) const MAX_OTHER_FILES: usize = 5;

/// The diagnostics known after a change.
#[derive(Debug, Default)]
pub(crate) struct Report {
    files: BTreeMap<PathBuf, Vec<Diagnostic>>,
}

impl Report {
    /// Sends `changed` files to their language servers, waits for their diagnostics and takes
    /// everything the servers know. A server that fails is logged and left out: diagnostics
    /// are a help, never a reason for a successful write to fail.
    pub(crate) async fn after_change(lsp: &Lsp, changed: &[&Path]) -> Report {
        let touches = changed.iter().map(|path| async move {
            if let Err(e) = lsp.touch_file(path, true).await {
                tracing::warn!(path = %path.display(), error = %e, "no diagnostics for the file");
            }
        });
        futures::future::join_all(touches).await;
        Report {
            files: lsp.diagnostics().await,
        }
    }

    /// Builds a report from known diagnostics.
    #[cfg(test)]
    pub(crate) fn from_map(files: BTreeMap<PathBuf, Vec<Diagnostic>>) -> Report {
        Report { files }
    }

    /// `{ "<abs path>": [diagnostic, ...] }` for files that have any.
    pub(crate) fn metadata(&self) -> Value {
        let mut map = Map::new();
        for (path, list) in self.files.iter().filter(|(_, l)| !l.is_empty()) {
            map.insert(
                to_slash(path),
                serde_json::to_value(list).unwrap_or(Value::Null),
            );
        }
        Value::Object(map)
    }

    /// The `<diagnostics>` block of `path`'s errors, if it has any.
    pub(crate) fn block(&self, path: &Path) -> Option<String> {
        block(path, self.files.get(path)?)
    }

    /// Blocks for up to `max` files other than `except` that have errors, in path order.
    pub(crate) fn other_blocks(&self, except: &[&Path], max: usize) -> Vec<String> {
        self.files
            .iter()
            .filter(|(p, _)| !except.contains(&p.as_path()))
            .filter_map(|(p, list)| block(p, list))
            .take(max)
            .collect()
    }
}

/// `<diagnostics file="…">` with one `ERROR [line:col] message` line per error (1-based), at
/// most [`MAX_PER_FILE`] of them and a count of the rest; `None` when there is no error.
pub(crate) fn block(path: &Path, diagnostics: &[Diagnostic]) -> Option<String> {
    let errors: Vec<&Diagnostic> = diagnostics.iter().filter(|d| d.is_error()).collect();
    if errors.is_empty() {
        return None;
    }
    let mut out = format!("<diagnostics file=\"{}\">\n", to_slash(path));
    for d in errors.iter().take(MAX_PER_FILE) {
        let start = d.range.start;
        let _ = writeln!(
            out,
            "ERROR [{}:{}] {}",
            start.line + 1,
            start.character + 1,
            d.message.replace('\n', " ")
        );
    }
    if errors.len() > MAX_PER_FILE {
        let _ = writeln!(out, "... and {} more", errors.len() - MAX_PER_FILE);
    }
    out.push_str("</diagnostics>");
    Some(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use strata_services::lsp::diagnostic::{Position, Range};

    use super::*;

    fn diag(line: u32, severity: Option<u8>, message: &str) -> Diagnostic {
        let at = Position { line, character: 4 };
        Diagnostic {
            range: Range { start: at, end: at },
            severity,
            message: message.into(),
            source: None,
            code: None,
        }
    }

    #[test]
    fn a_block_lists_errors_only_one_based() {
        let list = [
            diag(0, Some(2), "unused variable"),
            diag(2, Some(1), "undeclared\nidentifier"),
        ];
        assert_eq!(
            block(Path::new("/p/a.c"), &list).unwrap(),
            "<diagnostics file=\"/p/a.c\">\nERROR [3:5] undeclared identifier\n</diagnostics>"
        );
        assert_eq!(block(Path::new("/p/a.c"), &list[..1]), None);
    }

    #[test]
    fn a_block_stops_at_twenty_lines_and_counts_the_rest() {
        let list: Vec<_> = (0..23).map(|i| diag(i, Some(1), "bad")).collect();
        let text = block(Path::new("/p/a.c"), &list).unwrap();
        assert_eq!(text.lines().filter(|l| l.starts_with("ERROR")).count(), 20);
        assert!(
            text.contains("ERROR [20:5] bad\n... and 3 more\n</diagnostics>"),
            "{text}"
        );
    }

    #[test]
    fn the_report_names_other_files_and_keeps_metadata_of_files_with_diagnostics() {
        let mut files = BTreeMap::new();
        files.insert(PathBuf::from("/p/a.c"), vec![diag(0, Some(1), "a")]);
        files.insert(PathBuf::from("/p/b.c"), vec![diag(1, Some(1), "b")]);
        files.insert(PathBuf::from("/p/c.c"), vec![diag(1, Some(2), "warn")]);
        files.insert(PathBuf::from("/p/d.c"), vec![]);
        let r = Report::from_map(files);
        assert!(
            r.block(Path::new("/p/a.c"))
                .unwrap()
                .contains("ERROR [1:5] a")
        );
        assert_eq!(r.block(Path::new("/p/c.c")), None);
        let others = r.other_blocks(&[Path::new("/p/a.c")], 5);
        assert_eq!(others.len(), 1);
        assert!(others[0].contains("/p/b.c"));
        let meta = r.metadata();
        assert_eq!(meta.as_object().unwrap().len(), 3, "{meta}");
        assert_eq!(meta["/p/c.c"][0]["severity"], json!(2));
    }
}
