//! `bash` with `run_in_background` (spec §7.6), and how a background shell's state reads for
//! the model: the wording `bash` and `bash_output` share.

use strata_services::background::{BackgroundError, ShellStatus, Started, Unread};
use strata_services::fs::to_slash;

use crate::contract::{ToolError, ToolResult};

/// The result of starting a background shell.
pub(super) fn started(command: &str, title: String, s: &Started) -> ToolResult {
    let mut output = report(&s.id, s.status, &s.output, s.hint.as_deref());
    if !s.status.ended() {
        output.push_str(&format!(
            "\n\nRead its new output with `bash_output` (shell_id \"{}\"); end it with \
             `bash_kill`. It ends by itself when the session ends.",
            s.id
        ));
    }
    let mut result = ToolResult::new(title, output)
        .meta("shellId", s.id.as_str())
        .meta("status", s.status.name())
        .meta("exit", s.status.exit_code())
        .meta("output", s.output.text.as_str())
        .meta("command", command);
    if let Some(file) = &s.output.file {
        result = result.meta("outputPath", to_slash(file));
    }
    result
}

/// A start the registry refused, for the model.
pub(super) fn refused(e: BackgroundError) -> ToolError {
    ToolError::model(e.to_string())
}

/// How shell `id` stands and its new output, with the sandbox's hint when it has one.
pub(crate) fn report(id: &str, status: ShellStatus, out: &Unread, hint: Option<&str>) -> String {
    let mut text = format!("Background shell {id}: {}.\n", status.describe());
    if out.dropped > 0 {
        let whole = match (&out.file, &out.save_error) {
            (Some(file), _) => format!("; the complete output is in {}", to_slash(file)),
            (None, Some(e)) => format!("; it could not be saved ({e})"),
            (None, None) => String::new(),
        };
        text.push_str(&format!(
            "({} bytes of earlier new output were dropped from memory{whole}.)\n",
            out.dropped
        ));
    }
    if out.text.is_empty() {
        text.push_str("(no new output)");
    } else {
        text.push_str("<output>\n");
        text.push_str(&out.text);
        if !out.text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("</output>");
    }
    if let Some(hint) = hint {
        text.push_str("\n\n");
        text.push_str(hint);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_names_the_shell_its_state_and_the_dropped_part() {
        let out = Unread {
            text: "ready".into(),
            dropped: 12,
            file: Some("/data/tool-output/x".into()),
            save_error: None,
        };
        let text = report(
            "bg_2",
            ShellStatus::Exited { code: Some(1) },
            &out,
            Some("sandbox: no"),
        );
        assert_eq!(
            text,
            "Background shell bg_2: exited with status 1.\n(12 bytes of earlier new output \
             were dropped from memory; the complete output is in /data/tool-output/x.)\n\
             <output>\nready\n</output>\n\nsandbox: no"
        );
        let none = report("bg_1", ShellStatus::Running, &Unread::default(), None);
        assert_eq!(none, "Background shell bg_1: running.\n(no new output)");
    }
}
