//! The `list_mcp_resources` Tool implementation: which servers to ask, the permission, and
//! one listing per server (a server that fails is reported beside the others' listings).

use schemars::JsonSchema;
use serde::Deserialize;
use strata_services::mcp::{MCP_RESOURCES, Mcp, McpError};

use super::render::listing;
use crate::contract::{Ask, Effects, Tool, ToolCx, ToolError, ToolResult, Visibility};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListMcpResourcesParams {
    /// The MCP server whose resources to list; leave it out to list every server's.
    pub server: Option<String>,
}

#[derive(Debug)]
pub struct ListMcpResources {
    mcp: Mcp,
}

impl Tool for ListMcpResources {
    const ID: &'static str = "list_mcp_resources";
    const PERMISSION: &'static str = "mcp_resource";
    const VISIBILITY: Visibility = Visibility::Backend(MCP_RESOURCES);
    const EFFECTS: Effects = Effects {
        read_only: true,
        destructive: false,
        concurrency_safe: true,
        open_world: true,
    };
    type Params = ListMcpResourcesParams;
    type Deps = (Mcp,);

    fn init((mcp,): Self::Deps) -> Self {
        ListMcpResources { mcp }
    }

    fn description(&self) -> String {
        include_str!("description.md").to_string()
    }

    async fn execute(
        &self,
        p: ListMcpResourcesParams,
        cx: ToolCx,
    ) -> Result<ToolResult, ToolError> {
        let servers = pick(&self.mcp.resource_servers(), p.server.as_deref())?;
        let patterns: Vec<String> = servers.iter().map(|s| format!("{s}:*")).collect();
        cx.ask(Ask::new(Self::PERMISSION, patterns.clone(), patterns))
            .await?;
        let mut listed = Vec::new();
        let mut failed = Vec::new();
        for server in &servers {
            match self.mcp.list_resources(server, &cx.abort).await {
                Ok(l) => listed.push(l),
                Err(McpError::Cancelled) => return Err(ToolError::Cancelled),
                Err(e) => failed.push((server.clone(), e.to_string())),
            }
        }
        if listed.is_empty()
            && let [(server, why)] = failed.as_slice()
        {
            return Err(ToolError::model(format!(
                "Could not list the resources of the MCP server `{server}`: {why}"
            )));
        }
        let (output, resources, templates) = listing(&listed, &failed);
        let title = match p.server {
            Some(s) => format!("MCP resources of {s}"),
            None => "MCP resources".to_string(),
        };
        Ok(ToolResult::new(title, output)
            .meta("servers", servers)
            .meta("resources", resources)
            .meta("templates", templates))
    }
}

/// The servers to list: `wanted` when it offers resources, else every one that does.
fn pick(offering: &[String], wanted: Option<&str>) -> Result<Vec<String>, ToolError> {
    if offering.is_empty() {
        return Err(ToolError::model(
            "No connected MCP server offers resources right now. Go on without them.",
        ));
    }
    let Some(wanted) = wanted else {
        return Ok(offering.to_vec());
    };
    if offering.iter().any(|s| s == wanted) {
        return Ok(vec![wanted.to_string()]);
    }
    Err(ToolError::model(format!(
        "The MCP server `{wanted}` is not connected or offers no resources. Servers with \
         resources: {}. Call `list_mcp_resources` with one of these, or without `server`.",
        offering.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_must_offer_resources() {
        let offering = vec!["docs".to_string(), "db".to_string()];
        assert_eq!(pick(&offering, None).unwrap(), offering);
        assert_eq!(pick(&offering, Some("db")).unwrap(), ["db"]);
        let e = pick(&offering, Some("web")).unwrap_err().to_string();
        assert!(e.contains("`web`") && e.contains("docs, db"), "{e}");
        let e = pick(&[], None).unwrap_err().to_string();
        assert!(
            e.starts_with("No connected MCP server offers resources"),
            "{e}"
        );
    }
}
