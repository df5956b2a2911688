//! `--format json`: one JSON object per line, with opencode's `run --format json` event types
//! and field names, so scripts written for one work with the other.
//!
//! Every line is `{"type", "timestamp", "sessionID", …}`:
//! - `step_start`, `step_finish`: `part` is the step part (`step_finish` has `reason`, `tokens`);
//! - `text`: `part.text`, once the text part is complete;
//! - `reasoning`: `part.text` (and `part.metadata`), once the model's reasoning is complete;
//! - `tool_use`: `part.tool`, `part.callID`, `part.state.{status, input, output | error, title,
//!   metadata, time.start, time.end}`, once the call completed or failed;
//! - `error`: `error.{name, data.message}`.

use std::collections::HashSet;

use serde_json::{Value, json};
use strata_agent::events::{event_part, kinds, part_json};
use strata_agent::store::Event;
use strata_protocol::PartData;

/// Turns stored events into output lines; each part is printed at most once.
#[derive(Debug, Default)]
pub(crate) struct JsonRenderer {
    printed: HashSet<String>,
}

impl JsonRenderer {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// The line for `event`, if it shows one.
    pub(crate) fn line(&mut self, event: &Event) -> Option<Value> {
        let envelope = |kind: &str| json!({"type": kind, "timestamp": event.created_ms, "sessionID": event.session_id});
        if event.kind == kinds::SESSION_ERROR {
            let mut out = envelope("error");
            out["error"] = event.data.get("error").cloned().unwrap_or(Value::Null);
            return Some(out);
        }
        if event.kind == kinds::SESSION_HOOK {
            let mut out = envelope("hook");
            out["hook"] = event.data.get("hook").cloned().unwrap_or(Value::Null);
            return Some(out);
        }
        let part = event_part(event)?;
        let kind = match PartData::of(&part)? {
            PartData::StepStart => "step_start",
            PartData::StepFinish(_) => "step_finish",
            PartData::Text(text) if text.is_finished() => "text",
            // Redacted or empty reasoning has nothing to show.
            PartData::Reasoning(r) if r.is_finished() && !r.text.is_empty() => "reasoning",
            PartData::Tool(tool) if tool.state.is_finished() => "tool_use",
            PartData::Text(_)
            | PartData::Tool(_)
            | PartData::Reasoning(_)
            | PartData::Compaction(_) => return None,
        };
        if !self.printed.insert(part.id.clone()) {
            return None;
        }
        let mut out = envelope(kind);
        out["part"] = part_json(&part);
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use strata_agent::store::{Part, kinds as store_kinds};

    use super::*;

    fn part_event(seq: i64, kind: &str, data: Value) -> Event {
        let part = Part {
            id: format!("prt_{kind}"),
            message_id: "msg_1".into(),
            session_id: "ses_1".into(),
            seq,
            kind: kind.into(),
            data,
            updated_ms: 7,
        };
        Event {
            session_id: "ses_1".into(),
            seq,
            kind: store_kinds::PART_UPDATED.into(),
            data: json!({ "part": part }),
            created_ms: 7,
        }
    }

    #[test]
    fn lines_follow_the_opencode_shape() {
        let mut r = JsonRenderer::new();
        let start = r.line(&part_event(1, "step-start", json!({}))).unwrap();
        assert_eq!(start["type"], "step_start");
        assert_eq!(start["sessionID"], "ses_1");
        assert_eq!(start["timestamp"], 7);
        assert_eq!(start["part"]["type"], "step-start");
        assert!(
            r.line(&part_event(
                2,
                "text",
                json!({"text": "", "time": {"start": 1}})
            ))
            .is_none()
        );
        let text = r
            .line(&part_event(
                3,
                "text",
                json!({"text": "hi", "time": {"start": 1, "end": 2}}),
            ))
            .unwrap();
        assert_eq!(
            (text["type"].as_str(), text["part"]["text"].as_str()),
            (Some("text"), Some("hi"))
        );
        assert!(
            r.line(&part_event(
                3,
                "reasoning",
                json!({"text": "", "time": {"start": 1}})
            ))
            .is_none()
        );
        assert!(
            r.line(&part_event(
                3,
                "reasoning",
                json!({"text": "", "metadata": {"anthropic": {"redactedData": "x"}}, "time": {"start": 1, "end": 2}}),
            ))
            .is_none(),
            "redacted reasoning shows nothing"
        );
        let thought = r
            .line(&part_event(
                3,
                "reasoning",
                json!({"text": "hmm", "time": {"start": 1, "end": 2}}),
            ))
            .unwrap();
        assert_eq!(
            (thought["type"].as_str(), thought["part"]["text"].as_str()),
            (Some("reasoning"), Some("hmm"))
        );
        let running = json!({"callID": "c1", "tool": "read", "state": {"status": "running"}});
        assert!(r.line(&part_event(4, "tool", running)).is_none());
        let done = json!({"callID": "c1", "tool": "read", "state": {"status": "completed", "output": "x"}});
        let tool = r.line(&part_event(5, "tool", done.clone())).unwrap();
        assert_eq!(tool["type"], "tool_use");
        assert_eq!(tool["part"]["tool"], "read");
        assert_eq!(tool["part"]["callID"], "c1");
        assert!(
            r.line(&part_event(6, "tool", done)).is_none(),
            "printed once"
        );
        let error = Event {
            session_id: "ses_1".into(),
            seq: 8,
            kind: kinds::SESSION_ERROR.into(),
            data: json!({"error": {"name": "APIError", "data": {"message": "boom"}}}),
            created_ms: 9,
        };
        let line = r.line(&error).unwrap();
        assert_eq!(line["type"], "error");
        assert_eq!(line["error"]["data"]["message"], "boom");
    }
}
