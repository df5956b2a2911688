//! A session's tools as its next step sees them (`GET /session/:id/tools`): each tool loaded
//! (its schema is sent on every request) or deferred (only its name is listed; `tool_search`
//! loads it), and the counts a client shows.

use serde::{Deserialize, Serialize};

/// `GET /session/:id/tools`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionTools {
    /// `provider/model` the surface was laid out for (the session's last, else the config's).
    #[serde(default)]
    pub model: String,
    /// How many tools are sent with their schemas.
    pub loaded: usize,
    /// How many tools are only named, waiting for `tool_search`.
    pub deferred: usize,
    /// Loaded tools first, in the order the model sees them, then the deferred ones.
    #[serde(default)]
    pub tools: Vec<SessionTool>,
}

/// One tool of [`SessionTools`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionTool {
    pub id: String,
    /// `loaded` or `deferred`.
    pub state: String,
}
