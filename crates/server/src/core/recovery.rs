//! Restart recovery: a turn that was running when its server died is closed. The agent's own
//! recovery ends the process groups the dead server's tools started and closes their calls as
//! interrupted; a run that another live process owns (a `strata run` beside the server) is
//! left alone. Each session whose turn died gets a `session.error` saying the server stopped,
//! and goes idle. Prompts that were still waiting in the dead server's queue never ran: each
//! is reported on its session as a `session.error` quoting it, so the user can send it again.
//! Nothing else changes in the store.

use serde_json::{Value, json};
use strata_agent::recover::{live_sessions, lost_prompts, recover_all};
use strata_agent::store::{Store, now_ms};
use strata_protocol::event::{SessionStatus, StatusEvent, kinds};
use strata_protocol::message::ErrorInfo;

use super::CoreError;

/// What the model and the user see on a call cut short by a server stop when no run record
/// says which process owned it.
pub const STOPPED: &str = "The server stopped while this tool call was running; it did not finish.";

/// Closes every turn a stopped server left open; returns how many sessions were closed.
pub fn close_orphaned_turns(store: &Store) -> Result<usize, CoreError> {
    let live = live_sessions(store)?;
    let orphaned: Vec<String> = store
        .busy_sessions()?
        .into_iter()
        .filter(|s| !live.contains(s))
        .collect();
    let recovery = recover_all(store)?;
    if recovery.ended_groups > 0 {
        tracing::warn!(
            groups = recovery.ended_groups,
            "ended process groups left by a stopped server"
        );
    }
    // Calls of a busy session without a run record (the run had not begun) are closed here.
    for part in store.unfinished_tool_parts()? {
        if orphaned.contains(&part.session_id) {
            close_part(store, part)?;
        }
    }
    for session_id in &orphaned {
        let error = ErrorInfo::new(
            "ServerStoppedError",
            "The server stopped while this session's turn was running; send the prompt again to continue.",
        );
        store.record_event(
            session_id,
            kinds::SESSION_ERROR,
            json!({"sessionID": session_id, "error": error}),
        )?;
        let idle = StatusEvent {
            session_id: session_id.clone(),
            status: SessionStatus::Idle,
        };
        let idle = serde_json::to_value(idle).map_err(|e| CoreError::Internal(e.to_string()))?;
        store.record_event(session_id, kinds::SESSION_STATUS, idle)?;
    }
    for prompt in lost_prompts(store)? {
        let error = ErrorInfo::new("ServerStoppedError", &lost_prompt_message(&prompt.text));
        store.record_event(
            &prompt.session_id,
            kinds::SESSION_ERROR,
            json!({"sessionID": prompt.session_id, "error": error}),
        )?;
        store.unqueue_prompt(&prompt.id)?;
    }
    Ok(orphaned.len())
}

/// What the user reads about a queued prompt that never ran: its start, and what to do.
fn lost_prompt_message(text: &str) -> String {
    const SHOWN: usize = 80;
    let mut quoted: String = text.chars().take(SHOWN).collect();
    if text.chars().count() > SHOWN {
        quoted.push('…');
    }
    format!(
        "The server stopped before this queued prompt ran, so it was not sent: \"{quoted}\". \
         Send it again to run it."
    )
}

fn close_part(store: &Store, part: strata_agent::store::Part) -> Result<(), CoreError> {
    let now = now_ms();
    let mut data = part.data.clone();
    let input = data
        .get("state")
        .and_then(|s| s.get("input"))
        .cloned()
        .unwrap_or_else(|| json!({}));
    let start = data
        .get("state")
        .and_then(|s| s.get("time"))
        .and_then(|t| t.get("start"))
        .and_then(Value::as_i64)
        .unwrap_or(now);
    data["state"] = json!({
        "status": "error",
        "input": input,
        "error": STOPPED,
        "time": {"start": start, "end": now},
    });
    store.upsert_part(
        &part.session_id,
        &part.message_id,
        Some(&part.id),
        &part.kind,
        data,
    )?;
    Ok(())
}
