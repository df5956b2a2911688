//! MCP tools adapted to the tool contract: each tool of a connected server becomes a registry
//! tool named `‹server›_‹tool›`, with the server's schema, behind the standard wrapper.
//!
//! - Permission key = that name (asked with pattern `*`), so `"myserver_*": "deny"` hides a
//!   whole server.
//! - Effects: read-only only when the server is in `mcp_trust` and the tool says
//!   `readOnlyHint`; otherwise those of an execute tool (runs alone, hidden in plan mode).
//! - Text parts are joined, images become attachments, `isError` is a tool error.

use serde_json::{Map, Value};
use strata_services::config::{DeferThreshold, ToolOutput};
use strata_services::hooks::Hooks;
use strata_services::mcp::{Mcp, McpError, McpOutput, McpTool};
use strata_services::truncate::Truncate;
use strata_tools::contract::{Decoded, DynamicTool, intern};
use strata_tools::layers::hooks::{HookBinding, HooksLayer};
use strata_tools::{Ask, Attachment, Effects, ErasedTool, ToolError, ToolResult, Visibility};

/// One MCP tool the script may call.
#[derive(Debug, Clone)]
pub(crate) struct Callable {
    pub(crate) mcp: McpTool,
    pub(crate) tool: ErasedTool,
}

/// Effects of an MCP tool nobody vouched for: those of `bash`.
pub const UNTRUSTED: Effects = Effects {
    read_only: false,
    destructive: true,
    concurrency_safe: false,
    open_world: true,
};

/// Effects of a trusted server's tool that declares `readOnlyHint`.
pub const TRUSTED_READ_ONLY: Effects = Effects {
    read_only: true,
    destructive: false,
    concurrency_safe: true,
    open_world: true,
};

/// `‹server›_‹tool›` with every character outside `[A-Za-z0-9_-]` turned into `_`.
pub fn tool_id(server: &str, tool: &str) -> String {
    format!("{}_{}", sanitize(server), sanitize(tool))
}

pub(crate) fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// What the registry needs to wrap MCP tools.
#[derive(Debug, Clone)]
pub(crate) struct McpTools {
    pub(crate) mcp: Mcp,
    pub(crate) truncate: Truncate,
    pub(crate) limits: ToolOutput,
    /// Claude Code's hooks, which name MCP tools `mcp__‹server›__‹tool›`.
    pub(crate) hooks: Option<Hooks>,
    /// `tool_surface.defer_threshold`.
    pub(crate) defer_threshold: DeferThreshold,
}

impl McpTools {
    /// The current MCP tools, wrapped; a name already taken (by a built-in tool or an earlier
    /// server) is skipped with a warning.
    pub(crate) fn wrapped(&self, taken: &[&str]) -> Vec<ErasedTool> {
        self.callables(taken).into_iter().map(|c| c.tool).collect()
    }

    /// Like [`McpTools::wrapped`], each with the server's own description of it.
    pub(crate) fn callables(&self, taken: &[&str]) -> Vec<Callable> {
        let mut out: Vec<Callable> = Vec::new();
        for tool in self.mcp.tools() {
            let id = tool_id(&tool.server, &tool.name);
            if taken.contains(&id.as_str()) || out.iter().any(|c| c.tool.id == id) {
                tracing::warn!(tool = %id, "an MCP tool name is already taken; the tool is skipped");
                continue;
            }
            let wrapped = self.wrap(tool.clone(), intern(&id));
            out.push(Callable {
                mcp: tool,
                tool: wrapped,
            });
        }
        out
    }

    fn wrap(&self, tool: McpTool, id: &'static str) -> ErasedTool {
        let effects = if tool.trusted_read_only {
            TRUSTED_READ_ONLY
        } else {
            UNTRUSTED
        };
        let def = DynamicTool {
            id,
            permission: id,
            visibility: Visibility::Always,
            description: tool.description.clone(),
            schema: tool.schema.clone(),
            effects,
            hooks: match &self.hooks {
                Some(hooks) => HooksLayer::new(HookBinding {
                    hooks: hooks.clone(),
                    tool: id,
                    permission: id,
                    mcp: Some((tool.server.clone(), tool.name.clone())),
                }),
                None => HooksLayer::off(),
            },
        };
        let call = McpCall {
            mcp: self.mcp.clone(),
            id,
            tool,
        };
        ErasedTool::dynamic_fn(def, self.truncate.clone(), &self.limits, call, McpCall::run)
    }
}

/// Runs one MCP tool: asks its permission, calls the server, converts the result.
#[derive(Clone)]
struct McpCall {
    mcp: Mcp,
    id: &'static str,
    tool: McpTool,
}

impl McpCall {
    async fn run(self, req: Decoded<Value>) -> Result<ToolResult, ToolError> {
        let args = match req.params {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(ToolError::InvalidArguments {
                    tool: self.id.to_string(),
                    detail: format!("the arguments must be a JSON object, not {other}"),
                });
            }
        };
        let ask = Ask::new(self.id, vec!["*".into()], vec!["*".into()])
            .metadata(Value::Object(args.clone()));
        req.cx.ask(ask).await?;
        let out = self
            .mcp
            .call(
                &self.tool.server,
                &self.tool.name,
                args,
                req.cx.abort.clone(),
            )
            .await
            .map_err(|e| match e {
                McpError::Cancelled => ToolError::Cancelled,
                e => ToolError::model(capitalise(&format!("{e}."))),
            })?;
        result(self.id, out)
    }
}

/// Text parts joined by a blank line, files as attachments; `isError` fails the call.
fn result(id: &str, out: McpOutput) -> Result<ToolResult, ToolError> {
    let text = out.texts.join("\n\n");
    if out.is_error {
        let text = if text.trim().is_empty() {
            format!("The MCP tool `{id}` reported an error without a message.")
        } else {
            text
        };
        return Err(ToolError::model(text));
    }
    let mut r = ToolResult::new("", text);
    for (mime, data) in out.files {
        r = r.attach(Attachment::file(mime, &data, None));
    }
    Ok(r)
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_sanitised_like_opencode() {
        assert_eq!(tool_id("everything", "echo"), "everything_echo");
        assert_eq!(tool_id("my.server", "get data/v2"), "my_server_get_data_v2");
        assert_eq!(tool_id("a-b", "c_d"), "a-b_c_d");
    }

    #[test]
    fn results_join_text_attach_files_and_fail_on_is_error() {
        let ok = result(
            "s_t",
            McpOutput {
                texts: vec!["one".into(), "two".into()],
                files: vec![("image/png".into(), "AAAA".into())],
                is_error: false,
            },
        )
        .unwrap();
        assert_eq!(ok.output, "one\n\ntwo");
        assert_eq!(ok.attachments[0].url, "data:image/png;base64,AAAA");
        let err = result(
            "s_t",
            McpOutput {
                texts: vec!["bad input".into()],
                is_error: true,
                ..McpOutput::default()
            },
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "bad input");
    }
}
