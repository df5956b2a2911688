//! The `read_mcp_resource` Tool implementation: the server must be connected and offer
//! resources; the permission is asked for `‹server›:‹uri›`; a refusal says to list first.

use schemars::JsonSchema;
use serde::Deserialize;
use strata_services::mcp::{MCP_RESOURCES, Mcp, McpError};

use super::render::contents;
use crate::contract::{Ask, Effects, Tool, ToolCx, ToolError, ToolResult, Visibility};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadMcpResourceParams {
    /// The MCP server that has the resource, as `list_mcp_resources` names it.
    pub server: String,
    /// The resource's URI, from `list_mcp_resources` or built from one of its templates.
    pub uri: String,
}

#[derive(Debug)]
pub struct ReadMcpResource {
    mcp: Mcp,
}

impl Tool for ReadMcpResource {
    const ID: &'static str = "read_mcp_resource";
    const PERMISSION: &'static str = "mcp_resource";
    const VISIBILITY: Visibility = Visibility::Backend(MCP_RESOURCES);
    const EFFECTS: Effects = Effects {
        read_only: true,
        destructive: false,
        concurrency_safe: true,
        open_world: true,
    };
    type Params = ReadMcpResourceParams;
    type Deps = (Mcp,);

    fn init((mcp,): Self::Deps) -> Self {
        ReadMcpResource { mcp }
    }

    fn description(&self) -> String {
        include_str!("description.md").to_string()
    }

    async fn execute(&self, p: ReadMcpResourceParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        let (server, uri) = (p.server.as_str(), p.uri.trim());
        let offering = self.mcp.resource_servers();
        if !offering.iter().any(|s| s == server) {
            return Err(not_offered(server, uri, &offering));
        }
        let pattern = format!("{server}:{uri}");
        cx.ask(Ask::new(
            Self::PERMISSION,
            vec![pattern.clone()],
            vec![pattern],
        ))
        .await?;
        let parts = match self.mcp.read_resource(server, uri, &cx.abort).await {
            Ok(parts) => parts,
            Err(e) => return Err(read_error(server, uri, e)),
        };
        let (output, attachments) = contents(uri, &parts).map_err(ToolError::model)?;
        let mut result = ToolResult::new(uri.to_string(), output)
            .meta("server", server)
            .meta("uri", uri);
        for a in attachments {
            result = result.attach(a);
        }
        Ok(result)
    }
}

fn not_offered(server: &str, uri: &str, offering: &[String]) -> ToolError {
    let others = if offering.is_empty() {
        "No connected MCP server offers resources right now.".to_string()
    } else {
        format!("Servers with resources: {}.", offering.join(", "))
    };
    ToolError::model(format!(
        "Cannot read `{uri}`: the MCP server `{server}` is not connected or offers no \
         resources. {others} Call `list_mcp_resources` to see which server has which URI."
    ))
}

fn read_error(server: &str, uri: &str, e: McpError) -> ToolError {
    match e {
        McpError::Cancelled => ToolError::Cancelled,
        McpError::Refused { message, .. } => ToolError::model(format!(
            "The MCP server `{server}` could not read `{uri}`: {message}. Call \
             `list_mcp_resources` with `server: \"{server}\"` and use a URI it lists, or one \
             built from its resource templates."
        )),
        e => ToolError::model(format!("Could not read `{uri}` from `{server}`: {e}.")),
    }
}
