//! The text the model sees after a command (spec §7.3): the tail of the output, a pointer to
//! the saved complete output when it was cut, and a `<shell_metadata>` block saying how the
//! command ended when that is worth knowing (timeout, abort, non-zero exit).

use super::capture::{Captured, Saved};

/// How the command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// It exited by itself; `None` when a signal ended it.
    Exited(Option<i32>),
    /// It ran past its time limit (in ms) and was stopped.
    TimedOut(u64),
    /// The call was cancelled and the command stopped.
    Aborted,
}

impl Ending {
    /// The exit status for `metadata.exit`: `null` unless the command exited with a code.
    pub(crate) fn exit_code(self) -> Option<i32> {
        match self {
            Ending::Exited(code) => code,
            Ending::TimedOut(_) | Ending::Aborted => None,
        }
    }
}

/// Shown instead of an empty output.
pub(super) const NO_OUTPUT: &str = "(The command printed nothing.)";

/// The model-facing output.
pub(super) fn model_output(captured: &Captured, ending: Ending) -> String {
    let body = if captured.tail.is_empty() {
        NO_OUTPUT
    } else {
        captured.tail.as_str()
    };
    let mut out = String::new();
    if captured.cut {
        out.push_str("[Output truncated: only the last part is shown below.]\n\n");
        match &captured.saved {
            Saved::File(path) => out.push_str(&format!(
                "The complete output is saved in {}; search it with grep or read it in slices \
                 with offset/limit.\n\n",
                path.display()
            )),
            Saved::Failed(error) => out.push_str(&format!(
                "The complete output could not be saved ({error}); only this part is \
                 available.\n\n"
            )),
            Saved::Nothing => {}
        }
    }
    out.push_str(body);
    let facts = facts(ending);
    if !facts.is_empty() {
        out.push_str("\n\n<shell_metadata>\n");
        out.push_str(&facts.join("\n"));
        out.push_str("\n</shell_metadata>");
    }
    out
}

/// One line per noteworthy fact about how the command ended.
fn facts(ending: Ending) -> Vec<String> {
    match ending {
        Ending::Exited(Some(0)) => Vec::new(),
        Ending::Exited(Some(code)) => vec![format!("The command exited with status {code}.")],
        Ending::Exited(None) => {
            vec!["The command was ended by a signal, so it has no exit status.".to_string()]
        }
        Ending::TimedOut(ms) => vec![format!(
            "The command was stopped because it ran longer than its time limit of {ms} ms; \
             everything it started was ended. If it legitimately needs more time and is not \
             waiting for input, run it again with a larger `timeout` (in milliseconds)."
        )],
        Ending::Aborted => vec![
            "The user aborted the command before it finished; everything it started was \
             ended. Do not run it again unless the user asks."
                .to_string(),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn captured(tail: &str, cut: bool, saved: Saved) -> Captured {
        Captured {
            tail: tail.to_string(),
            cut,
            saved,
            preview: tail.to_string(),
        }
    }

    #[test]
    fn plain_success_is_just_the_output() {
        let c = captured("hello\n", false, Saved::Nothing);
        assert_eq!(model_output(&c, Ending::Exited(Some(0))), "hello\n");
    }

    #[test]
    fn empty_output_gets_a_placeholder() {
        let c = captured("", false, Saved::Nothing);
        assert_eq!(model_output(&c, Ending::Exited(Some(0))), NO_OUTPUT);
    }

    #[test]
    fn non_zero_exit_adds_a_metadata_block() {
        let c = captured("oops", false, Saved::Nothing);
        assert_eq!(
            model_output(&c, Ending::Exited(Some(42))),
            "oops\n\n<shell_metadata>\nThe command exited with status 42.\n</shell_metadata>"
        );
    }

    #[test]
    fn timeout_and_abort_lines_say_why_and_what_next() {
        let c = captured("started\n", false, Saved::Nothing);
        let t = model_output(&c, Ending::TimedOut(500));
        assert!(t.starts_with("started\n\n\n<shell_metadata>\n"), "{t}");
        assert!(t.contains("500 ms") && t.contains("`timeout`") && t.contains("milliseconds"));
        let a = model_output(&c, Ending::Aborted);
        assert!(a.contains("user aborted"), "{a}");
        assert_eq!(Ending::TimedOut(1).exit_code(), None);
        assert_eq!(Ending::Exited(Some(3)).exit_code(), Some(3));
    }

    #[test]
    fn cut_output_points_at_the_saved_file() {
        let c = captured("99\n100", true, Saved::File(PathBuf::from("/data/tool_x")));
        let out = model_output(&c, Ending::Exited(Some(0)));
        let lines: Vec<&str> = out.split('\n').collect();
        assert!(lines[0].contains("truncated"));
        assert_eq!(lines[1], "");
        assert!(lines[2].contains("/data/tool_x"));
        assert_eq!(lines[3], "");
        assert_eq!(&lines[4..], ["99", "100"]);
    }
}
