//! Deferred tools (spec §24): a tool is *loaded* (its schema is sent with every request) or
//! *deferred* (only its name is listed, in one line of the system prompt, and `tool_search`
//! loads it). Built-in tools are always loaded. An MCP server's tools are deferred when its
//! `defer` is `always`, or when it is `auto` (the default) and the schemas of all MCP tools on
//! the surface together pass `tool_surface.defer_threshold`.
//!
//! [`Layout`] is one step's split. Tools a session loaded (through `tool_search`, or by calling
//! a deferred tool directly) come after all the others, in the order they were loaded, so the
//! request's tool list only ever grows at its end.

pub mod bm25;
pub mod search;

use serde_json::{Value, json};
use strata_services::config::DeferMode;
use strata_services::permission::hidden_tools;
use strata_tools::ErasedTool;

use crate::mcp::{McpTools, tool_id};

/// The metadata key of a tool result that loaded deferred tools: an array of their names.
pub const LOADED_KEY: &str = "loadedTools";

/// A rough token count of `bytes` bytes of text: four bytes a token (compaction counts so too).
pub fn estimate_tokens(bytes: usize) -> u64 {
    (bytes as u64).div_ceil(4)
}

/// The bytes a tool takes in a request: its name, description and schema as JSON.
pub fn schema_bytes(t: &ErasedTool) -> usize {
    let spec = json!({"name": t.id, "description": t.description, "parameters": *t.schema});
    spec.to_string().len()
}

/// What decides the split besides the surface.
#[derive(Debug, Clone, Default)]
pub struct Deferral {
    /// The model's context window in tokens.
    pub context_window: u64,
    /// The tools the session loaded so far, in the order it loaded them.
    pub loaded: Vec<String>,
}

/// Whether a tool is sent with its schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolState {
    Loaded,
    Deferred,
}

impl ToolState {
    /// The state as it is serialized: `loaded` or `deferred`.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolState::Loaded => "loaded",
            ToolState::Deferred => "deferred",
        }
    }
}

/// One step's tools: the loaded ones in request order, and the deferred ones by name.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// Sent with their schemas, in this order.
    pub tools: Vec<ErasedTool>,
    /// Listed by name only.
    pub deferred: Vec<ErasedTool>,
}

impl Layout {
    /// A deferred tool by exact name.
    pub fn deferred_tool(&self, name: &str) -> Option<&ErasedTool> {
        self.deferred.iter().find(|t| t.id == name)
    }

    /// Every tool with its state: the loaded ones in request order, then the deferred ones.
    pub fn states(&self) -> Vec<(&ErasedTool, ToolState)> {
        let loaded = self.tools.iter().map(|t| (t, ToolState::Loaded));
        let deferred = self.deferred.iter().map(|t| (t, ToolState::Deferred));
        loaded.chain(deferred).collect()
    }

    /// The system prompt's line naming the deferred tools, when there are any.
    pub fn deferred_line(&self) -> Option<String> {
        if self.deferred.is_empty() {
            return None;
        }
        let names: Vec<&str> = self.deferred.iter().map(|t| t.id).collect();
        Some(format!(
            "Deferred tools (not loaded; load with `{}` or call one by name): {}",
            search::ID,
            names.join(", ")
        ))
    }
}

/// The names recorded under [`LOADED_KEY`] in `metadata` (tool results of a session, oldest
/// first), each once, in the order they were first loaded.
pub fn loaded_names<'a>(metadata: impl IntoIterator<Item = &'a Value>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for meta in metadata {
        let Some(names) = meta.get(LOADED_KEY).and_then(Value::as_array) else {
            continue;
        };
        for name in names.iter().filter_map(Value::as_str) {
            if !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// Splits `surface` (the advertised tools, in order) into loaded and deferred.
pub(crate) fn layout(
    surface: Vec<ErasedTool>,
    mcp: &McpTools,
    deferral: &Deferral,
    ruleset: &strata_services::permission::Ruleset,
) -> Layout {
    // Without `tool_search` nothing could load a deferred tool: send every schema.
    if !hidden_tools(&[(search::ID, search::ID)], ruleset).is_empty() {
        return Layout {
            tools: surface,
            deferred: Vec::new(),
        };
    }
    let modes: Vec<(String, DeferMode)> = mcp
        .mcp
        .tools()
        .iter()
        .map(|t| (tool_id(&t.server, &t.name), t.defer))
        .collect();
    let mode = |id: &str| modes.iter().find(|(m, _)| m == id).map(|(_, d)| *d);
    let mcp_bytes: usize = surface
        .iter()
        .filter(|t| mode(t.id).is_some())
        .map(schema_bytes)
        .sum();
    let over = estimate_tokens(mcp_bytes) > mcp.defer_threshold.tokens(deferral.context_window);
    let deferrable = |t: &ErasedTool| match mode(t.id) {
        Some(DeferMode::Always) => true,
        Some(DeferMode::Auto) => over,
        Some(DeferMode::Never) | None => false,
    };
    let first_mcp = surface
        .iter()
        .position(|t| mode(t.id).is_some() || t.id == crate::execute::ID);
    let (mut tools, mut rest): (Vec<ErasedTool>, Vec<ErasedTool>) =
        surface.into_iter().partition(|t| !deferrable(t));
    if rest.is_empty() {
        return Layout {
            tools,
            deferred: Vec::new(),
        };
    }
    let mut appended = Vec::new();
    for name in &deferral.loaded {
        if let Some(i) = rest.iter().position(|t| t.id == name) {
            appended.push(rest.remove(i));
        }
    }
    let at = first_mcp.map_or(tools.len(), |i| i.min(tools.len()));
    let catalogue = search::Catalogue::new(rest.clone());
    tools.insert(
        at,
        search::tool(catalogue, mcp.truncate.clone(), &mcp.limits),
    );
    tools.extend(appended);
    Layout {
        tools,
        deferred: rest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loaded_names_keep_first_load_order_once_each() {
        let metas = [
            json!({"loadedTools": ["b", "a"]}),
            json!({"truncated": false}),
            json!({"loadedTools": ["a", "c"]}),
            json!({"loadedTools": "not a list"}),
        ];
        assert_eq!(loaded_names(&metas), ["b", "a", "c"]);
    }

    #[test]
    fn tokens_are_estimated_at_four_bytes_each() {
        assert_eq!(estimate_tokens(0), 0);
        assert_eq!(estimate_tokens(1), 1);
        assert_eq!(estimate_tokens(8), 2);
        assert_eq!(estimate_tokens(9), 3);
    }

    #[test]
    fn a_state_reads_as_it_serializes() {
        for state in [ToolState::Loaded, ToolState::Deferred] {
            assert_eq!(serde_json::to_value(state).unwrap(), json!(state.as_str()));
        }
    }
}
