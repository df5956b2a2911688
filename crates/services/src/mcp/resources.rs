//! MCP resources (issue 23 §2): which servers offer them (their `resources` capability), their
//! resources and resource templates read to the last page, and reading one resource.
//!
//! Requests other than tool calls share [`Mcp::request`]: the server's `call_timeout`, the
//! caller's cancellation, and a server that stopped marked failed, as for a call.

use std::future::Future;

use rmcp::model::{ReadResourceRequestParams, ResourceContents};
use rmcp::{Peer, RoleClient, ServiceError};
use tokio_util::sync::CancellationToken;

use super::{McpError, State};
use crate::mcp::Mcp;

/// The backend name the resource tools are shown behind (`Visibility::Backend`): the registry
/// reports it configured while a connected server offers resources.
pub const MCP_RESOURCES: &str = "mcp_resources";

/// One resource a server lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpResource {
    pub server: String,
    pub uri: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    /// Bytes, when the server says.
    pub size: Option<u64>,
}

/// One resource template (an RFC 6570 URI template) a server lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpResourceTemplate {
    pub server: String,
    pub uri_template: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
}

/// What one server lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResourceListing {
    pub resources: Vec<McpResource>,
    pub templates: Vec<McpResourceTemplate>,
}

/// One part of a resource read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourcePart {
    pub uri: String,
    pub mime_type: Option<String>,
    pub body: ResourceBody,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceBody {
    Text(String),
    /// Base64, as the server sent it.
    Blob(String),
}

impl Mcp {
    /// The connected servers whose `initialize` answer declares `resources`, in config order.
    pub fn resource_servers(&self) -> Vec<String> {
        self.read()
            .iter()
            .filter_map(|e| match &e.state {
                State::Ready(c, _) => {
                    let info = c.peer.peer_info()?;
                    info.capabilities.resources.as_ref()?;
                    Some(e.config.name.clone())
                }
                _ => None,
            })
            .collect()
    }

    /// `server`'s resources and resource templates, every page of each. A server that offers
    /// resources but answers `resources/templates/list` with an error has no templates.
    pub async fn list_resources(
        &self,
        server: &str,
        cancel: &CancellationToken,
    ) -> Result<ResourceListing, McpError> {
        let resources = self
            .request(server, "resources/list", cancel, |p| async move {
                p.list_all_resources().await
            })
            .await?;
        let templates = self
            .request(server, "resources/templates/list", cancel, |p| async move {
                p.list_all_resource_templates().await
            })
            .await;
        let templates = match templates {
            Ok(t) => t,
            Err(McpError::Refused { .. }) => Vec::new(),
            Err(e) => return Err(e),
        };
        let server = server.to_string();
        Ok(ResourceListing {
            resources: resources
                .into_iter()
                .map(|r| McpResource {
                    server: server.clone(),
                    uri: r.uri,
                    name: r.name,
                    title: r.title,
                    description: r.description,
                    mime_type: r.mime_type,
                    size: r.size,
                })
                .collect(),
            templates: templates
                .into_iter()
                .map(|t| McpResourceTemplate {
                    server: server.clone(),
                    uri_template: t.uri_template,
                    name: t.name,
                    title: t.title,
                    description: t.description,
                    mime_type: t.mime_type,
                })
                .collect(),
        })
    }

    /// Reads `uri` from `server`.
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
        cancel: &CancellationToken,
    ) -> Result<Vec<ResourcePart>, McpError> {
        let params = ReadResourceRequestParams::new(uri);
        let what = format!("resources/read {uri}");
        let result = self
            .request(server, &what, cancel, |p| async move {
                p.read_resource(params).await
            })
            .await?;
        Ok(result.contents.into_iter().filter_map(part).collect())
    }

    /// Sends one request to `server` (`what` names it in errors) within its `call_timeout`.
    pub(super) async fn request<T, F>(
        &self,
        server: &str,
        what: &str,
        cancel: &CancellationToken,
        send: impl FnOnce(Peer<RoleClient>) -> F,
    ) -> Result<T, McpError>
    where
        F: Future<Output = Result<T, ServiceError>>,
    {
        let Some((conn, config)) = self.connection(server) else {
            return Err(self.unavailable(server));
        };
        let sent = tokio::time::timeout(config.call_timeout, send(conn.peer.clone()));
        let result = tokio::select! {
            r = sent => r,
            () = cancel.cancelled() => return Err(McpError::Cancelled),
        };
        let (server, tool) = (server.to_string(), what.to_string());
        match result {
            Err(_) => Err(McpError::Timeout {
                server,
                tool,
                after: config.call_timeout,
            }),
            Ok(Ok(r)) => Ok(r),
            Ok(Err(ServiceError::McpError(e))) => Err(McpError::Refused {
                server,
                tool,
                message: e.message.to_string(),
            }),
            Ok(Err(e)) => {
                let why = conn.failure(&e.to_string());
                self.fail(
                    &server,
                    format!("it stopped while answering `{tool}`: {why}"),
                );
                Err(McpError::Stopped { server, tool, why })
            }
        }
    }

    /// Why `server` cannot be asked anything: its status, or that it is not configured.
    pub(super) fn unavailable(&self, server: &str) -> McpError {
        let why = self
            .servers()
            .into_iter()
            .find(|s| s.name == server)
            .map(|s| format!("{:?}", s.status))
            .unwrap_or_else(|| "it is not configured".into());
        McpError::Unavailable {
            server: server.into(),
            why,
        }
    }
}

fn part(c: ResourceContents) -> Option<ResourcePart> {
    match c {
        ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        } => Some(ResourcePart {
            uri,
            mime_type,
            body: ResourceBody::Text(text),
        }),
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => Some(ResourcePart {
            uri,
            mime_type,
            body: ResourceBody::Blob(blob),
        }),
        // A kind of contents newer than this client.
        _ => None,
    }
}
