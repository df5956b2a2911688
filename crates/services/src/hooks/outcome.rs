//! What one hook run means, as Claude Code defines it: exit 0 goes on (JSON on stdout is
//! honoured, and plain stdout becomes context for `UserPromptSubmit` and `SessionStart`);
//! exit 2 blocks, with stderr as the reason; any other exit, a timeout or a missing command
//! is a warning, never a stop.

use std::time::Duration;

use serde_json::Value;

use super::HookEvent;

/// How a hook process ended.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunResult {
    /// `None` when a signal ended it or it never started.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: Option<Duration>,
    /// The command could not be started (or the shell could not find it: exit 127).
    pub missing: bool,
}

/// A `PreToolUse` hook's say on the permission for the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Allow,
    Deny,
    Ask,
}

/// What a run asks of the agent. Several runs of one event are combined by the caller.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HookOutcome {
    /// Exit 2 or `decision: "block"`: the reason. A `PreToolUse` refuses the call, a
    /// `UserPromptSubmit` drops the prompt, a `Stop` keeps the loop going, a `PostToolUse`
    /// tells the model.
    pub block: Option<String>,
    /// `PreToolUse` only: the permission decision and its reason.
    pub decision: Option<(Decision, Option<String>)>,
    /// Text added to the model's context.
    pub context: Option<String>,
    /// `continue: false`: the session stops, with this reason for the user.
    pub stop: Option<String>,
    /// `suppressOutput: true`: the hook's stdout is left out of its record.
    pub suppress_output: bool,
    /// What the hook printed on stdout, for its record (Claude Code's transcript): its first
    /// [`OUTPUT_LIMIT`] characters, then a note of the bytes left out; `None` when it printed
    /// nothing or set `suppressOutput`.
    pub output: Option<String>,
    /// For the user: a failed, timed-out or missing hook, or unreadable JSON.
    pub warning: Option<String>,
}

/// The most of a hook's stdout its record keeps, in characters.
pub const OUTPUT_LIMIT: usize = 2000;

/// Reads the run of `command` for `event`; `file` is where the hook was configured.
pub fn interpret(event: HookEvent, command: &str, file: &str, run: &RunResult) -> HookOutcome {
    let mut out = read_run(event, command, file, run);
    if !out.suppress_output {
        out.output = recorded_output(run.stdout.trim());
    }
    out
}

/// The stdout a record keeps: cut at [`OUTPUT_LIMIT`] characters, saying how much was left out.
fn recorded_output(stdout: &str) -> Option<String> {
    if stdout.is_empty() {
        return None;
    }
    match stdout.char_indices().nth(OUTPUT_LIMIT) {
        None => Some(stdout.to_string()),
        Some((cut, _)) => Some(format!(
            "{}\n… ({} more bytes not recorded)",
            &stdout[..cut],
            stdout.len() - cut
        )),
    }
}

fn read_run(event: HookEvent, command: &str, file: &str, run: &RunResult) -> HookOutcome {
    let mut out = HookOutcome::default();
    if run.missing {
        out.warning = Some(format!(
            "the {event} hook `{command}` (from {file}) could not be run: the command was not found; fix or remove it there"
        ));
        return out;
    }
    if let Some(after) = run.timed_out {
        out.warning = Some(format!(
            "the {event} hook `{command}` (from {file}) was stopped after {}s; raise its `timeout` or make it faster",
            after.as_secs_f64()
        ));
        return out;
    }
    let stderr = run.stderr.trim();
    match run.code {
        Some(0) => from_stdout(event, command, run.stdout.trim(), &mut out),
        Some(2) if can_block(event) => {
            out.block = Some(if stderr.is_empty() {
                format!("blocked by the {event} hook `{command}`")
            } else {
                stderr.to_string()
            });
        }
        code => {
            let how = code.map_or_else(
                || "was ended by a signal".to_string(),
                |c| format!("exited with {c}"),
            );
            let detail = if stderr.is_empty() {
                String::new()
            } else {
                format!(": {stderr}")
            };
            out.warning = Some(format!("the {event} hook `{command}` {how}{detail}"));
        }
    }
    out
}

/// Events whose exit 2 means something to the agent; for the others stderr is only shown.
fn can_block(event: HookEvent) -> bool {
    matches!(
        event,
        HookEvent::PreToolUse
            | HookEvent::PostToolUse
            | HookEvent::UserPromptSubmit
            | HookEvent::Stop
            | HookEvent::SubagentStop
    )
}

fn from_stdout(event: HookEvent, command: &str, stdout: &str, out: &mut HookOutcome) {
    if stdout.starts_with('{') {
        match serde_json::from_str::<Value>(stdout) {
            Ok(Value::Object(json)) => return from_json(event, &Value::Object(json), out),
            _ => {
                out.warning = Some(format!(
                    "the {event} hook `{command}` printed output that starts like JSON but is not valid JSON; it was ignored"
                ));
                return;
            }
        }
    }
    let adds_context = matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart);
    if adds_context && !stdout.is_empty() {
        out.context = Some(stdout.to_string());
    }
}

fn from_json(event: HookEvent, json: &Value, out: &mut HookOutcome) {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    if json.get("continue").and_then(Value::as_bool) == Some(false) {
        out.stop = Some(
            text(json, "stopReason")
                .unwrap_or_else(|| format!("a {event} hook stopped the session")),
        );
    }
    out.suppress_output = json.get("suppressOutput").and_then(Value::as_bool) == Some(true);
    let reason = text(json, "reason");
    match json.get("decision").and_then(Value::as_str) {
        Some("block") if event == HookEvent::PreToolUse => {
            out.decision = Some((Decision::Deny, reason))
        }
        Some("block") if can_block(event) => {
            out.block = Some(reason.unwrap_or_else(|| format!("blocked by a {event} hook")));
        }
        Some("approve") if event == HookEvent::PreToolUse => {
            out.decision = Some((Decision::Allow, reason))
        }
        _ => {}
    }
    let Some(specific) = json.get("hookSpecificOutput") else {
        return;
    };
    if event == HookEvent::PreToolUse {
        let decision = match specific.get("permissionDecision").and_then(Value::as_str) {
            Some("allow") => Some(Decision::Allow),
            Some("deny") => Some(Decision::Deny),
            Some("ask") => Some(Decision::Ask),
            _ => None,
        };
        if let Some(d) = decision {
            out.decision = Some((d, text(specific, "permissionDecisionReason")));
        }
    }
    if let Some(context) = text(specific, "additionalContext").filter(|c| !c.trim().is_empty()) {
        out.context = Some(context);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran(code: i32, stdout: &str, stderr: &str) -> RunResult {
        RunResult {
            code: Some(code),
            stdout: stdout.into(),
            stderr: stderr.into(),
            ..RunResult::default()
        }
    }

    fn read(event: HookEvent, run: &RunResult) -> HookOutcome {
        interpret(event, "./hook.sh", ".claude/settings.json", run)
    }

    #[test]
    fn exit_codes() {
        assert_eq!(
            read(HookEvent::PreToolUse, &ran(0, "fine\n", "")),
            HookOutcome {
                output: Some("fine".into()),
                ..HookOutcome::default()
            }
        );
        let blocked = read(HookEvent::PreToolUse, &ran(2, "", "no rm -rf here\n"));
        assert_eq!(blocked.block.as_deref(), Some("no rm -rf here"));
        let warned = read(HookEvent::PreToolUse, &ran(1, "", "oops"));
        assert_eq!(
            warned.warning.as_deref(),
            Some("the PreToolUse hook `./hook.sh` exited with 1: oops")
        );
        assert!(warned.block.is_none());
        let shown_only = read(HookEvent::SessionStart, &ran(2, "", "nope"));
        assert!(shown_only.block.is_none() && shown_only.warning.is_some());
    }

    #[test]
    fn plain_stdout_is_context_for_prompts_and_session_start() {
        assert_eq!(
            read(
                HookEvent::UserPromptSubmit,
                &ran(0, "today is Tuesday\n", "")
            )
            .context
            .as_deref(),
            Some("today is Tuesday")
        );
        assert_eq!(
            read(HookEvent::SessionStart, &ran(0, "branch: main", ""))
                .context
                .as_deref(),
            Some("branch: main")
        );
        assert!(
            read(HookEvent::PostToolUse, &ran(0, "formatted", ""))
                .context
                .is_none()
        );
    }

    #[test]
    fn json_output_is_honoured() {
        let deny = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not on main"}}"#;
        assert_eq!(
            read(HookEvent::PreToolUse, &ran(0, deny, "")).decision,
            Some((Decision::Deny, Some("not on main".into())))
        );
        let ask = r#"{"hookSpecificOutput": {"permissionDecision": "ask"}}"#;
        assert_eq!(
            read(HookEvent::PreToolUse, &ran(0, ask, "")).decision,
            Some((Decision::Ask, None))
        );
        let old = r#"{"decision": "approve", "reason": "safe"}"#;
        assert_eq!(
            read(HookEvent::PreToolUse, &ran(0, old, "")).decision,
            Some((Decision::Allow, Some("safe".into())))
        );
        let keep_going = r#"{"decision": "block", "reason": "tests still fail"}"#;
        assert_eq!(
            read(HookEvent::Stop, &ran(0, keep_going, ""))
                .block
                .as_deref(),
            Some("tests still fail")
        );
        let stop = r#"{"continue": false, "stopReason": "budget spent", "suppressOutput": true}"#;
        let o = read(HookEvent::PostToolUse, &ran(0, stop, ""));
        assert_eq!(
            (o.stop.as_deref(), o.suppress_output),
            (Some("budget spent"), true)
        );
        let ctx = r#"{"hookSpecificOutput": {"additionalContext": "use pnpm"}}"#;
        assert_eq!(
            read(HookEvent::UserPromptSubmit, &ran(0, ctx, ""))
                .context
                .as_deref(),
            Some("use pnpm")
        );
        assert!(
            read(HookEvent::Stop, &ran(0, "{not json", ""))
                .warning
                .is_some()
        );
    }

    #[test]
    fn stdout_is_kept_for_the_record_unless_suppressed_and_cut_when_long() {
        let json =
            r#"{"suppressOutput": true, "hookSpecificOutput": {"additionalContext": "use pnpm"}}"#;
        let quiet = read(HookEvent::UserPromptSubmit, &ran(0, json, ""));
        assert_eq!(
            (quiet.output, quiet.context.as_deref()),
            (None, Some("use pnpm"))
        );
        let shown = read(HookEvent::Stop, &ran(0, r#"{"suppressOutput": false}"#, ""));
        assert_eq!(
            shown.output.as_deref(),
            Some(r#"{"suppressOutput": false}"#)
        );
        assert_eq!(read(HookEvent::Stop, &ran(0, "\n", "")).output, None);
        let long = "é".repeat(OUTPUT_LIMIT + 10);
        let cut = read(HookEvent::PostToolUse, &ran(1, &long, ""))
            .output
            .unwrap();
        assert!(cut.starts_with(&"é".repeat(OUTPUT_LIMIT)), "{cut}");
        assert!(cut.ends_with("… (20 more bytes not recorded)"), "{cut}");
    }

    #[test]
    fn missing_and_slow_hooks_are_warnings_naming_the_file() {
        let missing = RunResult {
            missing: true,
            ..RunResult::default()
        };
        let w = read(HookEvent::Stop, &missing).warning.unwrap();
        assert!(
            w.contains("not found") && w.contains(".claude/settings.json"),
            "{w}"
        );
        let slow = RunResult {
            timed_out: Some(Duration::from_secs(2)),
            ..RunResult::default()
        };
        let w = read(HookEvent::Stop, &slow).warning.unwrap();
        assert!(
            w.contains("stopped after 2s") && w.contains("timeout"),
            "{w}"
        );
    }
}
