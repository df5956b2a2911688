//! What a program may call, and how the model learns about it: the catalogue in `execute`'s
//! description (within [`BUDGET`] bytes; past it the rest is found with `search()`), and the
//! `search()` function, ranked by the same BM25 index as `tool_search`.

use std::sync::Arc;

use serde_json::{Value, json};
use strata_tools::ErasedTool;

use crate::deferred::bm25::Index;
use crate::mcp::{Callable, sanitize};

/// Bytes of catalogue lines the description may hold.
pub const BUDGET: usize = 6_000;
/// How many tools one `search()` returns.
pub const SEARCH_TOP: usize = 8;

/// The read-only built-in tools a program may call, when they are on the surface.
pub const BUILTINS: [&str; 5] = ["read", "glob", "grep", "webfetch", "lsp"];

/// One tool a program may call.
#[derive(Debug, Clone)]
pub(crate) struct Callee {
    /// The MCP server (sanitised); `None` for a built-in tool.
    pub(crate) server: Option<String>,
    /// The name inside `tools` (or `tools.‹server›`).
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) schema: Value,
    /// The tool behind its own wrapper.
    pub(crate) tool: ErasedTool,
}

impl Callee {
    pub(crate) fn builtin(tool: &ErasedTool) -> Callee {
        Callee {
            server: None,
            name: tool.id.to_string(),
            description: tool.description.clone(),
            schema: (*tool.schema).clone(),
            tool: tool.clone(),
        }
    }

    pub(crate) fn mcp(c: Callable) -> Callee {
        Callee {
            server: Some(sanitize(&c.mcp.server)),
            name: c.mcp.name,
            description: c.mcp.description,
            schema: c.mcp.schema,
            tool: c.tool,
        }
    }

    /// How a program calls it: `tools.read` or `tools.server.tool`.
    pub(crate) fn call(&self) -> String {
        match &self.server {
            Some(s) => format!("tools.{s}.{}", self.name),
            None => format!("tools.{}", self.name),
        }
    }

    /// The catalogue line: call, signature and the description's first line.
    fn line(&self) -> String {
        let first = self.description.lines().next().unwrap_or_default();
        format!(
            "- `{}(input: {})`: {first}",
            self.call(),
            signature(&self.schema)
        )
    }
}

/// The catalogue for the description: every line while within `budget` bytes, built-in tools
/// first; past it, a note on `search()` and how many tools it can find.
pub(crate) fn listing(callees: &[Callee], budget: usize) -> String {
    let mut out = String::new();
    let mut left_out = 0usize;
    for c in callees {
        let line = c.line();
        if left_out == 0 && out.len() + line.len() < budget {
            out.push('\n');
            out.push_str(&line);
        } else {
            left_out += 1;
        }
    }
    if left_out > 0 {
        out.push_str(&format!(
            "\n\n{left_out} more tools are not listed here. Find them from the program with \
             `search(\"a few words\")`, which returns up to {SEARCH_TOP} matches as `{{call, \
             input, description}}` (`call` is the path to call, `input` its signature)."
        ));
    }
    out
}

/// `search()`'s index over `callees`.
#[derive(Debug, Clone)]
pub(crate) struct Finder {
    entries: Arc<Vec<Value>>,
    index: Arc<Index>,
}

impl Finder {
    pub(crate) fn new(callees: &[Callee]) -> Finder {
        let docs: Vec<String> = callees
            .iter()
            .map(|c| {
                let params: Vec<&str> = c.schema["properties"]
                    .as_object()
                    .map(|p| p.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                format!("{} {} {}", c.call(), c.description, params.join(" "))
            })
            .collect();
        let entries = callees
            .iter()
            .map(|c| {
                json!({
                    "call": c.call(),
                    "input": signature(&c.schema),
                    "description": c.description,
                })
            })
            .collect();
        Finder {
            entries: Arc::new(entries),
            index: Arc::new(Index::new(&docs)),
        }
    }

    /// The matches for `query` as a JSON array.
    pub(crate) fn find(&self, query: &str) -> String {
        let hits: Vec<&Value> = self
            .index
            .search(query, SEARCH_TOP)
            .into_iter()
            .map(|(i, _)| &self.entries[i])
            .collect();
        serde_json::to_string(&hits).unwrap_or_else(|_| "[]".into())
    }
}

/// `{ city: string, days?: number }` from a JSON schema's properties.
pub(crate) fn signature(schema: &Value) -> String {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema["properties"].as_object() else {
        return "{}".into();
    };
    let fields: Vec<String> = props
        .iter()
        .map(|(k, v)| {
            let ty = v["type"].as_str().unwrap_or("any");
            let ty = if ty == "integer" { "number" } else { ty };
            let opt = if required.contains(&k.as_str()) {
                ""
            } else {
                "?"
            };
            format!("{k}{opt}: {ty}")
        })
        .collect();
    if fields.is_empty() {
        "{}".into()
    } else {
        format!("{{ {} }}", fields.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn callee(server: Option<&str>, name: &str, description: &str) -> Callee {
        let def = strata_tools::contract::DynamicTool {
            id: "x",
            permission: "x",
            visibility: strata_tools::Visibility::Always,
            description: description.into(),
            schema: json!({}),
            effects: strata_tools::Effects::READ_ONLY,
            hooks: strata_tools::layers::hooks::HooksLayer::off(),
        };
        let tool = ErasedTool::dynamic_fn(
            def,
            strata_services::truncate::Truncate::new(
                std::env::temp_dir(),
                strata_services::clock::Clock::live(),
            ),
            &Default::default(),
            (),
            |(), _req| async { Ok(strata_tools::ToolResult::new("", "")) },
        );
        Callee {
            server: server.map(str::to_string),
            name: name.into(),
            description: description.into(),
            schema: json!({"type": "object", "properties": {"city": {"type": "string"},
                "days": {"type": "integer"}}, "required": ["city"]}),
            tool,
        }
    }

    #[test]
    fn signatures_mark_optional_fields() {
        let c = callee(Some("weather"), "now", "Current weather.\nMore.");
        assert_eq!(c.call(), "tools.weather.now");
        assert_eq!(
            c.line(),
            "- `tools.weather.now(input: { city: string, days?: number })`: Current weather."
        );
        assert_eq!(callee(None, "read", "Reads.").call(), "tools.read");
        assert_eq!(signature(&json!({"type": "object"})), "{}");
    }

    #[test]
    fn past_the_budget_the_rest_is_left_to_search() {
        let many: Vec<Callee> = (0..50)
            .map(|i| callee(Some("s"), &format!("tool{i}"), "Does a thing with tides."))
            .collect();
        let all = listing(&many, 100_000);
        assert_eq!(all.lines().filter(|l| l.starts_with("- ")).count(), 50);
        assert!(!all.contains("search("));
        let some = listing(&many, 500);
        let shown = some.lines().filter(|l| l.starts_with("- ")).count();
        assert!(shown > 0 && shown < 50, "{shown}");
        assert!(some.contains(&format!("{} more tools are not listed", 50 - shown)));
        let finder = Finder::new(&many);
        let hits: Vec<Value> = serde_json::from_str(&finder.find("tides")).unwrap();
        assert_eq!(hits.len(), SEARCH_TOP);
        assert_eq!(hits[0]["input"], "{ city: string, days?: number }");
    }
}
