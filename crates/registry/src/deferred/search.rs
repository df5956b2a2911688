//! The `tool_search` tool (spec §24): ranks the deferred tools of this surface with BM25 over
//! their name, description and parameter names, or selects them by exact name, and returns the
//! best ones with their full schemas. The result's `metadata.loadedTools` is the record the
//! agent loop reads back, so the tools stay loaded for the rest of the session.

use std::sync::Arc;

use serde_json::{Value, json};
use strata_services::config::ToolOutput;
use strata_services::truncate::Truncate;
use strata_tools::contract::{Decoded, DynamicTool};
use strata_tools::{Effects, ErasedTool, ToolError, ToolResult, Visibility};

use super::LOADED_KEY;
use super::bm25::Index;

/// The tool id and permission key.
pub const ID: &str = "tool_search";
/// How many tools one search returns.
pub const TOP: usize = 8;

/// The deferred tools and their index.
#[derive(Debug, Clone)]
pub(crate) struct Catalogue {
    tools: Arc<Vec<ErasedTool>>,
    index: Arc<Index>,
}

impl Catalogue {
    pub(crate) fn new(tools: Vec<ErasedTool>) -> Catalogue {
        let docs: Vec<String> = tools.iter().map(document).collect();
        Catalogue {
            index: Arc::new(Index::new(&docs)),
            tools: Arc::new(tools),
        }
    }

    /// The tools for `query`: `select:a,b` by exact name (unknown names listed apart), else
    /// the BM25 ranking, at most `limit`.
    pub(crate) fn find(&self, query: &str, limit: usize) -> (Vec<ErasedTool>, Vec<String>) {
        if let Some(names) = query.trim().strip_prefix("select:") {
            let mut found = Vec::new();
            let mut unknown = Vec::new();
            for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                match self.tools.iter().find(|t| t.id == name) {
                    Some(t) if !found.iter().any(|f: &ErasedTool| f.id == t.id) => {
                        found.push(t.clone());
                    }
                    Some(_) => {}
                    None => unknown.push(name.to_string()),
                }
            }
            return (found, unknown);
        }
        let hits = self.index.search(query, limit);
        let found = hits.iter().map(|(i, _)| self.tools[*i].clone()).collect();
        (found, Vec::new())
    }
}

/// What BM25 sees of a tool: its name, description and parameter names.
fn document(t: &ErasedTool) -> String {
    let params: Vec<&str> = t.schema["properties"]
        .as_object()
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    format!("{} {} {}", t.id, t.description, params.join(" "))
}

/// `tool_search` over `catalogue`, behind the standard wrapper.
pub(crate) fn tool(catalogue: Catalogue, truncate: Truncate, limits: &ToolOutput) -> ErasedTool {
    let def = DynamicTool {
        id: ID,
        permission: ID,
        visibility: Visibility::Always,
        description: include_str!("search.md").trim_end().to_string(),
        schema: json!({
            "type": "object",
            "properties": {"query": {
                "type": "string",
                "description": "Words describing the tools you need, or `select:name1,name2` \
                                for exact names from the deferred list."
            }},
            "required": ["query"],
        }),
        effects: Effects::READ_ONLY,
        // Loading schemas changes nothing a hook guards; Claude Code has no hook name for it.
        hooks: strata_tools::layers::hooks::HooksLayer::off(),
    };
    ErasedTool::dynamic_fn(def, truncate, limits, catalogue, run)
}

async fn run(catalogue: Catalogue, req: Decoded<Value>) -> Result<ToolResult, ToolError> {
    let Some(query) = req.params.get("query").and_then(Value::as_str) else {
        return Err(ToolError::InvalidArguments {
            tool: ID.into(),
            detail: "`query` must be a string: a few words, or `select:name`".into(),
        });
    };
    let (found, unknown) = catalogue.find(query, TOP);
    let names: Vec<&str> = found.iter().map(|t| t.id).collect();
    Ok(ToolResult::new(query, render(query, &found, &unknown)).meta(LOADED_KEY, json!(names)))
}

/// The answer the model reads.
fn render(query: &str, found: &[ErasedTool], unknown: &[String]) -> String {
    let mut out = String::new();
    if found.is_empty() {
        out.push_str(&format!(
            "No deferred tool matches `{query}`. Try other words, or `select:` with a name from \
             the deferred list in the system prompt."
        ));
    } else {
        out.push_str(&format!(
            "Loaded {} tool(s). You can call them now; from your next step on they are offered \
             with the other tools.",
            found.len()
        ));
        for t in found {
            let schema = serde_json::to_string(&*t.schema).unwrap_or_else(|_| "{}".into());
            out.push_str(&format!(
                "\n\n<tool name=\"{}\">\n{}\nparameters: {schema}\n</tool>",
                t.id,
                t.description.trim_end()
            ));
        }
    }
    if !unknown.is_empty() {
        out.push_str(&format!(
            "\n\nNot deferred here (already loaded, hidden, or no such tool): {}.",
            unknown.join(", ")
        ));
    }
    out
}
