//! What the runs of one tool event add up to, and the words the model reads about them.
//! Several hooks may answer one call: a refusal wins, then `deny` over `ask` over `allow`
//! (the strictest answer holds, as in Claude Code); every piece of feedback and context is kept.

use strata_services::hooks::{Decision, HookEvent, HookRun};

/// The runs of one event, combined.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Combined {
    /// `PreToolUse` only: the call does not run; the text is what the model reads.
    pub refused: Option<String>,
    /// `PreToolUse` only: `allow` or `ask` (a `deny` is a refusal), with the hook's reason.
    pub decision: Option<(Decision, Option<String>)>,
    /// `continue: false`: the turn ends, with this reason.
    pub stop: Option<String>,
    /// Feedback and context for the model, added after the tool's output.
    pub notes: Vec<String>,
}

/// Combines the runs of one tool event, in the order they ran.
pub fn combine(runs: &[HookRun]) -> Combined {
    let mut out = Combined::default();
    for run in runs {
        let o = &run.outcome;
        if let Some(reason) = &o.block {
            if run.event == HookEvent::PreToolUse {
                out.refused.get_or_insert_with(|| refusal(reason));
            } else {
                out.notes.push(format!(
                    "The {} hook `{}` reported: {reason}",
                    run.event, run.command
                ));
            }
        }
        match &o.decision {
            Some((Decision::Deny, reason)) => {
                let reason = reason.as_deref().unwrap_or("no reason was given");
                out.refused.get_or_insert_with(|| refusal(reason));
            }
            Some((Decision::Ask, reason)) => out.decision = Some((Decision::Ask, reason.clone())),
            Some((Decision::Allow, reason)) if out.decision.is_none() => {
                out.decision = Some((Decision::Allow, reason.clone()));
            }
            _ => {}
        }
        if let Some(context) = &o.context {
            out.notes
                .push(format!("Context from the {} hook: {context}", run.event));
        }
        if let (Some(stop), None) = (&o.stop, &out.stop) {
            out.stop = Some(stop.clone());
        }
    }
    out
}

fn refusal(reason: &str) -> String {
    format!("A PreToolUse hook refused this call, so it did not run: {reason}")
}

/// `output` with the notes after it, one paragraph each.
pub fn with_notes(output: &str, notes: &[String]) -> String {
    let mut out = output.to_string();
    for note in notes {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(note);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use strata_services::hooks::HookOutcome;

    use super::*;

    fn run(event: HookEvent, outcome: HookOutcome) -> HookRun {
        HookRun {
            event,
            command: "./h.sh".into(),
            file: ".claude/settings.json".into(),
            code: Some(0),
            took: Duration::ZERO,
            outcome,
        }
    }

    #[test]
    fn a_refusal_or_deny_beats_ask_beats_allow() {
        let allow = HookOutcome {
            decision: Some((Decision::Allow, None)),
            ..HookOutcome::default()
        };
        let ask = HookOutcome {
            decision: Some((Decision::Ask, Some("check".into()))),
            ..HookOutcome::default()
        };
        let c = combine(&[
            run(HookEvent::PreToolUse, allow.clone()),
            run(HookEvent::PreToolUse, ask),
            run(HookEvent::PreToolUse, allow.clone()),
        ]);
        assert_eq!(c.decision, Some((Decision::Ask, Some("check".into()))));
        assert!(c.refused.is_none());
        let blocked = HookOutcome {
            block: Some("no rm".into()),
            ..HookOutcome::default()
        };
        let c = combine(&[
            run(HookEvent::PreToolUse, allow),
            run(HookEvent::PreToolUse, blocked),
        ]);
        assert_eq!(
            c.refused.as_deref(),
            Some("A PreToolUse hook refused this call, so it did not run: no rm")
        );
    }

    #[test]
    fn post_tool_feedback_and_context_become_notes() {
        let c = combine(&[
            run(
                HookEvent::PostToolUse,
                HookOutcome {
                    block: Some("lint failed: a.rs:3".into()),
                    ..HookOutcome::default()
                },
            ),
            run(
                HookEvent::PostToolUse,
                HookOutcome {
                    context: Some("formatted with rustfmt".into()),
                    ..HookOutcome::default()
                },
            ),
        ]);
        assert!(c.refused.is_none());
        assert_eq!(
            with_notes("ok", &c.notes),
            "ok\n\nThe PostToolUse hook `./h.sh` reported: lint failed: a.rs:3\n\nContext from the PostToolUse hook: formatted with rustfmt"
        );
    }
}
