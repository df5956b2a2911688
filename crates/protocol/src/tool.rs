//! A tool call's part: `{callID, tool, state}`, where `state.status` moves
//! `pending {input, raw}` → `running {input, time.start, title?, metadata?}` → `completed
//! {input, output, title, metadata, time, attachments?}` or `error {input, error, time,
//! metadata?}`.
//!
//! Reading is lenient (missing fields take their defaults) so parts written by older versions
//! or by hand in tests still load; writing always produces the full shape above.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The stored data of a `tool` part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolPart {
    #[serde(rename = "callID", default)]
    pub call_id: String,
    /// The tool id as recorded (`invalid` after a call was repaired).
    #[serde(default)]
    pub tool: String,
    pub state: ToolState,
    /// What the model's provider attached to the call and wants back with it (e.g. Gemini's
    /// thought signature, under `provider`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// Where a call is in its life.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum ToolState {
    /// The model started the call; its arguments are still arriving (or were just completed).
    Pending(Pending),
    Running(Running),
    Completed(Completed),
    Error(Failed),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pending {
    /// Always `{}`: the arguments are not parsed yet.
    #[serde(default = "empty_object")]
    pub input: Value,
    /// The argument text received so far.
    #[serde(default)]
    pub raw: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Running {
    #[serde(default = "empty_object")]
    pub input: Value,
    #[serde(default)]
    pub time: Started,
    /// What the tool says it is doing, once it said so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Live metadata the tool streamed (e.g. `bash`'s output so far).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Completed {
    #[serde(default = "empty_object")]
    pub input: Value,
    /// What the model is told.
    #[serde(default)]
    pub output: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub metadata: Map<String, Value>,
    #[serde(default)]
    pub time: Span,
    /// Files the tool attached (an image `read` loaded); left out when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failed {
    #[serde(default = "empty_object")]
    pub input: Value,
    /// What the model is told.
    #[serde(default)]
    pub error: String,
    #[serde(default)]
    pub time: Span,
    /// `cancelled: true` for a cancelled call, `raw` for arguments that never completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// `time` of a running call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Started {
    #[serde(default)]
    pub start: i64,
}

/// `time` of a finished call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    #[serde(default)]
    pub start: i64,
    #[serde(default)]
    pub end: i64,
    /// When compaction pruned the output from what the model is sent (the stored output stays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compacted: Option<i64>,
}

impl Span {
    pub fn new(start: i64, end: i64) -> Self {
        Self {
            start,
            end,
            compacted: None,
        }
    }
}

/// A file a tool attached to its result: `{type: "file", mime, url, filename?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attachment {
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default)]
    pub mime: String,
    /// `data:<mime>;base64,<payload>`.
    #[serde(default)]
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
}

fn empty_object() -> Value {
    Value::Object(Map::new())
}

impl ToolPart {
    /// A call the model started; `raw` is its argument text so far.
    pub fn pending(call_id: &str, tool: &str, raw: &str) -> Self {
        Self::with(
            call_id,
            tool,
            ToolState::Pending(Pending {
                input: empty_object(),
                raw: raw.to_string(),
            }),
        )
    }

    pub fn with(call_id: &str, tool: &str, state: ToolState) -> Self {
        Self {
            call_id: call_id.to_string(),
            tool: tool.to_string(),
            state,
            metadata: None,
        }
    }

    /// The part with the provider's own data about the call kept under `metadata.provider`.
    pub fn with_provider_meta(mut self, meta: Option<&Value>) -> Self {
        if let Some(meta) = meta {
            let mut map = Map::new();
            map.insert("provider".into(), meta.clone());
            self.metadata = Some(map);
        }
        self
    }

    /// The provider's own data about the call, as [`with_provider_meta`](Self::with_provider_meta)
    /// kept it.
    pub fn provider_meta(&self) -> Option<&Value> {
        self.metadata.as_ref()?.get("provider")
    }

    /// Reads a stored `tool` part's data.
    pub fn from_value(data: &Value) -> Result<Self, serde_json::Error> {
        Self::deserialize(data)
    }

    /// The data to store: `{callID, tool, state}`.
    pub fn to_value(&self) -> Value {
        // A map of strings, numbers and JSON values always serializes.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl ToolState {
    /// `pending`, `running`, `completed` or `error`, as in `state.status`.
    pub fn status(&self) -> &'static str {
        match self {
            ToolState::Pending(_) => "pending",
            ToolState::Running(_) => "running",
            ToolState::Completed(_) => "completed",
            ToolState::Error(_) => "error",
        }
    }

    /// Whether the call completed or failed (it will not change again).
    pub fn is_finished(&self) -> bool {
        matches!(self, ToolState::Completed(_) | ToolState::Error(_))
    }

    /// The arguments as parsed (`{}` while pending).
    pub fn input(&self) -> &Value {
        match self {
            ToolState::Pending(s) => &s.input,
            ToolState::Running(s) => &s.input,
            ToolState::Completed(s) => &s.input,
            ToolState::Error(s) => &s.input,
        }
    }

    /// The tool's title, when it gave one.
    pub fn title(&self) -> Option<&str> {
        match self {
            ToolState::Running(s) => s.title.as_deref(),
            ToolState::Completed(s) => Some(&s.title),
            ToolState::Pending(_) | ToolState::Error(_) => None,
        }
    }

    /// The error message of a failed call.
    pub fn error(&self) -> Option<&str> {
        match self {
            ToolState::Error(s) => Some(&s.error),
            _ => None,
        }
    }

    /// The metadata the tool reported, if any.
    pub fn metadata(&self) -> Option<&Map<String, Value>> {
        match self {
            ToolState::Running(s) => s.metadata.as_ref(),
            ToolState::Completed(s) => Some(&s.metadata),
            ToolState::Error(s) => s.metadata.as_ref(),
            ToolState::Pending(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn text(part: &ToolPart) -> String {
        serde_json::to_string(part).unwrap()
    }

    #[test]
    fn each_state_serializes_in_the_stored_field_order() {
        let pending = ToolPart::pending("c1", "read", "{\"file");
        assert_eq!(
            text(&pending),
            r#"{"callID":"c1","tool":"read","state":{"status":"pending","input":{},"raw":"{\"file"}}"#
        );
        let input = json!({"filePath": "a.txt"});
        let running = ToolPart::with(
            "c1",
            "read",
            ToolState::Running(Running {
                input: input.clone(),
                time: Started { start: 1 },
                title: Some("t".into()),
                metadata: None,
            }),
        );
        assert_eq!(
            text(&running),
            r#"{"callID":"c1","tool":"read","state":{"status":"running","input":{"filePath":"a.txt"},"time":{"start":1},"title":"t"}}"#
        );
        let done = ToolPart::with(
            "c1",
            "read",
            ToolState::Completed(Completed {
                input: input.clone(),
                output: "x".into(),
                title: "a.txt".into(),
                metadata: Map::new(),
                time: Span::new(1, 2),
                attachments: vec![],
            }),
        );
        assert_eq!(
            text(&done),
            r#"{"callID":"c1","tool":"read","state":{"status":"completed","input":{"filePath":"a.txt"},"output":"x","title":"a.txt","metadata":{},"time":{"start":1,"end":2}}}"#
        );
        let mut meta = Map::new();
        meta.insert("cancelled".into(), json!(true));
        let failed = ToolPart::with(
            "c1",
            "read",
            ToolState::Error(Failed {
                input,
                error: "boom".into(),
                time: Span::new(1, 3),
                metadata: Some(meta),
            }),
        );
        assert_eq!(
            text(&failed),
            r#"{"callID":"c1","tool":"read","state":{"status":"error","input":{"filePath":"a.txt"},"error":"boom","time":{"start":1,"end":3},"metadata":{"cancelled":true}}}"#
        );
        for part in [pending, running, done, failed] {
            assert_eq!(ToolPart::from_value(&part.to_value()).unwrap(), part);
        }
    }

    #[test]
    fn partial_parts_read_with_defaults() {
        let part =
            ToolPart::from_value(&json!({"tool": "grep", "state": {"status": "error"}})).unwrap();
        assert_eq!(part.call_id, "");
        assert_eq!(part.state.status(), "error");
        assert_eq!(part.state.input(), &json!({}));
        assert_eq!(part.state.error(), Some(""));
        assert!(ToolPart::from_value(&json!({"state": {"status": "lost"}})).is_err());
    }
}
