//! Recovery after a run was killed (SIGKILL, a crash, a power cut): the tool parts it left
//! `pending` or `running` are closed as errors saying the run was interrupted, open text and
//! reasoning parts get their end, unfinished answers are closed as failed, and the process
//! groups its tools started are ended.
//!
//! A run's owner is recorded as a [`ProcessIdentity`] (pid, start time, boot), so an owner
//! that still runs — in this process or another — is never touched, even when its pid was
//! reused. Callers: opening a session to resume, show or export it ([`recover_session`]), and
//! a server at start-up for every session ([`recover_all`]).

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::{Map, Value};
use strata_protocol::event::{SessionStatus, StatusEvent};
use strata_protocol::message::{AssistantMessage, ErrorInfo};
use strata_protocol::part::PartData;
use strata_protocol::tool::{Failed, Span, ToolPart, ToolState};
use strata_services::process::{ProcessIdentity, end_orphan_group};

use crate::events::kinds;
use crate::store::{Message, Part, Role, Store, StoreError, now_ms};

/// What the model and the user read on a call whose run was killed.
pub const INTERRUPTED: &str = "The run was interrupted before this call finished (its process \
     ended unexpectedly). Its result is unknown; check its effects and run it again if needed.";

/// What a recovery did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Recovery {
    /// Runs whose owner was gone, now marked ended.
    pub dead_runs: usize,
    /// Parts and answers closed as interrupted.
    pub closed_parts: usize,
    /// Process groups of dead owners that were signalled.
    pub ended_groups: usize,
}

/// Recovers session `session_id` if a dead process left it mid-run. Safe to call on every
/// open: it changes nothing while the session's runs are alive or ended cleanly.
pub fn recover_session(store: &Store, session_id: &str) -> Result<Recovery, StoreError> {
    let runs = store.open_runs(Some(session_id))?;
    let (dead, live): (Vec<_>, Vec<_>) = runs.into_iter().partition(|r| !owner_alive(&r.owner));
    let mut out = Recovery::default();
    if dead.is_empty() {
        return Ok(out);
    }
    let owners: BTreeSet<_> = dead.iter().map(|r| owner_key(&r.owner)).collect();
    out.ended_groups = end_groups_of(store, |o| owners.contains(&owner_key(o)))?;
    // A live run in another process owns whatever it started; only older parts are orphans.
    let before = live.iter().map(|r| r.started_ms).min();
    out.closed_parts = close_parts(store, session_id, before)?;
    if out.closed_parts > 0 {
        let status = StatusEvent {
            session_id: session_id.to_string(),
            status: SessionStatus::Idle,
        };
        let data = serde_json::to_value(&status).unwrap_or(Value::Null);
        store.record_event(session_id, kinds::SESSION_STATUS, data)?;
    }
    for run in &dead {
        store.end_run(run.id)?;
    }
    out.dead_runs = dead.len();
    Ok(out)
}

/// [`recover_session`] for every session with a run whose owner is gone, and ends the
/// process groups of every dead owner (also those of `strata tool` processes, which have no
/// run). For a server at start-up.
pub fn recover_all(store: &Store) -> Result<Recovery, StoreError> {
    let mut out = Recovery {
        ended_groups: end_groups_of(store, |o| !owner_alive(o))?,
        ..Recovery::default()
    };
    let sessions: BTreeSet<String> = store
        .open_runs(None)?
        .into_iter()
        .filter(|r| !owner_alive(&r.owner))
        .map(|r| r.session_id)
        .collect();
    for session in sessions {
        let one = recover_session(store, &session)?;
        out.dead_runs += one.dead_runs;
        out.closed_parts += one.closed_parts;
        out.ended_groups += one.ended_groups;
    }
    Ok(out)
}

/// Sessions with a run whose owner still runs, in this process or another: nothing may close
/// their turns.
pub fn live_sessions(store: &Store) -> Result<BTreeSet<String>, StoreError> {
    Ok(store
        .open_runs(None)?
        .into_iter()
        .filter(|r| owner_alive(&r.owner))
        .map(|r| r.session_id)
        .collect())
}

/// Queued prompts whose holder is gone: they will never run.
pub fn lost_prompts(store: &Store) -> Result<Vec<crate::store::QueuedPrompt>, StoreError> {
    Ok(store
        .queued_prompts()?
        .into_iter()
        .filter(|q| !owner_alive(&q.owner))
        .collect())
}

fn owner_alive(owner: &ProcessIdentity) -> bool {
    // This process is alive by definition, even where `/proc` cannot be read.
    ProcessIdentity::current().is_some_and(|me| me == *owner) || owner.is_alive()
}

fn owner_key(o: &ProcessIdentity) -> (u32, u64, String) {
    (o.pid, o.start_ticks, o.boot_id.clone())
}

/// Ends and forgets the recorded groups whose owner `dead` picks; returns how many were
/// signalled.
fn end_groups_of(
    store: &Store,
    dead: impl Fn(&ProcessIdentity) -> bool,
) -> Result<usize, StoreError> {
    let mut ended = 0;
    for g in store.recorded_groups()? {
        if !dead(&g.owner) {
            continue;
        }
        if end_orphan_group(g.pgid, g.leader_start_ticks, &g.owner.boot_id) {
            tracing::info!(pgid = g.pgid, command = %g.command, "ended a process group left by a killed run");
            ended += 1;
        }
        store.forget_group(&g.owner, g.pgid)?;
    }
    Ok(ended)
}

/// Messages read at a time, so a long session is never held whole.
const CHUNK: usize = 200;

/// Closes what the killed run left open in the session's messages (those created before
/// `before`, when given): tool parts as interrupted, text and reasoning parts with an end
/// time, and assistant messages as failed with [`INTERRUPTED_ANSWER`]; each with its event.
/// Returns how many parts and messages it closed.
fn close_parts(store: &Store, session_id: &str, before: Option<i64>) -> Result<usize, StoreError> {
    let now = now_ms();
    let mut closed = 0;
    let mut after: Option<String> = None;
    loop {
        let chunk = store.messages_after(session_id, after.as_deref(), CHUNK)?;
        let last = chunk.len() < CHUNK;
        after = chunk.last().map(|(m, _)| m.id.clone());
        for (message, parts) in chunk {
            // In the list's order: from here on every message is the live run's.
            if before.is_some_and(|b| message.created_ms >= b) {
                return Ok(closed);
            }
            closed += close_message(store, session_id, &message, parts, now)?;
        }
        if last {
            return Ok(closed);
        }
    }
}

/// [`close_parts`] for one message and its parts; returns how many it closed.
fn close_message(
    store: &Store,
    session_id: &str,
    message: &Message,
    parts: Vec<Part>,
    now: i64,
) -> Result<usize, StoreError> {
    let mut closed = 0;
    for part in parts {
        let Some(data) = PartData::of(&part).and_then(|d| closed_part(d, now)) else {
            continue;
        };
        store.upsert_part_with_event(
            session_id,
            &message.id,
            Some(&part.id),
            data.kind(),
            data.to_value(),
        )?;
        closed += 1;
    }
    if let Some(data) = closed_answer(message, now) {
        store.update_message_with_event(session_id, &message.id, data)?;
        closed += 1;
    }
    Ok(closed)
}

/// What the user reads on an answer whose run was killed.
pub const INTERRUPTED_ANSWER: &str = "The run was interrupted before this answer finished (its \
     process ended unexpectedly). Send the prompt again to continue.";

/// The closed form of a part the run left open; `None` for a finished one.
fn closed_part(data: PartData, now: i64) -> Option<PartData> {
    match data {
        PartData::Tool(tool) => interrupted(&tool, now).map(|t| PartData::Tool(Box::new(t))),
        PartData::Text(mut text) => {
            let time = text.time.as_mut().filter(|t| t.end.is_none())?;
            time.end = Some(now);
            Some(PartData::Text(text))
        }
        PartData::Reasoning(mut r) if r.time.end.is_none() => {
            r.time.end = Some(now);
            Some(PartData::Reasoning(r))
        }
        _ => None,
    }
}

/// An assistant message that never completed, completed now as failed; `None` otherwise.
fn closed_answer(message: &Message, now: i64) -> Option<Value> {
    if message.role != Role::Assistant {
        return None;
    }
    let mut answer = AssistantMessage::deserialize(&message.data).ok()?;
    if answer.time.completed.is_some() {
        return None;
    }
    answer.time.completed = Some(now);
    answer.error = Some(ErrorInfo::new("MessageAbortedError", INTERRUPTED_ANSWER));
    serde_json::to_value(&answer).ok()
}

/// The error state of an unfinished call; `None` for a finished one.
fn interrupted(tool: &ToolPart, now: i64) -> Option<ToolPart> {
    let (input, start, mut metadata) = match &tool.state {
        ToolState::Pending(p) => {
            let mut m = Map::new();
            m.insert("raw".into(), Value::String(p.raw.clone()));
            (p.input.clone(), now, m)
        }
        ToolState::Running(r) => (
            r.input.clone(),
            r.time.start,
            r.metadata.clone().unwrap_or_default(),
        ),
        ToolState::Completed(_) | ToolState::Error(_) => return None,
    };
    metadata.insert("interrupted".into(), Value::Bool(true));
    Some(ToolPart::with(
        &tool.call_id,
        &tool.tool,
        ToolState::Error(Failed {
            input,
            error: INTERRUPTED.to_string(),
            time: Span::new(start, now),
            metadata: Some(metadata),
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_unfinished_calls_are_closed_and_keep_their_input() {
        let running = ToolPart::from_value(&serde_json::json!({
            "callID": "c1", "tool": "bash",
            "state": {"status": "running", "input": {"command": "sleep 9"}, "time": {"start": 5}}
        }))
        .unwrap();
        let closed = interrupted(&running, 9).unwrap();
        assert_eq!(closed.state.status(), "error");
        assert_eq!(closed.state.input()["command"], "sleep 9");
        assert_eq!(closed.state.error(), Some(INTERRUPTED));
        assert_eq!(closed.state.metadata().unwrap()["interrupted"], true);
        let done = ToolPart::from_value(&serde_json::json!({
            "callID": "c2", "tool": "read", "state": {"status": "completed"}
        }))
        .unwrap();
        assert!(interrupted(&done, 9).is_none());
    }

    fn session_with_running_call(store: &Store) -> (String, String) {
        let dir = std::path::Path::new("/p");
        let session = store.create_session(dir, None).unwrap().id;
        let message = store
            .append_message(
                &session,
                Role::Assistant,
                serde_json::to_value(AssistantMessage::new(1, "build", "p", "m")).unwrap(),
            )
            .unwrap();
        let running = serde_json::json!({
            "callID": "c1", "tool": "bash",
            "state": {"status": "running", "input": {"command": "sleep 9"}, "time": {"start": 1}}
        });
        let part = store
            .upsert_part(&session, &message.id, None, "tool", running)
            .unwrap();
        (session, part.id)
    }

    fn status(store: &Store, session: &str) -> String {
        let parts = store.messages(session).unwrap().remove(0).1;
        parts[0].data["state"]["status"]
            .as_str()
            .unwrap()
            .to_string()
    }

    #[test]
    fn a_dead_owner_is_recovered_once_and_a_live_one_never() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let me = ProcessIdentity::current().unwrap();

        // Owned by this (live) process: untouched.
        let (live_session, _) = session_with_running_call(&store);
        store.begin_run(&live_session, &me).unwrap();
        assert_eq!(recover_all(&store).unwrap(), Recovery::default());
        assert_eq!(status(&store, &live_session), "running");

        // Same pid, another start time: the pid was reused, the owner is gone.
        let dead = ProcessIdentity {
            start_ticks: me.start_ticks + 1,
            ..me.clone()
        };
        let (session, _) = session_with_running_call(&store);
        store.begin_run(&session, &dead).unwrap();
        let seq = store.events_since(&session, 0).unwrap().len();
        let done = recover_session(&store, &session).unwrap();
        // The call and its unfinished answer.
        assert_eq!((done.dead_runs, done.closed_parts), (1, 2));
        assert_eq!(status(&store, &session), "error");
        let kinds: Vec<_> = store.events_since(&session, 0).unwrap()[seq..]
            .iter()
            .map(|e| e.kind.clone())
            .collect();
        assert_eq!(
            kinds,
            ["message.part.updated", "message.updated", "session.status"]
        );
        // The run is marked ended: a second open changes nothing.
        assert_eq!(
            recover_session(&store, &session).unwrap(),
            Recovery::default()
        );
        assert_eq!(status(&store, &live_session), "running");
    }

    /// A store in a temporary folder with one session.
    fn one_session() -> (tempfile::TempDir, Store, String) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let session = store
            .create_session(std::path::Path::new("/p"), None)
            .unwrap()
            .id;
        (dir, store, session)
    }

    /// An answer's data unfinished, and the same completed.
    fn answers() -> (Value, Value) {
        let answer = serde_json::to_value(AssistantMessage::new(1, "build", "p", "m")).unwrap();
        let mut finished = answer.clone();
        finished["time"]["completed"] = 2.into();
        (answer, finished)
    }

    #[test]
    fn open_text_and_reasoning_end_and_the_unfinished_answer_fails() {
        let (_dir, store, session) = one_session();
        let (answer, finished) = answers();
        let open = store
            .append_message(&session, Role::Assistant, answer)
            .unwrap();
        let done = store
            .append_message(&session, Role::Assistant, finished)
            .unwrap();
        let text = serde_json::json!({"text": "", "time": {"start": 1}});
        let thought = serde_json::json!({"text": "hm", "time": {"start": 1}});
        let ended = serde_json::json!({"text": "ok", "time": {"start": 1, "end": 2}});
        store
            .upsert_part(&session, &open.id, None, "text", text)
            .unwrap();
        store
            .upsert_part(&session, &open.id, None, "reasoning", thought)
            .unwrap();
        store
            .upsert_part(&session, &done.id, None, "text", ended)
            .unwrap();
        assert_eq!(close_parts(&store, &session, None).unwrap(), 3);
        let all = store.messages(&session).unwrap();
        let (first, parts) = &all[0];
        assert_eq!(first.data["error"]["name"], "MessageAbortedError");
        assert_eq!(first.data["error"]["data"]["message"], INTERRUPTED_ANSWER);
        assert!(first.data["time"]["completed"].is_i64());
        assert!(parts.iter().all(|p| p.data["time"]["end"].is_i64()));
        // What had finished is left as it was; a second pass closes nothing.
        assert_eq!(all[1].1[0].data["time"]["end"], 2);
        assert!(all[1].0.data.get("error").is_none());
        assert_eq!(close_parts(&store, &session, None).unwrap(), 0);
    }

    #[test]
    fn a_session_longer_than_a_chunk_is_closed_in_every_chunk() {
        let (_dir, store, session) = one_session();
        let (answer, finished) = answers();
        // Open answers at the start, in the middle chunk and at the very end.
        let open_at = [0, CHUNK + 10, 2 * CHUNK + 49];
        let mut opened = Vec::new();
        for i in 0..=open_at[2] {
            let data = if open_at.contains(&i) {
                answer.clone()
            } else {
                finished.clone()
            };
            let m = store
                .append_message(&session, Role::Assistant, data)
                .unwrap();
            if open_at.contains(&i) {
                let text = serde_json::json!({"text": "half", "time": {"start": 1}});
                store
                    .upsert_part(&session, &m.id, None, "text", text)
                    .unwrap();
                opened.push(m.id);
            }
        }
        // Each open answer and its open text part.
        assert_eq!(close_parts(&store, &session, None).unwrap(), 6);
        let all = store.messages(&session).unwrap();
        for (message, parts) in &all {
            assert!(message.data["time"]["completed"].is_i64(), "{message:?}");
            let failed = message.data.get("error").is_some();
            assert_eq!(failed, opened.contains(&message.id), "{message:?}");
            assert!(parts.iter().all(|p| p.data["time"]["end"].is_i64()));
        }
        assert_eq!(close_parts(&store, &session, None).unwrap(), 0);
    }
}
