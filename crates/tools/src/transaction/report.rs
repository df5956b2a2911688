//! What the model reads after a transaction: the files it changed, how the check went, and
//! after a rollback what was put back and what was left. Pure text from values.

use crate::bash::Ending;

/// One file of the transaction, as the output lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed {
    /// The path relative to the project.
    pub shown: String,
    /// The transaction created the file.
    pub created: bool,
}

/// The header and one `A`/`M` line per file.
pub(crate) fn summary(edits: usize, files: &[Listed]) -> String {
    let edits_word = if edits == 1 { "edit" } else { "edits" };
    let files_word = if files.len() == 1 { "file" } else { "files" };
    let mut out = format!(
        "The transaction applied {edits} {edits_word} to {} {files_word}:",
        files.len()
    );
    for f in files {
        out.push_str(if f.created { "\nA " } else { "\nM " });
        out.push_str(&f.shown);
    }
    out
}

/// How a check that did not pass ended, as a clause: "exited with code 2".
pub(crate) fn failure(ending: Ending) -> String {
    match ending {
        Ending::Exited(Some(code)) => format!("exited with code {code}"),
        Ending::Exited(None) => "was ended by a signal".into(),
        Ending::TimedOut(ms) => format!("ran past its time limit of {ms} ms and was stopped"),
        Ending::Aborted => "was cancelled".into(),
    }
}

/// Whether the check passed.
pub(crate) fn passed(ending: Ending) -> bool {
    ending == Ending::Exited(Some(0))
}

/// The success text: the summary, then the check's output when there was a check.
pub(crate) fn applied(summary: &str, check: Option<(&str, &str)>) -> String {
    match check {
        None => summary.to_string(),
        Some((command, output)) => {
            format!("{summary}\n\nThe check `{command}` passed. Its output:\n{output}")
        }
    }
}

/// What the rollback did, for the end of a failure message: the files put back, those that
/// could not be, and (after a check ran) that the check's own files were kept.
pub(crate) fn rolled_back(restored: &[String], failed: &[String], check_ran: bool) -> String {
    let mut out = if failed.is_empty() {
        format!(
            "Every edited file was put back byte for byte as it was before this call ({}).",
            restored.join(", ")
        )
    } else {
        format!(
            "These files could not be put back and still hold the transaction's change: {}. \
             Check them before going on.",
            failed.join(", ")
        )
    };
    if check_ran {
        out.push_str(
            " Files that the check itself created or changed (a build folder, for example) \
             were left as the check left them, unless they were among the edited files.",
        );
    }
    out
}

/// The error for a check that did not pass: what happened, the rollback, the check's output.
pub(crate) fn check_failed(command: &str, ending: Ending, rollback: &str, output: &str) -> String {
    format!(
        "The check `{command}` {}, so the transaction was rolled back. {rollback}\n\nThe \
         check's output:\n{output}",
        failure(ending)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_counts_and_marks_created_files() {
        let files = [
            Listed {
                shown: "src/a.rs".into(),
                created: false,
            },
            Listed {
                shown: "src/new.rs".into(),
                created: true,
            },
        ];
        assert_eq!(
            summary(3, &files),
            "The transaction applied 3 edits to 2 files:\nM src/a.rs\nA src/new.rs"
        );
        assert_eq!(
            summary(1, &files[..1]),
            "The transaction applied 1 edit to 1 file:\nM src/a.rs"
        );
    }

    #[test]
    fn only_exit_code_zero_passes_and_each_failure_reads_as_a_clause() {
        assert!(passed(Ending::Exited(Some(0))));
        for e in [
            Ending::Exited(Some(1)),
            Ending::Exited(None),
            Ending::TimedOut(5),
            Ending::Aborted,
        ] {
            assert!(!passed(e), "{e:?}");
        }
        assert_eq!(failure(Ending::Exited(Some(2))), "exited with code 2");
        assert_eq!(
            failure(Ending::TimedOut(300)),
            "ran past its time limit of 300 ms and was stopped"
        );
    }

    #[test]
    fn the_rollback_text_names_the_files_and_the_check_files_left() {
        let ok = rolled_back(&["a.txt".into(), "b.txt".into()], &[], true);
        assert!(ok.contains("(a.txt, b.txt)"), "{ok}");
        assert!(ok.contains("were left as the check left them"), "{ok}");
        let plain = rolled_back(&["a.txt".into()], &[], false);
        assert!(!plain.contains("check"), "{plain}");
        let bad = rolled_back(&["a.txt".into()], &["a.txt".into()], false);
        assert!(bad.contains("could not be put back"), "{bad}");
        let msg = check_failed("make", Ending::Exited(Some(2)), &ok, "boom");
        assert!(
            msg.starts_with("The check `make` exited with code 2"),
            "{msg}"
        );
        assert!(msg.ends_with("The check's output:\nboom"), "{msg}");
    }
}
