//! The edits of a transaction worked out in memory, before anything is written: each edit sees
//! the files as the edits before it left them. Pure: the caller reads the files first.

use std::path::{Path, PathBuf};

use crate::edit::replace::edit_text;

/// One edit, its path already resolved (to the file's first spelling in the call, so that two
/// spellings of one file are one file).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Step<'a> {
    pub path: &'a Path,
    pub old: &'a str,
    pub new: &'a str,
    pub replace_all: bool,
}

/// What the transaction does to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileChange {
    pub path: PathBuf,
    /// The text on disk before; `None` when the transaction creates the file.
    pub before: Option<String>,
    pub after: String,
}

/// Why an edit could not be worked out; nothing has been written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StepError {
    /// The 0-based position of the edit in `edits`.
    pub index: usize,
    pub path: PathBuf,
    pub reason: String,
}

/// Applies `steps` in order over the files as `found` on disk (`None`: no file there) and
/// returns each changed file once, in the order first edited. A file that ends as it began is
/// still listed (its diff is empty).
pub(crate) fn apply_all(
    found: &[(PathBuf, Option<String>)],
    steps: &[Step<'_>],
) -> Result<Vec<FileChange>, StepError> {
    let mut changes: Vec<FileChange> = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        let fail = |reason: String| StepError {
            index,
            path: step.path.to_path_buf(),
            reason,
        };
        let slot = changes.iter().position(|c| c.path == step.path);
        let now: Option<&str> = match slot {
            Some(i) => Some(changes[i].after.as_str()),
            None => found
                .iter()
                .find(|(p, _)| p == step.path)
                .and_then(|(_, text)| text.as_deref()),
        };
        let after = match (now, step.old.is_empty()) {
            (None, true) => step.new.to_string(),
            (Some(_), true) => {
                return Err(fail(
                    "the file already exists, and an empty `oldString` only creates new files. \
                     Name the text to change instead."
                        .into(),
                ));
            }
            (None, false) => {
                return Err(fail(
                    "the file does not exist. Check the path, or create it with an empty \
                     `oldString`."
                        .into(),
                ));
            }
            (Some(text), false) => edit_text(text, step.old, step.new, step.replace_all)
                .map_err(|e| fail(e.to_string()))?,
        };
        match slot {
            Some(i) => changes[i].after = after,
            None => changes.push(FileChange {
                path: step.path.to_path_buf(),
                before: now.map(str::to_string),
                after,
            }),
        }
    }
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step<'a>(path: &'a Path, old: &'a str, new: &'a str) -> Step<'a> {
        Step {
            path,
            old,
            new,
            replace_all: false,
        }
    }

    #[test]
    fn later_edits_see_earlier_ones_and_each_file_is_listed_once() {
        let (a, b) = (Path::new("/p/a.txt"), Path::new("/p/b.txt"));
        let found = vec![
            (a.to_path_buf(), Some("one\ntwo\n".to_string())),
            (b.to_path_buf(), Some("x\r\ny\r\n".to_string())),
        ];
        let steps = [
            step(a, "one", "ONE"),
            step(b, "y\n", "z\n"),
            step(a, "ONE\ntwo", "1\n2"),
        ];
        let out = apply_all(&found, &steps).unwrap();
        assert_eq!(
            out,
            vec![
                FileChange {
                    path: a.into(),
                    before: Some("one\ntwo\n".into()),
                    after: "1\n2\n".into()
                },
                FileChange {
                    path: b.into(),
                    before: Some("x\r\ny\r\n".into()),
                    // The file's CRLF endings are kept, as `edit` keeps them.
                    after: "x\r\nz\r\n".into()
                },
            ]
        );
    }

    #[test]
    fn a_created_file_can_be_edited_by_a_later_step() {
        let n = Path::new("/p/new.txt");
        let steps = [step(n, "", "hello\n"), step(n, "hello", "bye")];
        let out = apply_all(&[(n.to_path_buf(), None)], &steps).unwrap();
        assert_eq!(out[0].before, None);
        assert_eq!(out[0].after, "bye\n");
    }

    #[test]
    fn the_first_failing_step_is_named_with_its_reason() {
        let (a, b) = (Path::new("/p/a.txt"), Path::new("/p/b.txt"));
        let found = vec![
            (a.to_path_buf(), Some("alpha\n".to_string())),
            (b.to_path_buf(), None),
        ];
        let missing = apply_all(&found, &[step(a, "alpha", "beta"), step(a, "gamma", "x")]);
        let e = missing.unwrap_err();
        assert_eq!((e.index, e.path.as_path()), (1, a));
        assert!(e.reason.contains("not found"), "{}", e.reason);
        let e = apply_all(&found, &[step(b, "x", "y")]).unwrap_err();
        assert!(e.reason.contains("does not exist"), "{}", e.reason);
        let e = apply_all(&found, &[step(a, "", "y")]).unwrap_err();
        assert!(e.reason.contains("already exists"), "{}", e.reason);
    }

    #[test]
    fn a_bom_is_kept_and_a_missing_final_newline_stays_missing() {
        let a = Path::new("/p/a.cs");
        let found = vec![(a.to_path_buf(), Some("\u{FEFF}using A;\nend".to_string()))];
        let out = apply_all(&found, &[step(a, "end", "fin")]).unwrap();
        assert_eq!(out[0].after, "\u{FEFF}using A;\nfin");
    }
}
