//! Connecting to one configured server: a child process through the spawner (stdio) or
//! streamable HTTP, the `initialize` handshake and the first `tools/list`, all within the
//! server's connect timeout. Errors are one sentence for `strata mcp list` and warnings.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use tokio::sync::{Mutex, mpsc};

use super::prompts::PromptCache;
use super::stdio::{self, Diagnostics};
use crate::config::{McpServer, McpTransport};
use crate::http::HttpClient;
use crate::process::sandbox::Sandbox;
use crate::process::{Child, ChildProcessSpawner, CommandSpec};

/// Time a stopping server gets after its stdin closes before its group is killed.
const STOP_GRACE: Duration = Duration::from_millis(300);

/// What connecting needs from the instance.
#[derive(Debug, Clone)]
pub struct ConnectEnv {
    pub spawner: ChildProcessSpawner,
    pub http: HttpClient,
    /// A local server's `cwd` is relative to this folder (the project).
    pub project: PathBuf,
    /// Receives the name of a server that announced `notifications/tools/list_changed`.
    pub changed: mpsc::UnboundedSender<String>,
    /// The instance's sandbox, for local servers that opt in (`mcp.<name>.sandbox`).
    pub sandbox: Sandbox,
}

/// The client side of one connection: answers the server and passes list changes on.
pub(super) struct Handler {
    server: String,
    changed: mpsc::UnboundedSender<String>,
    /// Filled again when the server says its prompts changed, within `limit`.
    prompts: Arc<PromptCache>,
    limit: Duration,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("strata", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn on_tool_list_changed(&self, _cx: NotificationContext<RoleClient>) {
        // The receiver lives as long as the service; a closed one means shutting down.
        let _ = self.changed.send(self.server.clone());
    }

    async fn on_prompt_list_changed(&self, cx: NotificationContext<RoleClient>) {
        // Listed on its own task: this handler runs inside the connection's receive loop,
        // which must go on to deliver the answer.
        tokio::spawn(self.prompts.clone().refresh(cx.peer, self.limit));
    }
}

/// A live connection. Dropping it kills a local server's process group.
pub(super) struct Connection {
    pub(super) peer: rmcp::Peer<RoleClient>,
    running: Mutex<Option<RunningService<RoleClient, Handler>>>,
    child: Mutex<Option<Child>>,
    pump: Option<tokio::task::AbortHandle>,
    pub(super) diag: Arc<Diagnostics>,
    /// The server's prompts as last listed.
    pub(super) prompts: Arc<PromptCache>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(p) = &self.pump {
            p.abort();
        }
    }
}

impl Connection {
    /// Ends the session, then stops a local server (stdin closed, grace, group killed).
    pub(super) async fn stop(&self) {
        if let Some(running) = self.running.lock().await.take() {
            let _ = running.cancel().await;
        }
        if let Some(mut child) = self.child.lock().await.take() {
            let now = tokio_util::sync::CancellationToken::new();
            let _ = child.wait(Some(STOP_GRACE), now).await;
        }
    }

    /// Why the server can no longer be used, with what it said on stderr.
    pub(super) fn failure(&self, what: &str) -> String {
        with_stderr(what.to_string(), &self.diag)
    }
}

/// Connects to `server` and lists its tools, within its connect timeout.
pub(super) async fn connect(
    server: &McpServer,
    env: &ConnectEnv,
) -> Result<(Connection, Vec<rmcp::model::Tool>), String> {
    let limit = server.timeout;
    let prompts = Arc::new(PromptCache::default());
    let handler = Handler {
        server: server.name.clone(),
        changed: env.changed.clone(),
        prompts: prompts.clone(),
        limit,
    };
    let timed_out = || {
        format!(
            "it did not answer within {} ms (its `timeout`)",
            limit.as_millis()
        )
    };
    let (conn, diag) = match &server.transport {
        McpTransport::Local {
            command,
            environment,
            cwd,
        } => {
            let mut spec = local_spec(command, environment, cwd.as_deref(), &env.project)?;
            if server.sandbox {
                spec = env.sandbox.command(spec, &format!("mcp-{}", server.name));
            }
            let mut child = env.spawner.spawn(spec).await.map_err(|e| e.to_string())?;
            let stdin = child.stdin().ok_or("its stdin could not be opened")?;
            let (stdout, diag, pump) = stdio::split(child.output());
            let running = tokio::time::timeout(limit, handler.serve((stdout, stdin)))
                .await
                .map_err(|_| with_stderr(timed_out(), &diag))?
                .map_err(|e| local_error(e.to_string(), &diag))?;
            let conn = Connection {
                peer: running.peer().clone(),
                running: Mutex::new(Some(running)),
                child: Mutex::new(Some(child)),
                pump: Some(pump),
                diag: diag.clone(),
                prompts: prompts.clone(),
            };
            (conn, diag)
        }
        McpTransport::Remote { url, headers } => {
            let config = remote_config(url, headers)?;
            let http = env.http.client().map_err(|e| e.to_string())?;
            let transport = StreamableHttpClientTransport::with_client(http, config);
            let running = tokio::time::timeout(limit, handler.serve(transport))
                .await
                .map_err(|_| timed_out())?
                .map_err(|e| format!("could not connect to {url}: {e}"))?;
            let conn = Connection {
                peer: running.peer().clone(),
                running: Mutex::new(Some(running)),
                child: Mutex::new(None),
                pump: None,
                diag: Arc::default(),
                prompts: prompts.clone(),
            };
            (conn, Arc::default())
        }
    };
    let tools = tokio::time::timeout(limit, conn.peer.list_all_tools())
        .await
        .map_err(|_| with_stderr(timed_out(), &diag))?
        .map_err(|e| local_error(format!("`tools/list` failed: {e}"), &diag))?;
    prompts.set(super::prompts::first_list(&conn.peer, limit).await);
    Ok((conn, tools))
}

fn local_spec(
    command: &[String],
    environment: &[(String, String)],
    cwd: Option<&str>,
    project: &Path,
) -> Result<CommandSpec, String> {
    // `{env:…}` and `{file:…}` were substituted when the config was read.
    let (program, args) = command.split_first().ok_or("its `command` is empty")?;
    let dir = match cwd {
        Some(c) => project.join(c),
        None => project.to_path_buf(),
    };
    let mut spec = CommandSpec::new(program)
        .args(args)
        .cwd(dir)
        .stdin_piped()
        .kill_grace(STOP_GRACE);
    for (k, v) in environment {
        spec = spec.env(k, v);
    }
    Ok(spec)
}

fn remote_config(
    url: &str,
    headers: &[(String, String)],
) -> Result<StreamableHttpClientTransportConfig, String> {
    let mut map = HashMap::new();
    for (k, v) in headers {
        let name = reqwest::header::HeaderName::from_bytes(k.as_bytes())
            .map_err(|e| format!("header `{k}` is not a valid header name: {e}"))?;
        let value = reqwest::header::HeaderValue::from_str(v)
            .map_err(|e| format!("header `{k}` has a value that cannot be sent: {e}"))?;
        map.insert(name, value);
    }
    Ok(StreamableHttpClientTransportConfig::with_uri(url.to_string()).custom_headers(map))
}

/// A local server's failure: garbage on stdout explains it best, then its stderr.
fn local_error(error: String, diag: &Diagnostics) -> String {
    match diag.garbage() {
        Some(line) => format!(
            "it printed something that is not an MCP message on stdout (`{line}`); a local MCP \
             server must write only JSON-RPC to stdout and its logs to stderr"
        ),
        None => with_stderr(error, diag),
    }
}

fn with_stderr(what: String, diag: &Diagnostics) -> String {
    match diag.stderr_tail() {
        tail if tail.is_empty() => what,
        tail => {
            let last = tail.lines().last().unwrap_or_default();
            format!("{what} (its last words on stderr: {last})")
        }
    }
}
