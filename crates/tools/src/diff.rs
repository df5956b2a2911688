//! Unified diffs shown to the user and the model for `edit`, `write` and `apply_patch`
//! (spec §3.6), and the added/removed line counts that go with them.
//!
//! Texts are compared with CRLF turned into LF and a leading BOM removed, line by line, with
//! three lines of context. Pure functions: no IO.

use std::fmt::Write as _;
use std::time::Duration;

use similar::{ChangeTag, DiffOp, TextDiff};

const CONTEXT_LINES: usize = 3;
/// Past this the line diff settles for a valid but possibly longer answer.
const DIFF_TIMEOUT: Duration = Duration::from_secs(2);

fn prepare(text: &str) -> String {
    text.trim_start_matches('\u{FEFF}').replace("\r\n", "\n")
}

fn line_diff<'a>(old: &'a str, new: &'a str) -> TextDiff<'a, 'a, str> {
    TextDiff::configure()
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old, new)
}

/// A hunk range `start,count`: 1-based start, or the line before for an empty range.
fn range(start: usize, end: usize) -> String {
    let count = end - start;
    let first = if count == 0 { start } else { start + 1 };
    format!("{first},{count}")
}

/// The unified diff of `old` → `new` under the `Index:` header naming `path`.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let (old, new) = (prepare(old), prepare(new));
    let diff = line_diff(&old, &new);
    let mut out = format!(
        "Index: {path}\n{}\n--- {path}\n+++ {path}\n",
        "=".repeat(67)
    );
    let mut body = Vec::new();
    for group in diff.grouped_ops(CONTEXT_LINES) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        body.push(format!(
            "@@ -{} +{} @@",
            range(first.old_range().start, last.old_range().end),
            range(first.new_range().start, last.new_range().end)
        ));
        for change in group.iter().flat_map(|op: &DiffOp| diff.iter_changes(op)) {
            let sign = match change.tag() {
                ChangeTag::Equal => ' ',
                ChangeTag::Delete => '-',
                ChangeTag::Insert => '+',
            };
            let text = change.value();
            body.push(format!("{sign}{}", text.strip_suffix('\n').unwrap_or(text)));
            if change.missing_newline() {
                body.push("\\ No newline at end of file".to_string());
            }
        }
    }
    trim_indentation(&mut body);
    for line in body {
        // Writing into a String cannot fail.
        let _ = writeln!(out, "{line}");
    }
    out
}

/// Strip the indentation every non-blank content line shares, right after the prefix sign.
fn trim_indentation(body: &mut [String]) {
    let is_content = |l: &str| l.starts_with([' ', '-', '+']);
    let indent = |l: &str| l.chars().skip(1).take_while(|c| c.is_whitespace()).count();
    let min = body
        .iter()
        .filter(|l| is_content(l) && !l[1..].trim().is_empty())
        .map(|l| indent(l))
        .min();
    let Some(min) = min.filter(|&m| m > 0) else {
        return;
    };
    for line in body.iter_mut().filter(|l| is_content(l)) {
        let mut chars = line.chars();
        let sign = chars.next().unwrap_or(' ');
        // Blank lines may hold fewer spaces than `min`; only whitespace is removed.
        let mut rest = chars.as_str();
        for _ in 0..min {
            match rest.chars().next() {
                Some(c) if c.is_whitespace() => rest = &rest[c.len_utf8()..],
                _ => break,
            }
        }
        *line = format!("{sign}{rest}");
    }
}

/// Lines added and removed by `old` → `new` (CRLF as LF, BOM ignored): (additions, deletions).
pub fn line_counts(old: &str, new: &str) -> (usize, usize) {
    let (old, new) = (prepare(old), prepare(new));
    let diff = line_diff(&old, &new);
    diff.iter_all_changes()
        .fold((0, 0), |(add, del), change| match change.tag() {
            ChangeTag::Insert => (add + 1, del),
            ChangeTag::Delete => (add, del + 1),
            ChangeTag::Equal => (add, del),
        })
}

#[cfg(test)]
mod tests;
