//! Restart recovery: a turn that was running when its server died is closed. Its unfinished
//! tool calls become errors saying the server stopped, and its session gets a `session.error`
//! and goes idle. Nothing else changes in the store. (Prompts still waiting in a dead server's
//! queue were never stored; their HTTP requests failed with the connection.)
//!
//! Swappable: the `ops` work on run ownership (pid + start time) replaces the "every busy
//! session is orphaned" rule once it lands; this module is the one place that decides.

use serde_json::{Value, json};
use strata_agent::store::{Store, now_ms};
use strata_protocol::event::{SessionStatus, StatusEvent, kinds};
use strata_protocol::message::ErrorInfo;

use super::CoreError;

/// What the model and the user see on a call cut short by a server stop.
pub const STOPPED: &str = "The server stopped while this tool call was running; it did not finish.";

/// Closes every turn a stopped server left open; returns how many sessions were closed.
pub fn close_orphaned_turns(store: &Store) -> Result<usize, CoreError> {
    let now = now_ms();
    for part in store.unfinished_tool_parts()? {
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
    }
    let busy = store.busy_sessions()?;
    for session_id in &busy {
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
    Ok(busy.len())
}
