//! The Mcp service (DESIGN.md floor 2, issue 11): the instance's connections to the MCP servers
//! configured under `mcp`, through the official SDK (`rmcp`).
//!
//! - Enabled servers are connected concurrently when the instance starts, each within its
//!   `timeout`. A server that fails is kept with its reason (for `strata mcp list` and
//!   warnings); the others work.
//! - Tools are listed at start and listed again when a server sends
//!   `notifications/tools/list_changed`.
//! - Calls honour the server's `call_timeout` and the call's cancellation. A server that stops
//!   mid-call is marked failed; the instance goes on.
//! - Local servers are children of the ChildProcessSpawner and stop with the instance.
//! - Resources ([`resources`]) are listed and read on demand; prompts ([`prompts`]) are listed
//!   at connect and again on `notifications/prompts/list_changed`.
//!
//! The registry (floor 4) turns [`McpTool`]s into tools behind the standard wrapper.

mod call;
mod connect;
pub mod prompt_text;
mod prompts;
mod resources;
mod stdio;

use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use serde_json::Value;
use strata_graph::{BoxError, Node, Scope, Tier};
use tokio::sync::mpsc;

use crate::config::{Config, DeferMode, McpServer};
use crate::http::HttpClient;
use crate::instance::InstanceInfo;
use crate::process::ChildProcessSpawner;
use crate::process::sandbox::Sandbox;

pub use call::{McpError, McpOutput};
pub use connect::ConnectEnv;
use connect::Connection;
pub use prompt_text::{McpPrompt, PromptArg, PromptUsage};
pub use prompts::PromptError;
pub use resources::{
    MCP_RESOURCES, McpResource, McpResourceTemplate, ResourceBody, ResourceListing, ResourcePart,
};
pub use stdio::StdoutLines;

/// One tool a connected server offers.
#[derive(Debug, Clone, PartialEq)]
pub struct McpTool {
    pub server: String,
    /// The name the server knows it by.
    pub name: String,
    pub description: String,
    /// The server's JSON schema for the arguments, passed to the model as is.
    pub schema: Value,
    /// The server is in `mcp_trust` and the tool says `readOnlyHint: true`.
    pub trusted_read_only: bool,
    /// The server's `defer` setting.
    pub defer: DeferMode,
}

/// Where a configured server stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerStatus {
    Connected,
    /// `enabled: false` in config.
    Disabled,
    /// Could not start, answer, or stopped later: the reason.
    Failed(String),
}

/// One configured server as `strata mcp list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerReport {
    pub name: String,
    pub status: ServerStatus,
    pub tools: usize,
}

/// Handle to the instance's MCP connections.
#[derive(Clone)]
pub struct Mcp {
    inner: Arc<Inner>,
}

struct Inner {
    servers: RwLock<Vec<Entry>>,
    trust: Vec<String>,
    /// Kept for servers added after start ([`Mcp::add`]).
    env: ConnectEnv,
}

struct Entry {
    config: McpServer,
    state: State,
}

enum State {
    Disabled,
    Failed(String),
    Ready(Arc<Connection>, Vec<McpTool>),
}

impl strata_graph::Service for Mcp {
    const KEY: &'static str = "Mcp";
}

impl std::fmt::Debug for Mcp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mcp")
            .field("servers", &self.servers())
            .finish()
    }
}

impl Mcp {
    /// The instance-tier node: connects the configured servers; they stop with the instance.
    pub fn node() -> Node {
        Node::new(
            Tier::Instance,
            |(info, config, spawner, http, sandbox): (
                InstanceInfo,
                Config,
                ChildProcessSpawner,
                HttpClient,
                Sandbox,
            ),
             scope: Scope| async move {
                let (changed, rx) = mpsc::unbounded_channel();
                let env = ConnectEnv {
                    spawner,
                    http,
                    project: info.directory.clone(),
                    changed,
                    sandbox,
                };
                let mcp =
                    Mcp::start(&config.data().mcp, config.data().mcp_trust.clone(), &env).await;
                scope.spawn(mcp.clone().relist_on_change(rx));
                let closing = mcp.clone();
                scope.add_finalizer("stop MCP servers", move || async move {
                    closing.shutdown().await;
                });
                Ok::<_, BoxError>(mcp)
            },
        )
    }

    /// Connects every enabled server in `servers` concurrently.
    pub async fn start(servers: &[McpServer], trust: Vec<String>, env: &ConnectEnv) -> Mcp {
        let trust_ref = &trust;
        let connects = servers.iter().map(|s| async move {
            let state = if s.enabled {
                match connect::connect(s, env).await {
                    Ok((conn, tools)) => {
                        let tools = describe(s, trust_ref, tools);
                        State::Ready(Arc::new(conn), tools)
                    }
                    Err(why) => State::Failed(why),
                }
            } else {
                State::Disabled
            };
            if let State::Failed(why) = &state {
                tracing::info!(server = %s.name, "MCP server unavailable: {why}");
            }
            Entry {
                config: s.clone(),
                state,
            }
        });
        let entries = futures::future::join_all(connects).await;
        Mcp {
            inner: Arc::new(Inner {
                servers: RwLock::new(entries),
                trust,
                env: env.clone(),
            }),
        }
    }

    /// Connects `servers` beside the configured ones (e.g. the servers an editor passes for
    /// its session over ACP); one whose name is already taken is left out, so a configured
    /// server keeps its settings. A server that cannot connect is listed as failed, as a
    /// configured one would be.
    pub async fn add(&self, servers: &[McpServer]) {
        let taken = |name: &str, entries: &[Entry]| entries.iter().any(|e| e.config.name == name);
        let new: Vec<McpServer> = {
            let entries = self.read();
            servers
                .iter()
                .filter(|s| !taken(&s.name, &entries))
                .cloned()
                .collect()
        };
        if new.is_empty() {
            return;
        }
        let added = Mcp::start(&new, self.inner.trust.clone(), &self.inner.env).await;
        let connected = std::mem::take(&mut *added.write());
        let mut entries = self.write();
        for entry in connected {
            // Another caller may have added the same name meanwhile: the first one stays.
            if !taken(&entry.config.name, &entries) {
                entries.push(entry);
            }
        }
    }

    /// The tools of every connected server, in config order.
    pub fn tools(&self) -> Vec<McpTool> {
        self.read()
            .iter()
            .filter_map(|e| match &e.state {
                State::Ready(_, tools) => Some(tools.clone()),
                _ => None,
            })
            .flatten()
            .collect()
    }

    /// Every configured server with its status and tool count.
    pub fn servers(&self) -> Vec<ServerReport> {
        self.read()
            .iter()
            .map(|e| {
                let (status, tools) = match &e.state {
                    State::Disabled => (ServerStatus::Disabled, 0),
                    State::Failed(why) => (ServerStatus::Failed(why.clone()), 0),
                    State::Ready(_, tools) => (ServerStatus::Connected, tools.len()),
                };
                ServerReport {
                    name: e.config.name.clone(),
                    status,
                    tools,
                }
            })
            .collect()
    }

    /// Stops every server.
    pub async fn shutdown(&self) {
        let conns: Vec<Arc<Connection>> = self
            .write()
            .iter_mut()
            .filter_map(|e| match std::mem::replace(&mut e.state, State::Disabled) {
                State::Ready(c, _) => {
                    e.state = State::Failed("the instance was shut down".into());
                    Some(c)
                }
                other => {
                    e.state = other;
                    None
                }
            })
            .collect();
        futures::future::join_all(conns.iter().map(|c| c.stop())).await;
    }

    /// Lists a server's tools again each time it says they changed.
    async fn relist_on_change(self, mut rx: mpsc::UnboundedReceiver<String>) {
        while let Some(server) = rx.recv().await {
            let Some((conn, config)) = self.connection(&server) else {
                continue;
            };
            let listed = tokio::time::timeout(config.timeout, conn.peer.list_all_tools()).await;
            let mut servers = self.write();
            let Some(entry) = servers.iter_mut().find(|e| e.config.name == server) else {
                continue;
            };
            entry.state = match listed {
                Ok(Ok(tools)) => State::Ready(conn, describe(&config, &self.inner.trust, tools)),
                Ok(Err(e)) => State::Failed(conn.failure(&format!("`tools/list` failed: {e}"))),
                Err(_) => State::Failed("it did not answer `tools/list` in time".into()),
            };
        }
    }

    fn connection(&self, server: &str) -> Option<(Arc<Connection>, McpServer)> {
        self.read().iter().find_map(|e| match &e.state {
            State::Ready(c, _) if e.config.name == server => Some((c.clone(), e.config.clone())),
            _ => None,
        })
    }

    /// Marks a server failed (it stopped); its tools leave the surface.
    fn fail(&self, server: &str, why: String) {
        if let Some(e) = self.write().iter_mut().find(|e| e.config.name == server) {
            e.state = State::Failed(why);
        }
    }

    fn read(&self) -> RwLockReadGuard<'_, Vec<Entry>> {
        // Entries are replaced whole, so a poisoned lock still holds consistent data.
        self.inner.servers.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Vec<Entry>> {
        self.inner
            .servers
            .write()
            .unwrap_or_else(|e| e.into_inner())
    }
}

/// The SDK's tool descriptions in our terms.
fn describe(server: &McpServer, trust: &[String], tools: Vec<rmcp::model::Tool>) -> Vec<McpTool> {
    let trusted = trust.contains(&server.name);
    tools
        .into_iter()
        .map(|t| {
            let hint = t
                .annotations
                .as_ref()
                .and_then(|a| a.read_only_hint)
                .unwrap_or(false);
            McpTool {
                server: server.name.clone(),
                name: t.name.to_string(),
                description: t.description.as_deref().unwrap_or_default().to_string(),
                schema: Value::Object((*t.input_schema).clone()),
                trusted_read_only: trusted && hint,
                defer: server.defer,
            }
        })
        .collect()
}
