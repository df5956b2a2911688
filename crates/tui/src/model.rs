//! What the UI holds of the server's objects. Sessions, requests and todos are the protocol's
//! wire types (re-exported here); messages and parts are kept in a drawing-friendly form read
//! from the wire views ([`MessageInfo::from_view`], [`PartInfo::from_view`]); agents, the
//! start-up data and a session's snapshot are the UI's own.

use serde::Deserialize;
use serde_json::Value;
use strata_protocol::event::SessionStatus;
use strata_protocol::message::MessageTime;
use strata_protocol::part::TextPart;
pub use strata_protocol::wire::CommandInfo;
use strata_protocol::wire::{MessageEntry, MessageView, PartView};
use strata_protocol::{ErrorInfo, PartData, Tokens, ToolPart};

pub use strata_protocol::wire::{
    ModelChoice, PermissionReply, PermissionRequest, QuestionInfo, QuestionOption, QuestionRequest,
    SessionInfo, SessionTime, Todo,
};

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

impl From<SessionStatus> for Busy {
    fn from(status: SessionStatus) -> Self {
        match status {
            SessionStatus::Busy => Busy::Busy,
            SessionStatus::Idle => Busy::Idle,
            SessionStatus::Retry {
                attempt, message, ..
            } => Busy::Retry { attempt, message },
        }
    }
}

/// A message's header data (its parts travel separately): the fields of a user or an
/// assistant message that the UI shows, read from a [`MessageView`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct MessageInfo {
    #[serde(skip)]
    pub id: String,
    #[serde(skip)]
    pub session_id: String,
    #[serde(skip)]
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
    pub error: Option<ErrorInfo>,
    #[serde(default)]
    pub time: MessageTime,
}

impl MessageInfo {
    pub fn is_user(&self) -> bool {
        self.role == "user"
    }

    /// Reads a message's view; `None` when its data does not fit. A user message names its
    /// model as `model: {providerID, modelID}`.
    pub fn from_view(view: &MessageView) -> Option<MessageInfo> {
        let data = Value::Object(view.data.clone());
        let mut info = MessageInfo::deserialize(&data).ok()?;
        if info.model_id.is_empty()
            && let Some(m) = view.data.get("model")
        {
            let s = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or_default();
            info.provider_id = s("providerID").to_string();
            info.model_id = s("modelID").to_string();
        }
        info.id.clone_from(&view.id);
        info.session_id.clone_from(&view.session_id);
        info.role = view.role.as_str().to_string();
        Some(info)
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

/// The part kinds drawn (the rest show as [`PartKind::Other`]).
const DRAWN: &[&str] = &["text", "reasoning", "tool", "step-start", "step-finish"];

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
    /// Reads a part's view; `None` for a kind this client draws whose data does not fit, a
    /// kind it does not draw is [`PartKind::Other`].
    pub fn from_view(view: &PartView) -> Option<PartInfo> {
        let kind = match view.typed() {
            Some(PartData::Text(t)) => PartKind::Text(t),
            Some(PartData::Reasoning(r)) => PartKind::Reasoning(r.text),
            Some(PartData::Tool(t)) => PartKind::Tool(t),
            Some(PartData::StepStart) => PartKind::StepStart,
            Some(PartData::StepFinish(f)) => PartKind::StepFinish {
                reason: f.reason,
                tokens: f.tokens,
                cost: f.cost,
            },
            Some(PartData::Compaction(_)) => PartKind::Other(view.kind.clone()),
            None if DRAWN.contains(&view.kind.as_str()) => return None,
            None => PartKind::Other(view.kind.clone()),
        };
        Some(PartInfo {
            id: view.id.clone(),
            message_id: view.message_id.clone(),
            session_id: view.session_id.clone(),
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
    /// Reads a listed message; `None` when its header does not read. Parts that do not read
    /// are left out.
    pub fn from_entry(entry: &MessageEntry) -> Option<MessageWithParts> {
        Some(MessageWithParts {
            info: MessageInfo::from_view(&entry.info)?,
            parts: entry.parts.iter().filter_map(PartInfo::from_view).collect(),
        })
    }

    /// Reads a listed message from its JSON (`{info, parts}`).
    pub fn from_json(v: &Value) -> Option<MessageWithParts> {
        Self::from_entry(&MessageEntry::deserialize(v).ok()?)
    }
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
    pub models: Vec<ModelChoice>,
    pub model: Option<ModelChoice>,
    pub sessions: Vec<SessionInfo>,
    /// The commands the server offers (`GET /command`: the MCP servers' prompts).
    pub commands: Vec<CommandInfo>,
}

/// A session as re-fetched after a gap or on open: its newest messages (a page of
/// [`PAGE`](crate::client::PAGE) when the server pages), and the cursor for older ones.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    pub session: SessionInfo,
    pub messages: Vec<MessageWithParts>,
    pub todos: Vec<Todo>,
    /// The last event sequence the snapshot includes, when the server says.
    pub seq: Option<u64>,
    /// The cursor for the messages before these (`X-Next-Cursor`); `None` when all are here.
    pub older: Option<String>,
}

/// Messages before the ones loaded, oldest first, and the cursor for those before them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OlderPage {
    pub messages: Vec<MessageWithParts>,
    pub older: Option<String>,
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
        let view = PartView::deserialize(&v).unwrap();
        match PartInfo::from_view(&view).map(|p| p.kind) {
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

    #[test]
    fn a_user_message_names_its_model_and_an_assistant_its_own() {
        let view = |v: Value| MessageView::deserialize(v).unwrap();
        let user = view(json!({"id": "msg_1", "sessionID": "ses_1", "role": "user",
            "time": {"created": 1}, "agent": "build",
            "model": {"providerID": "mock", "modelID": "small"}}));
        let info = MessageInfo::from_view(&user).unwrap();
        assert_eq!(
            (info.id.as_str(), info.session_id.as_str()),
            ("msg_1", "ses_1")
        );
        assert!(info.is_user());
        assert_eq!(
            (info.provider_id.as_str(), info.model_id.as_str()),
            ("mock", "small")
        );
        let failed = view(
            json!({"id": "msg_2", "sessionID": "ses_1", "role": "assistant",
            "providerID": "p", "modelID": "m", "cost": 0.5,
            "error": {"name": "MessageOutputLengthError", "data": {}}}),
        );
        let info = MessageInfo::from_view(&failed).unwrap();
        assert_eq!((info.model_id.as_str(), info.cost), ("m", 0.5));
        assert_eq!(
            info.error.map(|e| e.text().to_string()).as_deref(),
            Some("MessageOutputLengthError")
        );
        let bad =
            view(json!({"id": "msg_3", "sessionID": "ses_1", "role": "assistant", "cost": "x"}));
        assert_eq!(MessageInfo::from_view(&bad), None);
    }

    #[test]
    fn parts_of_other_kinds_are_kept_by_name_and_unreadable_ones_dropped() {
        let part = |v: Value| PartView::deserialize(v).unwrap();
        let head = json!({"id": "prt_1", "sessionID": "ses_1", "messageID": "msg_1"});
        let with = |extra: Value| {
            let mut v = head.clone();
            v.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            part(v)
        };
        let patch = PartInfo::from_view(&with(json!({"type": "patch", "files": []}))).unwrap();
        assert_eq!(patch.kind, PartKind::Other("patch".into()));
        assert_eq!(patch.message_id, "msg_1");
        let reasoning = PartInfo::from_view(&with(json!({"type": "reasoning", "text": "hm"})));
        assert_eq!(
            reasoning.map(|p| p.kind),
            Some(PartKind::Reasoning("hm".into()))
        );
        assert_eq!(
            PartInfo::from_view(&with(json!({"type": "tool", "tool": "bash"}))),
            None
        );
    }
}
