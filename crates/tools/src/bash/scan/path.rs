//! From a shell word to the directory an `external_directory` ask must cover (spec §7.4 step 4),
//! and from those directories to permission globs (§0.4).

use std::path::{Component, Path, PathBuf};

use strata_services::permission::dir_glob;

use super::ProjectView;

/// The directory outside the project that the shell word `arg` points into, resolved against
/// `cwd`; `None` when the word is inside the project, empty, or cannot be known before it runs.
pub(super) fn external_dir(arg: &str, cwd: &Path, project: &dyn ProjectView) -> Option<PathBuf> {
    let word = unquote(arg);
    let mut word = expand_home(&word, project)?;
    if let Some(cut) = word.find(['?', '*', '[']) {
        if cut == 0 {
            return None;
        }
        word.truncate(cut);
    }
    if is_dynamic(&word) || word.is_empty() {
        return None;
    }
    let path = normalize(&cwd.join(&word));
    if project.is_inside(&path) {
        return None;
    }
    Some(ask_dir(&path, project))
}

/// The directory of an ask for an outside path: the path itself when it is a directory, else its
/// parent (§0.4), taken from the path the caller wants the glob built from.
pub(super) fn ask_dir(path: &Path, project: &dyn ProjectView) -> PathBuf {
    let base = project.glob_base(path);
    if project.is_dir(&base) {
        return base;
    }
    match base.parent() {
        Some(parent) => parent.to_path_buf(),
        None => base,
    }
}

/// Removes shell quoting the way bash reads a word: single quotes keep everything literally,
/// double quotes and bare backslashes escape the next character. An unterminated quote runs to
/// the end. A word wrapped in one pair of matching quotes (the spec's rule) is a special case.
pub(super) fn unquote(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => out.extend(chars.by_ref().take_while(|&c| c != '\'')),
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        // Inside double quotes a backslash only escapes these characters.
                        '\\' => match chars.next() {
                            Some(e @ ('"' | '\\' | '$' | '`')) => out.push(e),
                            Some(e) => {
                                out.push('\\');
                                out.push(e);
                            }
                            None => out.push('\\'),
                        },
                        c => out.push(c),
                    }
                }
            }
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

/// `~` and `~/…` become the home directory; other words are kept. `None` when the word needs a
/// home directory that is not known, since it cannot be resolved then.
fn expand_home(word: &str, project: &dyn ProjectView) -> Option<String> {
    let rest = match word.strip_prefix('~') {
        Some("") => "",
        Some(rest) if rest.starts_with('/') => rest,
        _ => return Some(word.to_owned()),
    };
    let home = project.home()?;
    Some(format!("{}{rest}", home.to_string_lossy()))
}

/// A word whose value is only known when the shell runs: substitutions, expansions, variables.
fn is_dynamic(word: &str) -> bool {
    word.starts_with('(') || word.starts_with("@(") || word.contains(['$', '`'])
}

/// Lexical normalisation: drops `.`, lets `..` remove the previous part (never above the root).
pub(super) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The `external_directory` globs for `dirs`: `‹dir›/*` with `/` separators, deduplicated in
/// order. The root directory gives `/*`.
pub fn external_globs(dirs: &[PathBuf]) -> Vec<String> {
    let mut globs: Vec<String> = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let glob = dir_glob(dir);
        if !globs.contains(&glob) {
            globs.push(glob);
        }
    }
    globs
}
