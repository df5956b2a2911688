//! Commands a client can run in a session (`GET /command`, `POST /session/:id/command`), in
//! opencode's shapes. Strata's commands are the prompts of the connected MCP servers, named
//! `server:prompt`; the text after the name fills the prompt's arguments.

use serde::{Deserialize, Serialize};

/// One command, as `GET /command` lists it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CommandInfo {
    /// `server:prompt`.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Where it comes from: `mcp`.
    #[serde(default)]
    pub source: String,
    /// The text the command expands to, when known without running it (empty for MCP
    /// prompts, which the server renders).
    #[serde(default)]
    pub template: String,
    /// The arguments, in order, for a usage line: `city`, `[state]` (optional in brackets).
    #[serde(default)]
    pub hints: Vec<String>,
}

/// `POST /session/:id/command`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CommandBody {
    /// The command's name, without a slash: `server:prompt`.
    pub command: String,
    /// The text after the name: values in order, or `name=value`; quote a value with spaces.
    #[serde(default)]
    pub arguments: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// `provider/model`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}
