//! What a revert says about the files: what it restored, what the snapshots never covered,
//! and, when it changed no file, why (plain functions, tested alone).

use serde_json::{Value, json};
use strata_services::snapshot::Skipped;

/// The file side of a revert, as reported to the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilesNote {
    /// Paths written back or removed (empty when nothing differed or nothing was restored).
    pub restored: Vec<String>,
    /// Paths the snapshots leave out, so the revert left them as they are.
    pub not_covered: Vec<String>,
    /// One or two sentences saying what was and was not undone.
    pub note: String,
}

impl FilesNote {
    /// `{"restored", "notCovered", "note"}`, as the revert reply shows it.
    pub fn to_json(&self) -> Value {
        json!({"restored": self.restored, "notCovered": self.not_covered, "note": self.note})
    }
}

/// How the files were handled: restored from a snapshot (the paths touched), or not at all.
#[derive(Debug, Clone, Copy)]
pub enum Restore<'a> {
    Done(&'a [String]),
    /// No snapshot at or after the message: snapshots were off, or no tool changed a file.
    NoSnapshot,
    /// Snapshots are refused for this folder; the reason says why.
    Refused(&'a str),
}

/// The note for a revert in a folder (`git`: whether it is a git repository of its own).
pub fn files_note(restore: Restore<'_>, skipped: &[Skipped], git: bool) -> FilesNote {
    let not_covered: Vec<String> = skipped.iter().map(|s| s.path.clone()).collect();
    let (restored, mut note) = match restore {
        Restore::Done([]) => (
            Vec::new(),
            "No file differed from the snapshot, so no file was changed.".to_string(),
        ),
        Restore::Done(paths) => (
            paths.to_vec(),
            format!(
                "Restored {} file{} to how {} before this message.",
                paths.len(),
                if paths.len() == 1 { "" } else { "s" },
                if paths.len() == 1 {
                    "it was"
                } else {
                    "they were"
                }
            ),
        ),
        Restore::NoSnapshot => (
            Vec::new(),
            "No snapshot of the files exists for this message or a later one (snapshots were \
             off, or no tool changed a file), so no file was changed; only the conversation \
             was taken back."
                .to_string(),
        ),
        Restore::Refused(reason) => {
            let note =
                format!("No file was changed, only the conversation was taken back: {reason}.");
            return FilesNote {
                restored: Vec::new(),
                not_covered,
                note,
            };
        }
    };
    if !skipped.is_empty() {
        let list: Vec<String> = skipped.iter().map(ToString::to_string).collect();
        note.push_str(&format!(
            " Not covered, left as they are: {}.",
            list.join(", ")
        ));
    }
    note.push_str(if git {
        " Files git ignores are never captured."
    } else {
        " This folder is not a git repository: only the files the snapshots captured can be \
         undone (gitignored files and the paths above are not), and git cannot recover \
         anything else."
    });
    FilesNote {
        restored,
        not_covered,
        note,
    }
}

#[cfg(test)]
mod tests {
    use strata_services::snapshot::SkipReason;

    use super::*;

    fn skipped() -> Vec<Skipped> {
        vec![Skipped {
            path: "node_modules/".into(),
            reason: SkipReason::Crowded { entries: 900 },
        }]
    }

    #[test]
    fn a_restore_names_its_count_and_what_it_did_not_cover() {
        let paths = ["a.txt".to_string(), "b.txt".to_string()];
        let n = files_note(Restore::Done(&paths), &skipped(), false);
        assert_eq!(n.restored, paths);
        assert_eq!(n.not_covered, ["node_modules/"]);
        assert!(
            n.note.starts_with("Restored 2 files to how they were"),
            "{}",
            n.note
        );
        assert!(n.note.contains("node_modules/ (900 entries"), "{}", n.note);
        assert!(n.note.contains("not a git repository"), "{}", n.note);
        let one = files_note(Restore::Done(&paths[..1]), &[], true);
        assert!(
            one.note.starts_with("Restored 1 file to how it was"),
            "{}",
            one.note
        );
        assert!(!one.note.contains("Not covered"), "{}", one.note);
        assert!(
            one.note.ends_with("Files git ignores are never captured."),
            "{}",
            one.note
        );
    }

    #[test]
    fn no_success_is_claimed_when_no_file_changed() {
        let none = files_note(Restore::NoSnapshot, &[], true);
        assert!(none.restored.is_empty());
        assert!(none.note.contains("no file was changed"), "{}", none.note);
        let same = files_note(Restore::Done(&[]), &[], true);
        assert!(same.note.starts_with("No file differed"), "{}", same.note);
        let refused = files_note(Restore::Refused("it is your home directory"), &[], false);
        assert!(
            refused.note.contains("No file was changed"),
            "{}",
            refused.note
        );
        assert!(refused.note.contains("home directory"), "{}", refused.note);
        assert_eq!(
            refused.to_json()["restored"],
            serde_json::json!([]),
            "the reply lists what was restored"
        );
    }
}
