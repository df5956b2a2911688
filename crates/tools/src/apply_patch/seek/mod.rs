//! Locating and applying the chunks of an Update (spec §4.2). Pure: text in, text out.
//!
//! [`seek`] finds a run of lines with increasingly tolerant comparisons; [`apply_chunks`]
//! applies a parsed Update's chunks to a file's content, keeping its BOM and line endings.

#[cfg(test)]
mod tests;

use super::parse::Chunk;

use crate::common::bom::BOM;

/// Why the chunks of an Update could not be applied to a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    /// An `@@` context line is not in the file (after the previous chunk).
    #[error(
        "The patch does not apply to {path}: the `@@` context line `{context}` does not occur \
         in the file after the previous chunk. Copy the context line exactly from the file."
    )]
    ContextNotFound { path: String, context: String },
    /// A chunk's old lines are not in the file (after the previous chunk).
    #[error(
        "The patch does not apply to {path}: these old lines of a chunk do not occur in the \
         file after the previous chunk. Read the file again and copy them exactly:\n{}",
        lines.join("\n")
    )]
    OldLinesNotFound { path: String, lines: Vec<String> },
}

/// Replace Unicode dashes, quotes, ellipsis and odd spaces by their ASCII look-alikes.
fn normalize_punctuation(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\u{2010}'..='\u{2015}' | '\u{2212}' => out.push('-'),
            '\u{2018}'..='\u{201B}' => out.push('\''),
            '\u{201C}'..='\u{201F}' => out.push('"'),
            '\u{2026}' => out.push_str("..."),
            '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => {
                out.push(' ')
            }
            other => out.push(other),
        }
    }
    out
}

/// One way of comparing a file line with a pattern line.
type SameLine = dyn Fn(&str, &str) -> bool;

/// Find `pattern` in `lines` at or after `start`; with `eof`, the position that ends the file
/// is tried first. Four passes, each more tolerant; the first hit wins. An empty pattern never
/// matches.
pub fn seek(lines: &[String], pattern: &[String], start: usize, eof: bool) -> Option<usize> {
    if pattern.is_empty() || pattern.len() > lines.len() {
        return None;
    }
    let last = lines.len() - pattern.len();
    let at = |i: usize, same: &SameLine| {
        lines[i..i + pattern.len()]
            .iter()
            .zip(pattern)
            .all(|(l, p)| same(l, p))
    };
    let passes: [&SameLine; 4] = [
        &|a, b| a == b,
        &|a, b| a.trim_end() == b.trim_end(),
        &|a, b| a.trim() == b.trim(),
        &|a, b| normalize_punctuation(a.trim()).trim() == normalize_punctuation(b.trim()).trim(),
    ];
    for same in passes {
        if eof && last >= start && at(last, same) {
            return Some(last);
        }
        if let Some(i) = (start..=last).find(|&i| at(i, same)) {
            return Some(i);
        }
    }
    None
}

/// Apply an Update's `chunks` to `content` (spec §4.2). The result ends with a newline (unless
/// empty), keeps a leading BOM, and uses CRLF on every line when the file did.
/// `path_for_errors` is only used in error messages.
pub fn apply_chunks(
    content: &str,
    chunks: &[Chunk],
    path_for_errors: &str,
) -> Result<String, ApplyError> {
    let (bom, body) = match content.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, content),
    };
    let crlf = body.contains("\r\n");
    let mut lines: Vec<String> = body
        .split('\n')
        .map(|l| {
            if crlf {
                l.strip_suffix('\r').unwrap_or(l)
            } else {
                l
            }
            .to_string()
        })
        .collect();
    // The element after the final newline is not a line.
    if lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }

    let mut replacements: Vec<(usize, usize, Vec<String>)> = Vec::new();
    let mut cursor = 0;
    for chunk in chunks {
        if let Some(context) = &chunk.context {
            let found =
                seek(&lines, std::slice::from_ref(context), cursor, false).ok_or_else(|| {
                    ApplyError::ContextNotFound {
                        path: path_for_errors.to_string(),
                        context: context.clone(),
                    }
                })?;
            cursor = found + 1;
        }
        if chunk.old_lines.is_empty() {
            // Pure insertion: at the end of the file, before a final empty line if any.
            let at = if lines.last().is_some_and(String::is_empty) {
                lines.len() - 1
            } else {
                lines.len()
            };
            replacements.push((at, 0, chunk.new_lines.clone()));
            continue;
        }
        let mut old: &[String] = &chunk.old_lines;
        let mut new: &[String] = &chunk.new_lines;
        let mut found = seek(&lines, old, cursor, chunk.eof);
        if found.is_none() && old.last().is_some_and(String::is_empty) {
            // A trailing empty old line may stand for the file's final newline.
            old = &old[..old.len() - 1];
            if new.last().is_some_and(String::is_empty) {
                new = &new[..new.len() - 1];
            }
            found = seek(&lines, old, cursor, chunk.eof);
        }
        let Some(start) = found else {
            return Err(ApplyError::OldLinesNotFound {
                path: path_for_errors.to_string(),
                lines: chunk.old_lines.clone(),
            });
        };
        replacements.push((start, old.len(), new.to_vec()));
        cursor = start + old.len();
    }

    // Last to first, so earlier indices stay valid.
    replacements.sort_by_key(|(start, _, _)| *start);
    for (start, len, new) in replacements.into_iter().rev() {
        let end = (start + len).min(lines.len());
        lines.splice(start.min(end)..end, new);
    }

    let ending = if crlf { "\r\n" } else { "\n" };
    let mut out = String::with_capacity(body.len() + 16);
    if bom {
        out.push(BOM);
    }
    for line in &lines {
        out.push_str(line);
        out.push_str(ending);
    }
    Ok(out)
}
