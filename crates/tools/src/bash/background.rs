//! `bash` with `run_in_background` (spec §7.6), and how a background shell's state reads for
//! the model: the wording `bash` and `bash_output` share.

use strata_services::background::{BackgroundError, ShellStatus, Started, Unread};
use strata_services::fs::to_slash;
use strata_services::process::{CommandSpec, ProcessError};

use super::tool::{Admitted, Bash, BashParams, missing_workdir};
use crate::contract::{ToolCx, ToolError, ToolResult};

impl Bash {
    /// An admitted `run_in_background` call: started in its own group, answered at once.
    pub(super) async fn run_background(
        &self,
        p: BashParams,
        admitted: Admitted,
        cx: &ToolCx,
    ) -> Result<ToolResult, ToolError> {
        // Cancelled while asking: nothing has run yet, so nothing should.
        if cx.abort.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        let spec = CommandSpec::shell(&self.shell.path, &p.command).cwd(&admitted.cwd);
        let title = (p.description.as_deref())
            .filter(|d| !d.trim().is_empty())
            .map_or_else(|| p.command.clone(), str::to_string);
        self.start_background(&p.command, title, spec, admitted.escape.is_some(), cx)
            .await
    }

    /// Spec §7.6: starts `spec` as a background shell of the call's session (in the sandbox
    /// unless `escaped`) and returns its id and first output.
    async fn start_background(
        &self,
        command: &str,
        title: String,
        spec: CommandSpec,
        escaped: bool,
        cx: &ToolCx,
    ) -> Result<ToolResult, ToolError> {
        let (spec, sandbox) = if escaped {
            (spec, None)
        } else {
            let held = self.sandbox.command(spec, &cx.session_id);
            (held, Some(self.sandbox.clone()))
        };
        let shell = self
            .background
            .start(&cx.session_id, command, spec, sandbox)
            .await
            .map_err(|e| match e {
                BackgroundError::Spawn(ProcessError::CwdMissing { cwd, .. }) => {
                    missing_workdir(&cwd)
                }
                other => refused(other),
            })?;
        Ok(started(command, title, &shell))
    }
}

/// The result of starting a background shell.
fn started(command: &str, title: String, s: &Started) -> ToolResult {
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
fn refused(e: BackgroundError) -> ToolError {
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
