//! Server events as ACP session updates. A [`Translator`] follows one session's events: text
//! and reasoning go out as chunks (the live deltas, then whatever the stored part adds to
//! them), a tool part as `tool_call` the first time and `tool_call_update` after, the todo list
//! as a plan. [`replay`] turns stored messages into the same updates for `session/load`.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use crate::tool_call::{self, Declared};
use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus, SessionUpdate,
};
use strata_protocol::part::PartData;
use strata_protocol::store::Role;
use strata_protocol::wire::{MessageEntry, PartView, ServerEvent, Todo};

/// What the session's instance declares about tool `id`.
pub(crate) type EffectsOf<'a> = &'a dyn Fn(&str) -> Option<Declared>;

/// One session's event stream as ACP updates.
#[derive(Debug)]
pub(crate) struct Translator {
    /// The project directory, for absolute file locations.
    dir: PathBuf,
    /// Bytes of text already sent, by part id.
    sent: HashMap<String, usize>,
    /// Calls already announced with `tool_call`.
    calls: HashSet<String>,
}

impl Translator {
    pub(crate) fn new(dir: impl Into<PathBuf>) -> Self {
        Translator {
            dir: dir.into(),
            sent: HashMap::new(),
            calls: HashSet::new(),
        }
    }

    /// The updates `event` makes (none for most events).
    pub(crate) fn event(&mut self, event: &ServerEvent, effects: EffectsOf) -> Vec<SessionUpdate> {
        match event {
            ServerEvent::PartDelta {
                part_id,
                field,
                delta,
                ..
            } if field == "text" && !delta.is_empty() => {
                *self.sent.entry(part_id.clone()).or_default() += delta.len();
                vec![SessionUpdate::AgentMessageChunk(chunk(delta))]
            }
            ServerEvent::PartUpdated { part, .. } => self.part(part, effects).into_iter().collect(),
            ServerEvent::TodoUpdated { todos, .. } => vec![plan(todos)],
            _ => Vec::new(),
        }
    }

    /// The update a stored assistant part makes, if any.
    pub(crate) fn part(&mut self, part: &PartView, effects: EffectsOf) -> Option<SessionUpdate> {
        match part.typed()? {
            // A user's text has no time; the client sent it, so it is not echoed.
            PartData::Text(t) if t.time.is_some() => self
                .rest(&part.id, &t.text)
                .map(|s| SessionUpdate::AgentMessageChunk(chunk(s))),
            PartData::Reasoning(r) => self
                .rest(&part.id, &r.text)
                .map(|s| SessionUpdate::AgentThoughtChunk(chunk(s))),
            PartData::Tool(t) => {
                let d = effects(&t.tool);
                Some(if self.calls.insert(t.call_id.clone()) {
                    SessionUpdate::ToolCall(tool_call::started(&t, d.as_ref(), &self.dir))
                } else {
                    SessionUpdate::ToolCallUpdate(tool_call::updated(&t, d.as_ref(), &self.dir))
                })
            }
            _ => None,
        }
    }

    /// The part of `text` not sent yet; `None` when everything was.
    fn rest<'t>(&mut self, part_id: &str, text: &'t str) -> Option<&'t str> {
        let sent = self.sent.entry(part_id.to_string()).or_default();
        let rest = text.get(*sent..).filter(|r| !r.is_empty())?;
        *sent = text.len();
        Some(rest)
    }
}

fn chunk(text: &str) -> ContentChunk {
    ContentChunk::new(ContentBlock::from(text))
}

/// The todo list as an ACP plan. ACP has no "cancelled": a cancelled item counts as done.
pub(crate) fn plan(todos: &[Todo]) -> SessionUpdate {
    let entries = todos
        .iter()
        .map(|t| {
            let status = match t.status.as_str() {
                "in_progress" => PlanEntryStatus::InProgress,
                "completed" | "cancelled" => PlanEntryStatus::Completed,
                _ => PlanEntryStatus::Pending,
            };
            let priority = match t.priority.as_str() {
                "high" => PlanEntryPriority::High,
                "low" => PlanEntryPriority::Low,
                _ => PlanEntryPriority::Medium,
            };
            PlanEntry::new(t.content.clone(), priority, status)
        })
        .collect();
    SessionUpdate::Plan(Plan::new(entries))
}

/// Stored messages as the updates that would have shown them: the user's text as user
/// chunks, then what the assistant said, thought and called. A stored part shows once in a
/// history, so each chunk of a long session is replayed on its own.
pub(crate) fn replay(
    messages: &[MessageEntry],
    dir: impl Into<PathBuf>,
    effects: EffectsOf,
) -> Vec<SessionUpdate> {
    let mut t = Translator::new(dir);
    let mut out = Vec::new();
    for m in messages {
        for part in &m.parts {
            if m.info.role == Role::User {
                if let Some(PartData::Text(text)) = part.typed()
                    && !text.text.is_empty()
                {
                    out.push(SessionUpdate::UserMessageChunk(chunk(&text.text)));
                }
                continue;
            }
            out.extend(t.part(part, effects));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn view(id: &str, kind: &str, data: Value) -> PartView {
        let Value::Object(data) = data else {
            panic!("object")
        };
        PartView {
            id: id.into(),
            session_id: "ses".into(),
            message_id: "msg".into(),
            kind: kind.into(),
            data,
        }
    }

    fn none(_: &str) -> Option<Declared> {
        None
    }

    fn texts(updates: &[SessionUpdate]) -> Vec<String> {
        updates
            .iter()
            .map(|u| serde_json::to_value(u).unwrap()["content"]["text"].to_string())
            .collect()
    }

    #[test]
    fn deltas_stream_and_the_stored_part_adds_only_what_they_missed() {
        let mut t = Translator::new("/p");
        let delta = |d: &str| ServerEvent::PartDelta {
            session_id: "ses".into(),
            message_id: "msg".into(),
            part_id: "prt_1".into(),
            field: "text".into(),
            delta: d.into(),
        };
        let mut out = t.event(&delta("Hel"), &none);
        out.extend(t.event(&delta("lo"), &none));
        let done = view(
            "prt_1",
            "text",
            json!({"text": "Hello!", "time": {"start": 1, "end": 2}}),
        );
        out.extend(t.part(&done, &none));
        assert_eq!(texts(&out), [r#""Hel""#, r#""lo""#, r#""!""#]);
        assert!(t.part(&done, &none).is_none(), "nothing twice");
    }

    #[test]
    fn reasoning_is_a_thought_and_user_text_is_not_echoed() {
        let mut t = Translator::new("/p");
        let r = view(
            "prt_r",
            "reasoning",
            json!({"text": "hmm", "time": {"start": 1}}),
        );
        let u = t.part(&r, &none).unwrap();
        assert!(matches!(u, SessionUpdate::AgentThoughtChunk(_)));
        let user = view("prt_u", "text", json!({"text": "do it"}));
        assert!(t.part(&user, &none).is_none());
    }

    #[test]
    fn a_call_is_announced_once_then_updated() {
        let mut t = Translator::new("/p");
        let running = view(
            "prt_t",
            "tool",
            json!({"callID": "call_1", "tool": "read",
                   "state": {"status": "running", "input": {"filePath": "a"}, "time": {"start": 1}}}),
        );
        assert!(matches!(
            t.part(&running, &none),
            Some(SessionUpdate::ToolCall(_))
        ));
        assert!(matches!(
            t.part(&running, &none),
            Some(SessionUpdate::ToolCallUpdate(_))
        ));
    }

    #[test]
    fn todos_become_a_plan() {
        let todos = vec![
            Todo::new("one", "in_progress", "high"),
            Todo::new("two", "cancelled", "low"),
        ];
        let v = serde_json::to_value(plan(&todos)).unwrap();
        assert_eq!(v["sessionUpdate"], "plan");
        assert_eq!(v["entries"][0]["status"], "in_progress");
        assert_eq!(v["entries"][0]["priority"], "high");
        assert_eq!(v["entries"][1]["status"], "completed");
    }

    #[test]
    fn a_replay_shows_the_user_then_the_assistant() {
        let msg = |role: &str, parts: Vec<PartView>| MessageEntry {
            info: serde_json::from_value(json!({"id": "m", "sessionID": "ses", "role": role}))
                .unwrap(),
            parts,
        };
        let history = [
            msg("user", vec![view("p1", "text", json!({"text": "hi"}))]),
            msg(
                "assistant",
                vec![view(
                    "p2",
                    "text",
                    json!({"text": "hello", "time": {"start": 1, "end": 2}}),
                )],
            ),
        ];
        let mut out = replay(&history[..1], "/p", &none);
        out.extend(replay(&history[1..], "/p", &none));
        assert!(matches!(out[0], SessionUpdate::UserMessageChunk(_)));
        assert_eq!(texts(&out), [r#""hi""#, r#""hello""#]);
    }
}
