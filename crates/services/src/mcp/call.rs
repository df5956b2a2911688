//! Calling one MCP tool: the server's call timeout, the call's cancellation, and the result
//! reduced to text parts, images and the error flag.

use std::time::Duration;

use rmcp::ServiceError;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, ResourceContents};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::Mcp;

/// What a call returned, in our terms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct McpOutput {
    /// Text parts in order (resources with text included).
    pub texts: Vec<String>,
    /// `(mime type, base64 data)` of each image or binary part.
    pub files: Vec<(String, String)>,
    /// The server flagged the result as an error (`isError`).
    pub is_error: bool,
}

/// Why a call did not return a result.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error(
        "the MCP server `{server}` is not available ({why}); see `strata mcp list`, fix its \
         entry under `mcp` in strata.json, and start again"
    )]
    Unavailable { server: String, why: String },
    #[error(
        "the MCP server `{server}` did not finish `{tool}` within {} ms (its `call_timeout`); \
         try again, or with smaller input",
        after.as_millis()
    )]
    Timeout {
        server: String,
        tool: String,
        after: Duration,
    },
    #[error(
        "the MCP server `{server}` stopped while running `{tool}` ({why}); its tools are gone \
         until Strata starts again"
    )]
    Stopped {
        server: String,
        tool: String,
        why: String,
    },
    #[error("the MCP server `{server}` refused `{tool}`: {message}")]
    Refused {
        server: String,
        tool: String,
        message: String,
    },
    #[error("the call was cancelled")]
    Cancelled,
}

impl Mcp {
    /// Calls `tool` on `server` with `args` (a JSON object).
    pub async fn call(
        &self,
        server: &str,
        tool: &str,
        args: Map<String, Value>,
        cancel: CancellationToken,
    ) -> Result<McpOutput, McpError> {
        let Some((conn, config)) = self.connection(server) else {
            let why = self
                .servers()
                .into_iter()
                .find(|s| s.name == server)
                .map(|s| format!("{:?}", s.status))
                .unwrap_or_else(|| "it is not configured".into());
            return Err(McpError::Unavailable {
                server: server.into(),
                why,
            });
        };
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
        let call = tokio::time::timeout(config.call_timeout, conn.peer.call_tool(params));
        let result = tokio::select! {
            r = call => r,
            () = cancel.cancelled() => return Err(McpError::Cancelled),
        };
        let (server, tool) = (server.to_string(), tool.to_string());
        match result {
            Err(_) => Err(McpError::Timeout {
                server,
                tool,
                after: config.call_timeout,
            }),
            Ok(Ok(r)) => Ok(output(r)),
            Ok(Err(ServiceError::McpError(e))) => Err(McpError::Refused {
                server,
                tool,
                message: e.message.to_string(),
            }),
            Ok(Err(e)) => {
                let why = conn.failure(&e.to_string());
                self.fail(&server, format!("it stopped while running `{tool}`: {why}"));
                Err(McpError::Stopped { server, tool, why })
            }
        }
    }
}

fn output(result: CallToolResult) -> McpOutput {
    let mut out = McpOutput {
        is_error: result.is_error.unwrap_or(false),
        ..McpOutput::default()
    };
    for block in result.content {
        match block {
            ContentBlock::Text(t) => out.texts.push(t.text),
            ContentBlock::Image(i) => out.files.push((i.mime_type, i.data)),
            ContentBlock::Audio(a) => out.files.push((a.mime_type, a.data)),
            ContentBlock::Resource(r) => match r.resource {
                ResourceContents::TextResourceContents { text, .. } => out.texts.push(text),
                ResourceContents::BlobResourceContents {
                    blob, mime_type, ..
                } => out.files.push((
                    mime_type.unwrap_or_else(|| "application/octet-stream".into()),
                    blob,
                )),
                #[allow(unreachable_patterns)]
                _ => {}
            },
            ContentBlock::ResourceLink(link) => out.texts.push(format!("Resource: {}", link.uri)),
            #[allow(unreachable_patterns)]
            _ => {}
        }
    }
    if out.texts.is_empty()
        && let Some(structured) = result.structured_content
    {
        out.texts.push(structured.to_string());
    }
    out
}
