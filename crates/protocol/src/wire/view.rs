//! Sessions, messages and parts as the API shows them. A part is `{id, sessionID, messageID,
//! type, …data}` and a message `{id, sessionID, role, …data}`, the same shapes as
//! [`crate::view`] builds from stored rows; [`PartView::typed`] reads the data by kind.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::message::Tokens;
use crate::part::PartData;
use crate::store::{Part, Role};

use super::request::PermissionRule;

/// A session as `GET /session/:id` returns it and `session.*` events carry it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionInfo {
    pub id: String,
    #[serde(default)]
    pub slug: String,
    #[serde(rename = "projectID", default)]
    pub project_id: String,
    #[serde(default)]
    pub directory: String,
    #[serde(rename = "parentID", default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub cost: f64,
    #[serde(default)]
    pub tokens: Tokens,
    pub time: SessionTime,
    /// The session's own permission rules (e.g. `opencode run` denies `question`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub permission: Vec<PermissionRule>,
    /// Anything else the server adds (`agent`, `model`, `revert`, `summary`, …).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SessionInfo {
    /// The sandbox the session's commands run in (`workspace-write`, `read-only`, `off`), when
    /// the server says (Strata's server adds it; opencode's does not).
    pub fn sandbox(&self) -> Option<&str> {
        self.extra.get("sandbox").and_then(Value::as_str)
    }
}

#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct SessionTime {
    pub created: i64,
    pub updated: i64,
}

/// A message: `{id, sessionID, role, …}`; the rest is a user or assistant message's data
/// ([`UserMessage`](crate::UserMessage), [`AssistantMessage`](crate::AssistantMessage)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MessageView {
    pub id: String,
    #[serde(rename = "sessionID")]
    pub session_id: String,
    pub role: Role,
    #[serde(flatten)]
    pub data: Map<String, Value>,
}

/// A message with its parts, as `GET /session/:id/message` lists them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MessageEntry {
    pub info: MessageView,
    pub parts: Vec<PartView>,
}

/// A part: `{id, sessionID, messageID, type, …data}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PartView {
    pub id: String,
    #[serde(rename = "sessionID")]
    pub session_id: String,
    #[serde(rename = "messageID")]
    pub message_id: String,
    /// One of [`part::kinds`](crate::part::kinds), or a kind this build does not know.
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(flatten)]
    pub data: Map<String, Value>,
}

impl PartView {
    /// The part's data typed by its kind; `None` for a kind this build does not know.
    pub fn typed(&self) -> Option<PartData> {
        PartData::of(&self.as_part())
    }

    /// The view as a stored-row [`Part`] (position and time unknown: 0).
    pub fn as_part(&self) -> Part {
        Part {
            id: self.id.clone(),
            message_id: self.message_id.clone(),
            session_id: self.session_id.clone(),
            seq: 0,
            kind: self.kind.clone(),
            data: Value::Object(self.data.clone()),
            updated_ms: 0,
        }
    }

    /// The view of a stored part, as [`crate::view::part_json`] shows it.
    pub fn of(part: &Part) -> Self {
        Self::from_part(part.clone())
    }

    /// [`of`](Self::of), taking the part: its data moves into the view, uncopied.
    pub fn from_part(part: Part) -> Self {
        let data = match part.data {
            Value::Object(mut map) => {
                for key in ["id", "sessionID", "messageID", "type"] {
                    map.shift_remove(key);
                }
                map
            }
            _ => Map::new(),
        };
        Self {
            id: part.id,
            session_id: part.session_id,
            message_id: part.message_id,
            kind: part.kind,
            data,
        }
    }
}
