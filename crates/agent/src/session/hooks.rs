//! Claude Code's hooks at the loop's events: `SessionStart`, `UserPromptSubmit`, `Stop` and
//! `SubagentStop`, `PreCompact`, `Notification` (a permission ask waits) and `SessionEnd`.
//! The tool events run in the tool wrapper (`strata_tools::layers::hooks`); this module only
//! records their runs. Every run becomes a `session.hook` event, so front-ends and
//! `strata session show` see what ran, how long it took and what it said. A hook never ends
//! the session by failing: hung and missing hooks are warnings in their record.

use serde_json::{Value, json};
use strata_protocol::event::{HookEventData, HookOutcomeRecord, HookRecord, kinds};
use strata_services::hooks::{Decision, HookEvent, HookRun, Hooks};
use strata_services::permission::{Permission, PermissionEvent};

use super::record::Recorder;
use crate::store::{Store, StoreError};

/// The stored form of one run; `call` is `(call id, tool)` for the tool events.
pub fn record_of(run: &HookRun, call: Option<(&str, &str)>) -> HookRecord {
    let o = &run.outcome;
    let decision = o.decision.as_ref().map(|(d, _)| match d {
        Decision::Allow => "allow",
        Decision::Deny => "deny",
        Decision::Ask => "ask",
    });
    HookRecord {
        event: run.event.name().to_string(),
        command: run.command.clone(),
        file: run.file.clone(),
        exit_code: run.code,
        duration_ms: u64::try_from(run.took.as_millis()).unwrap_or(u64::MAX),
        call_id: call.map(|(id, _)| id.to_string()),
        tool: call.map(|(_, tool)| tool.to_string()),
        outcome: HookOutcomeRecord {
            blocked: o.block.clone(),
            decision: decision.map(str::to_string),
            reason: o.decision.as_ref().and_then(|(_, r)| r.clone()),
            context: o.context.clone(),
            stop: o.stop.clone(),
            warning: o.warning.clone(),
            output: o.output.clone(),
        },
    }
}

/// Every hook run recorded in a session, oldest first.
pub fn runs(store: &Store, session_id: &str) -> Result<Vec<HookRecord>, StoreError> {
    Ok(store
        .events_since(session_id, 0)?
        .into_iter()
        .filter(|e| e.kind == kinds::SESSION_HOOK)
        .filter_map(|e| serde_json::from_value(e.data.get("hook")?.clone()).ok())
        .collect())
}

/// One line for a run: `PreToolUse ./guard.sh (bash): exit 2 in 12 ms, blocked: …`.
pub fn summary(r: &HookRecord) -> String {
    let tool = r
        .tool
        .as_deref()
        .map_or(String::new(), |t| format!(" ({t})"));
    let code = r
        .exit_code
        .map_or_else(|| "no exit code".to_string(), |c| format!("exit {c}"));
    let o = &r.outcome;
    let said = [
        o.blocked.as_ref().map(|b| format!("blocked: {b}")),
        o.decision.as_ref().map(|d| format!("decision: {d}")),
        o.context.as_ref().map(|_| "added context".to_string()),
        o.stop.as_ref().map(|s| format!("stopped: {s}")),
        o.warning.as_ref().map(|w| format!("warning: {w}")),
        o.output
            .as_deref()
            .map(|out| format!("printed: {}", first_line(out))),
    ];
    let said: Vec<String> = said.into_iter().flatten().collect();
    let tail = if said.is_empty() {
        String::new()
    } else {
        format!(", {}", said.join("; "))
    };
    format!(
        "{} {}{tool}: {code} in {} ms{tail}",
        r.event, r.command, r.duration_ms
    )
}

/// The first line of `text`, at most 80 characters, with `…` when anything was left out.
fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    let mut out: String = line.chars().take(80).collect();
    if out.len() < text.trim_end().len() {
        out.push('…');
    }
    out
}

/// Stores one run as a `session.hook` event.
pub fn record(rec: &Recorder, run: &HookRun, call: Option<(&str, &str)>) -> Result<(), StoreError> {
    if let Some(w) = &run.outcome.warning {
        tracing::warn!(target: "strata::hooks", session = %rec.session_id(), "{w}");
    }
    let data = HookEventData {
        session_id: rec.session_id().to_string(),
        hook: record_of(run, call),
    };
    let value = serde_json::to_value(&data).unwrap_or(Value::Null);
    rec.event(kinds::SESSION_HOOK, value)?;
    Ok(())
}

/// What the runs of one loop event ask of the loop.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Exit 2 or `decision: "block"`: the first reason.
    pub blocked: Option<String>,
    /// `continue: false`: the first reason.
    pub stop: Option<String>,
    /// Text for the model's context, in run order.
    pub context: Vec<String>,
}

impl Verdict {
    fn of(runs: &[HookRun]) -> Verdict {
        let mut v = Verdict::default();
        for run in runs {
            let o = &run.outcome;
            if v.blocked.is_none() {
                v.blocked.clone_from(&o.block);
            }
            if v.stop.is_none() {
                v.stop.clone_from(&o.stop);
            }
            v.context.extend(o.context.clone());
        }
        v
    }
}

/// Runs the hooks of a loop event for `rec`'s session and records each run.
pub async fn fire(
    hooks: Option<&Hooks>,
    rec: &Recorder,
    event: HookEvent,
    fields: Value,
) -> Result<Verdict, StoreError> {
    let Some(hooks) = hooks.filter(|h| h.has(event)) else {
        return Ok(Verdict::default());
    };
    let runs = hooks.run(event, None, rec.session_id(), fields).await;
    for run in &runs {
        record(rec, run, None)?;
    }
    Ok(Verdict::of(&runs))
}

/// `SessionStart`, once per session and process: `startup` for a new session, `resume` for
/// one that already has messages.
pub async fn session_start(
    hooks: Option<&Hooks>,
    rec: &Recorder,
    has_messages: impl FnOnce() -> bool,
) -> Result<Verdict, StoreError> {
    let Some(hooks) = hooks.filter(|h| h.has(HookEvent::SessionStart)) else {
        return Ok(Verdict::default());
    };
    if !hooks.first_start(rec.session_id()) {
        return Ok(Verdict::default());
    }
    let source = if has_messages() { "resume" } else { "startup" };
    fire(
        Some(hooks),
        rec,
        HookEvent::SessionStart,
        json!({"source": source}),
    )
    .await
}

/// `SessionEnd` for `session_id` with Claude Code's `reason` (`clear`, `logout`,
/// `prompt_input_exit`, `other`), each run recorded in the session. The front-end calls it
/// once, when the session is over for this process.
pub async fn session_end(
    hooks: &Hooks,
    store: &Store,
    session_id: &str,
    reason: &str,
) -> Result<(), StoreError> {
    if !hooks.has(HookEvent::SessionEnd) {
        return Ok(());
    }
    let rec = Recorder::new(store.clone(), session_id, None);
    let fields = json!({"reason": reason});
    fire(Some(hooks), &rec, HookEvent::SessionEnd, fields).await?;
    Ok(())
}

/// The text a hook's context is added to the conversation as.
pub fn context_text(event: HookEvent, context: &[String]) -> Option<String> {
    (!context.is_empty()).then(|| format!("Context from the {event} hook:\n{}", context.join("\n")))
}

/// The message that sends the model back to work when a `Stop` hook blocks.
pub fn stop_blocked_text(event: HookEvent, reason: &str) -> String {
    format!("The {event} hook asks you to go on before finishing: {reason}")
}

/// While it lives, every permission ask of the session that waits for a reply runs the
/// `Notification` hooks. Dropping it stops listening (hooks already started finish).
#[derive(Debug)]
pub struct Notifier(Option<tokio::task::JoinHandle<()>>);

impl Drop for Notifier {
    fn drop(&mut self) {
        if let Some(task) = self.0.take() {
            task.abort();
        }
    }
}

/// Starts the [`Notifier`] of `rec`'s session.
pub fn notify_on_asks(hooks: Option<&Hooks>, rec: &Recorder, permission: &Permission) -> Notifier {
    let Some(hooks) = hooks.filter(|h| h.has(HookEvent::Notification)).cloned() else {
        return Notifier(None);
    };
    let mut events = permission.subscribe();
    let rec = rec.clone();
    Notifier(Some(tokio::spawn(async move {
        loop {
            let event = match events.recv().await {
                Ok(e) => e,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(_) => return,
            };
            let PermissionEvent::Asked(req) = event else {
                continue;
            };
            if req.session_id != rec.session_id() {
                continue;
            }
            let message = format!(
                "Strata needs your permission to use {} ({})",
                req.permission,
                req.patterns.join(", ")
            );
            let fields = json!({"message": message, "title": "Permission needed"});
            // Each notice runs on its own, so the end of the turn does not cut it short.
            let (hooks, rec) = (hooks.clone(), rec.clone());
            tokio::spawn(async move {
                if let Err(e) = fire(Some(&hooks), &rec, HookEvent::Notification, fields).await {
                    tracing::warn!(target: "strata::hooks", "a Notification hook run was not recorded: {e}");
                }
            });
        }
    })))
}
