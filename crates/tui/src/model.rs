//! What the UI knows about the server's objects: sessions, messages, parts, permission and
//! question requests, todos, agents and models. Read leniently from the server's JSON (missing
//! fields take defaults), so an older server or one speaking opencode's API still loads.

use serde::Deserialize;
use serde_json::Value;
use strata_protocol::part::TextPart;
use strata_protocol::{Tokens, ToolPart};

/// A session as listed and shown in the header.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct SessionInfo {
    pub id: String,
    #[serde(default)]
    pub title: String,
    #[serde(rename = "parentID", default)]
    pub parent_id: Option<String>,
    #[serde(default)]
    pub directory: String,
    #[serde(default)]
    pub time: SessionTime,
    /// The sandbox the session's commands run in (`workspace-write`, `read-only`, `off`),
    /// when the server says.
    #[serde(default)]
    pub sandbox: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
pub struct SessionTime {
    #[serde(default)]
    pub created: i64,
    #[serde(default)]
    pub updated: i64,
}

/// What a session is doing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Busy {
    #[default]
    Idle,
    Busy,
    /// A model request failed and will be tried again.
    Retry {
        attempt: u32,
        message: String,
    },
}

/// A model named by provider and model id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ModelRef {
    #[serde(rename = "providerID", default)]
    pub provider_id: String,
    #[serde(rename = "modelID", alias = "id", default)]
    pub model_id: String,
}

impl ModelRef {
    /// `provider/model`, as typed on the command line.
    pub fn label(&self) -> String {
        format!("{}/{}", self.provider_id, self.model_id)
    }
}

/// A message's header data (its parts travel separately).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct MessageInfo {
    pub id: String,
    #[serde(rename = "sessionID", default)]
    pub session_id: String,
    #[serde(default)]
    pub role: String,
    #[serde(default)]
    pub agent: String,
    #[serde(rename = "providerID", default)]
    pub provider_id: String,
    #[serde(rename = "modelID", default)]
    pub model_id: String,
    #[serde(default)]
    pub tokens: Tokens,
    #[serde(default)]
    pub cost: f64,
    #[serde(default)]
    pub finish: Option<String>,
    #[serde(default)]
    pub error: Option<ErrorBody>,
    #[serde(default)]
    pub time: MessageTime,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
pub struct MessageTime {
    #[serde(default)]
    pub created: i64,
    #[serde(default)]
    pub completed: Option<i64>,
}

impl MessageInfo {
    pub fn is_user(&self) -> bool {
        self.role == "user"
    }
}

/// An error as the server names it: `{name, data: {message}}`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ErrorBody {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub data: ErrorData,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ErrorData {
    #[serde(default)]
    pub message: String,
}

impl ErrorBody {
    /// The message when there is one, else the name.
    pub fn text(&self) -> &str {
        if self.data.message.is_empty() {
            &self.name
        } else {
            &self.data.message
        }
    }
}

/// One part of a message, keyed by id.
#[derive(Debug, Clone, PartialEq)]
pub struct PartInfo {
    pub id: String,
    pub message_id: String,
    pub session_id: String,
    pub kind: PartKind,
}

/// A part's payload by its `type`.
#[derive(Debug, Clone, PartialEq)]
pub enum PartKind {
    Text(TextPart),
    Reasoning(String),
    Tool(Box<ToolPart>),
    StepStart,
    StepFinish {
        reason: String,
        tokens: Tokens,
        cost: f64,
    },
    /// A kind this client does not draw (patch, file, agent, …).
    Other(String),
}

impl PartInfo {
    /// Reads a part in its view shape `{id, sessionID, messageID, type, …data}`.
    pub fn from_json(v: &Value) -> Option<PartInfo> {
        let s = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let kind = match v.get("type")?.as_str()? {
            "text" => PartKind::Text(TextPart::deserialize(v).ok()?),
            "reasoning" => PartKind::Reasoning(s("text")),
            "tool" => PartKind::Tool(Box::new(ToolPart::deserialize(v).ok()?)),
            "step-start" => PartKind::StepStart,
            "step-finish" => PartKind::StepFinish {
                reason: s("reason"),
                tokens: v
                    .get("tokens")
                    .and_then(|t| Tokens::deserialize(t).ok())
                    .unwrap_or_default(),
                cost: v.get("cost").and_then(Value::as_f64).unwrap_or(0.0),
            },
            other => PartKind::Other(other.to_string()),
        };
        Some(PartInfo {
            id: s("id"),
            message_id: s("messageID"),
            session_id: s("sessionID"),
            kind,
        })
    }

    /// Appends `delta` to the part's text field; false when the part has no such field, or
    /// when the text is finished (a delta arriving after its part came whole is stale, and
    /// appending it would show that text twice).
    pub fn append(&mut self, field: &str, delta: &str) -> bool {
        match (&mut self.kind, field) {
            (PartKind::Text(t), "text") if t.time.is_some_and(|time| time.end.is_some()) => {
                return false;
            }
            (PartKind::Text(t), "text") => t.text.push_str(delta),
            (PartKind::Reasoning(t), "text") => t.push_str(delta),
            _ => return false,
        }
        true
    }
}

/// A message with its parts, as `GET /session/:id/message` lists them.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageWithParts {
    pub info: MessageInfo,
    pub parts: Vec<PartInfo>,
}

impl MessageWithParts {
    pub fn from_json(v: &Value) -> Option<MessageWithParts> {
        let info = MessageInfo::deserialize(v.get("info")?).ok()?;
        let parts = v
            .get("parts")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(PartInfo::from_json).collect())
            .unwrap_or_default();
        Some(MessageWithParts { info, parts })
    }
}

/// A tool asking to be allowed: `{id, sessionID, permission, patterns, metadata, always, tool?}`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct PermissionRequest {
    pub id: String,
    #[serde(rename = "sessionID", default)]
    pub session_id: String,
    #[serde(default)]
    pub permission: String,
    #[serde(default)]
    pub patterns: Vec<String>,
    #[serde(default)]
    pub always: Vec<String>,
    #[serde(default)]
    pub metadata: Value,
}

/// How a permission request is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionReply {
    Once,
    Always,
    Reject,
}

impl PermissionReply {
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionReply::Once => "once",
            PermissionReply::Always => "always",
            PermissionReply::Reject => "reject",
        }
    }
}

/// The model asking the user: `{id, sessionID, questions}`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct QuestionRequest {
    pub id: String,
    #[serde(rename = "sessionID", default)]
    pub session_id: String,
    #[serde(default)]
    pub questions: Vec<Question>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Question {
    #[serde(default)]
    pub question: String,
    #[serde(default)]
    pub header: String,
    #[serde(default)]
    pub options: Vec<QuestionOption>,
    #[serde(default)]
    pub multiple: bool,
    /// Whether a typed answer is allowed (default true).
    #[serde(default = "yes")]
    pub custom: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct QuestionOption {
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub description: String,
}

/// One entry of a session's todo list.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Todo {
    #[serde(default)]
    pub content: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub priority: String,
}

/// An agent the user can pick (`mode` `primary` or `all`; subagents are not offered).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct AgentInfo {
    pub name: String,
    #[serde(default)]
    pub mode: String,
    #[serde(default)]
    pub hidden: bool,
}

impl AgentInfo {
    pub fn is_primary(&self) -> bool {
        self.mode != "subagent" && !self.hidden
    }
}

/// What the client learns at start-up.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bootstrap {
    pub agents: Vec<AgentInfo>,
    pub models: Vec<ModelRef>,
    pub model: Option<ModelRef>,
    pub sessions: Vec<SessionInfo>,
}

/// A session as re-fetched after a gap or on open.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    pub session: SessionInfo,
    pub messages: Vec<MessageWithParts>,
    pub todos: Vec<Todo>,
    /// The last event sequence the snapshot includes, when the server says.
    pub seq: Option<u64>,
}

/// A short description of a tool call: its title, else the first line of its main argument;
/// shown on tool cards and in the markdown export.
pub fn tool_title(tool: &ToolPart) -> String {
    if let Some(t) = tool.state.title().filter(|t| !t.is_empty()) {
        return t.to_string();
    }
    let input = tool.state.input();
    for key in [
        "filePath",
        "path",
        "command",
        "pattern",
        "url",
        "description",
        "query",
    ] {
        if let Some(v) = input.get(key).and_then(Value::as_str) {
            return v.lines().next().unwrap_or_default().to_string();
        }
    }
    match &tool.state {
        strata_protocol::ToolState::Pending(_) => "preparing…".into(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool(state: Value) -> ToolPart {
        let v = json!({"id": "prt_1", "sessionID": "ses_1", "messageID": "msg_1", "type": "tool",
            "tool": "bash", "callID": "call_1", "state": state});
        match PartInfo::from_json(&v).map(|p| p.kind) {
            Some(PartKind::Tool(t)) => *t,
            other => panic!("not a tool part: {other:?}"),
        }
    }

    #[test]
    fn a_tool_title_prefers_the_title_then_the_main_argument() {
        let titled = json!({"status": "completed", "input": {"command": "ls"}, "title": "List",
            "output": "", "metadata": {}, "time": {"start": 1, "end": 2}});
        assert_eq!(tool_title(&tool(titled)), "List");
        let running = json!({"status": "running", "input": {"command": "cargo test\nmore"},
            "time": {"start": 1}});
        assert_eq!(tool_title(&tool(running)), "cargo test");
        let pending = json!({"status": "pending", "input": {}, "raw": ""});
        assert_eq!(tool_title(&tool(pending)), "preparing…");
        let bare = json!({"status": "running", "input": {"other": 1}, "time": {"start": 1}});
        assert_eq!(tool_title(&tool(bare)), "");
    }
}
