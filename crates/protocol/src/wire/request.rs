//! Requests a session waits on (permissions, questions), the session's todos and file diffs,
//! the bodies clients post, and the error body every failing route answers with.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Which tool call a request belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ToolRef {
    #[serde(rename = "messageID")]
    pub message_id: String,
    #[serde(rename = "callID")]
    pub call_id: String,
}

/// A pending permission request (`permission.asked`, `GET /permission`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PermissionRequest {
    /// `per_…`
    pub id: String,
    #[serde(rename = "sessionID")]
    pub session_id: String,
    /// The permission key (`edit`, `bash`, …).
    pub permission: String,
    /// What this call touches (paths, commands).
    pub patterns: Vec<String>,
    #[serde(default)]
    pub metadata: Map<String, Value>,
    /// The patterns an `always` reply would allow from now on.
    #[serde(default)]
    pub always: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolRef>,
}

/// How a permission request was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PermissionReply {
    Once,
    Always,
    Reject,
}

/// `POST /permission/:id/reply`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PermissionReplyBody {
    pub reply: PermissionReply,
    /// With `reject`: what the model is told instead of the bare refusal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// One choice of a question.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QuestionOption {
    pub label: String,
    #[serde(default)]
    pub description: String,
}

/// One question put to the user.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QuestionInfo {
    pub question: String,
    #[serde(default)]
    pub header: String,
    #[serde(default)]
    pub options: Vec<QuestionOption>,
    /// Several options may be chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiple: Option<bool>,
    /// A typed answer is allowed (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<bool>,
}

impl QuestionInfo {
    /// Whether several options may be chosen (no by default).
    pub fn is_multiple(&self) -> bool {
        self.multiple.unwrap_or(false)
    }

    /// Whether a typed answer is allowed (yes by default).
    pub fn allows_custom(&self) -> bool {
        self.custom.unwrap_or(true)
    }
}

/// A pending question (`question.asked`, `GET /question`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QuestionRequest {
    /// `que_…`
    pub id: String,
    #[serde(rename = "sessionID")]
    pub session_id: String,
    pub questions: Vec<QuestionInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolRef>,
}

/// `POST /question/:id/reply`: per question, in order, the chosen labels (or typed text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QuestionReplyBody {
    pub answers: Vec<Vec<String>>,
}

/// One item of a session's todo list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Todo {
    pub content: String,
    /// `pending`, `in_progress`, `completed` or `cancelled`.
    pub status: String,
    /// `high`, `medium` or `low`.
    pub priority: String,
}

impl Todo {
    pub fn new(content: &str, status: &str, priority: &str) -> Self {
        Todo {
            content: content.into(),
            status: status.into(),
            priority: priority.into(),
        }
    }
}

/// One file a session changed (`GET /session/:id/diff`, `session.diff`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FileDiff {
    pub path: String,
    /// `added`, `modified` or `deleted`.
    pub status: String,
    pub additions: u64,
    pub deletions: u64,
    #[serde(default)]
    pub patch: String,
}

/// A permission rule: `{permission, pattern, action}` with action `allow`, `ask` or `deny`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PermissionRule {
    pub permission: String,
    pub pattern: String,
    pub action: String,
}

/// `POST /session`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionCreateBody {
    #[serde(rename = "parentID", default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub permission: Vec<PermissionRule>,
}

/// A model named by provider and model id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ModelChoice {
    #[serde(rename = "providerID")]
    pub provider_id: String,
    #[serde(rename = "modelID")]
    pub model_id: String,
}

impl ModelChoice {
    /// `provider/model`, as typed on the command line.
    pub fn label(&self) -> String {
        format!("{}/{}", self.provider_id, self.model_id)
    }
}

/// `POST /session/:id/summarize`: compact the session now. opencode's clients send the
/// model; every field may be left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SummarizeBody {
    #[serde(
        rename = "providerID",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub provider_id: Option<String>,
    #[serde(rename = "modelID", default, skip_serializing_if = "Option::is_none")]
    pub model_id: Option<String>,
    /// Accepted for opencode's clients; a summary asked for here is always manual.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto: Option<bool>,
    /// Strata's: what the summary should keep or focus on (the text after Claude Code's
    /// `/compact`), also given to `PreCompact` hooks as `custom_instructions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

impl SummarizeBody {
    /// The model named, when both of its halves are.
    pub fn model(&self) -> Option<ModelChoice> {
        Some(ModelChoice {
            provider_id: self.provider_id.clone()?,
            model_id: self.model_id.clone()?,
        })
    }
}

/// One part of a prompt. Only text is read today; other kinds are kept as sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum PromptPart {
    Text {
        text: String,
    },
    #[serde(untagged)]
    Other(Map<String, Value>),
}

/// `POST /session/:id/message` and `/prompt_async`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PromptBody {
    pub parts: Vec<PromptPart>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelChoice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    #[serde(rename = "messageID", default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// Store the message without starting a turn.
    #[serde(rename = "noReply", default, skip_serializing_if = "Option::is_none")]
    pub no_reply: Option<bool>,
}

impl PromptBody {
    /// The prompt's text parts joined by blank lines.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .parts
            .iter()
            .filter_map(|p| match p {
                PromptPart::Text { text } => Some(text.as_str()),
                PromptPart::Other(_) => None,
            })
            .collect();
        texts.join("\n\n")
    }

    /// The prompt's `file` parts whose content travels with them (`data:<mime>;base64,…`
    /// URLs): what the user attached. Parts naming a file elsewhere are not read.
    pub fn files(&self) -> Vec<crate::part::FilePart> {
        self.parts
            .iter()
            .filter_map(|p| match p {
                PromptPart::Other(m) if m.get("type").and_then(Value::as_str) == Some("file") => {
                    serde_json::from_value::<crate::part::FilePart>(Value::Object(m.clone())).ok()
                }
                _ => None,
            })
            .filter(|f| f.url.starts_with("data:") && f.url.contains(";base64,"))
            .collect()
    }
}

/// The body of every failing route: `{"name": "NotFoundError", "data": {"message": …}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ApiError {
    pub name: String,
    pub data: Map<String, Value>,
}

impl ApiError {
    pub fn new(name: &str, message: impl Into<String>) -> Self {
        let mut data = Map::new();
        data.insert("message".into(), Value::String(message.into()));
        Self {
            name: name.into(),
            data,
        }
    }

    /// The human message, if any.
    pub fn message(&self) -> Option<&str> {
        self.data.get("message").and_then(Value::as_str)
    }
}
