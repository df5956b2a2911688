//! Text replacement for the `edit` tool (spec §3.2–§3.5) and the line-ending helpers of §3.1.
//!
//! [`replace`] tries the replacers of §3.3 in order; the first candidate that occurs in the
//! file exactly once (or at all, with `replace_all`) wins, unless the disproportionate-match
//! guard of §3.4 refuses it. Pure functions: no IO.

mod replacers;
#[cfg(test)]
mod tests;

use replacers::REPLACERS;

pub use crate::common::bom::split_bom;

/// Why [`replace`] changed nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ReplaceError {
    /// `oldString == newString`.
    #[error("`oldString` and `newString` are the same text, so there is nothing to change.")]
    Identical,
    /// `oldString` is empty.
    #[error(
        "`oldString` is empty. An empty `oldString` only creates a new file; to change an \
         existing file, name the text to change, or call `write` to replace it entirely."
    )]
    EmptyOld,
    /// No replacer found `oldString`.
    #[error(
        "`oldString` was not found in the file. It has to reproduce the file's text character \
         for character, including spaces, indentation and line endings."
    )]
    NotFound,
    /// Found, but never at exactly one place.
    #[error(
        "`oldString` matches more than one place in the file. Add more of the surrounding lines \
         so that only one place matches, or set `replaceAll` to change every occurrence."
    )]
    Multiple,
    /// A tolerant match spanned far more text than `oldString`.
    #[error(
        "The tolerant match for `oldString` covered far more of the file than `oldString` \
         itself, so nothing was replaced. Read the file again and send the exact text to change."
    )]
    Disproportionate,
}

/// Replace `old` with `new` in `content` (spec §3.2). `new` is inserted as given, even when
/// the match was tolerant. With `replace_all`, every occurrence of the matched text changes.
pub fn replace(
    content: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<String, ReplaceError> {
    if old == new {
        return Err(ReplaceError::Identical);
    }
    if old.is_empty() {
        return Err(ReplaceError::EmptyOld);
    }
    let mut found = false;
    for replacer in REPLACERS {
        for candidate in replacer(content, old) {
            // An empty candidate "occurs" everywhere; it can never name a place to edit.
            if candidate.is_empty() {
                continue;
            }
            let Some(first) = content.find(&candidate) else {
                continue;
            };
            found = true;
            if disproportionate(old, &candidate) {
                return Err(ReplaceError::Disproportionate);
            }
            if replace_all {
                return Ok(content.replace(&candidate, new));
            }
            if content.rfind(&candidate) == Some(first) {
                let end = first + candidate.len();
                return Ok(format!("{}{new}{}", &content[..first], &content[end..]));
            }
        }
    }
    Err(if found {
        ReplaceError::Multiple
    } else {
        ReplaceError::NotFound
    })
}

/// The guard of §3.4: did a tolerant match cover far more text than `old`?
fn disproportionate(old: &str, candidate: &str) -> bool {
    let old_lines = old.split('\n').count();
    let found_lines = candidate.split('\n').count();
    if found_lines >= (old_lines + 3).max(2 * old_lines) {
        return true;
    }
    if old_lines == 1 {
        return false;
    }
    let old_len = old.trim().chars().count();
    candidate.trim().chars().count() > (old_len + 500).max(4 * old_len)
}

/// One edit of a whole file's text (spec §3.1 step 6): the byte-order mark is set aside (and
/// kept, or added when `new` starts with one), `old` and `new` follow the file's line endings,
/// then [`replace`]. Shared by `edit` and `transaction`.
pub fn edit_text(
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<String, ReplaceError> {
    let (had_bom, body) = split_bom(text);
    let crlf = detect_crlf(body);
    let old = normalize_to(old, crlf);
    let new = normalize_to(new, crlf);
    let (new_bom, new) = split_bom(&new);
    let next = replace(body, &old, new, replace_all)?;
    Ok(crate::common::bom::with_bom(had_bom || new_bom, &next))
}

/// Whether a file uses CRLF line endings: it contains `\r\n` anywhere.
pub fn detect_crlf(text: &str) -> bool {
    text.contains("\r\n")
}

/// `text` with its line endings turned into LF, then into CRLF when `crlf` is set.
pub fn normalize_to(text: &str, crlf: bool) -> String {
    let lf = text.replace("\r\n", "\n");
    if crlf { lf.replace('\n', "\r\n") } else { lf }
}
