//! The Lsp service (DESIGN.md floor 2, spec §16): language servers started per (server, root)
//! on demand, spoken to over stdio, kept in sync with the files tools touch, and their
//! diagnostics collected for `edit`, `write` and `apply_patch`. Servers stop with the instance.
//!
//! A server whose program is not installed is simply not used; one that fails to start is not
//! tried again in this instance, and the failure is logged rather than failing the tool.

mod client;
pub mod diagnostic;
mod published;
mod query;
pub mod rpc;
pub mod servers;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use strata_graph::{BoxError, Node, Scope, Tier};
use tokio::sync::Mutex;

use crate::config::Config;
use crate::instance::InstanceInfo;
use crate::process::{ChildProcessSpawner, ProcessError};

pub use client::file_uri;
pub use diagnostic::Diagnostic;
pub use published::STALE_GRACE;
pub use query::{Calls, QUERY_TIMEOUT};
pub use servers::ServerDef;

use client::Client;

/// How long a tool waits for a server to publish a file's diagnostics after a change.
pub const DIAGNOSTICS_WAIT: Duration = Duration::from_secs(5);
/// Quiet time after a publish before the diagnostics are taken as settled.
pub const DIAGNOSTICS_SETTLE: Duration = Duration::from_millis(150);

/// Why a language server could not be used.
#[derive(Debug, thiserror::Error)]
pub enum LspError {
    #[error("could not start the `{server}` language server: {source}")]
    Spawn {
        server: String,
        #[source]
        source: ProcessError,
    },
    #[error(
        "the `{server}` language server did not answer `{method}` within {after:?}; it may be \
         busy indexing, try again later"
    )]
    Timeout {
        server: String,
        method: String,
        after: Duration,
    },
    #[error("the `{server}` language server refused `{method}`: {message}")]
    Server {
        server: String,
        method: String,
        message: String,
    },
    #[error("the `{server}` language server has stopped; it is restarted with the next instance")]
    Closed { server: String },
    #[error("could not read {path} for the language server: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Handle to the instance's language servers.
#[derive(Clone)]
pub struct Lsp {
    inner: Arc<Inner>,
}

struct Inner {
    project: PathBuf,
    /// The instance's scope: warm-ups run in it, so closing the instance cancels them before
    /// the servers are stopped.
    scope: Scope,
    spawner: ChildProcessSpawner,
    defs: Vec<ServerDef>,
    clients: Mutex<HashMap<(String, PathBuf), Slot>>,
}

enum Slot {
    /// A started server and how many times it was started again after stopping.
    Ready(Arc<Client>, u32),
    Broken(String),
}

/// A server that stops on its own is started again this many times per instance.
pub const RESTARTS: u32 = 1;

impl strata_graph::Service for Lsp {
    const KEY: &'static str = "Lsp";
}

impl std::fmt::Debug for Lsp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = self.inner.defs.iter().map(|d| d.id.as_str()).collect();
        f.debug_struct("Lsp").field("servers", &ids).finish()
    }
}

impl Lsp {
    /// Servers from `defs` for the project at `project`; background work runs in `scope`.
    pub fn new(
        project: PathBuf,
        spawner: ChildProcessSpawner,
        defs: Vec<ServerDef>,
        scope: Scope,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                project,
                scope,
                spawner,
                defs,
                clients: Mutex::default(),
            }),
        }
    }

    /// The instance-tier node: the built-in servers changed by config `lsp`; servers stop when
    /// the instance's scope closes.
    pub fn node() -> Node {
        Node::new(
            Tier::Instance,
            |(info, config, spawner): (InstanceInfo, Config, ChildProcessSpawner), scope: Scope| async move {
                let defs = servers::configure(servers::builtin(), config.data().raw.get("lsp"))
                    .map_err(|e| format!("{e} (in the config's `lsp` key)"))?;
                let lsp = Lsp::new(info.directory.clone(), spawner, defs, scope.clone());
                let closing = lsp.clone();
                scope.add_finalizer("stop language servers", move || async move {
                    closing.shutdown().await;
                });
                Ok::<_, BoxError>(lsp)
            },
        )
    }

    /// The configured servers.
    pub fn servers(&self) -> &[ServerDef] {
        &self.inner.defs
    }

    /// Whether an installed server handles this file's type.
    pub fn handles(&self, path: &Path) -> bool {
        servers::for_file(&self.inner.defs, path)
            .iter()
            .any(|d| self.program(d).is_some())
    }

    fn program(&self, def: &ServerDef) -> Option<PathBuf> {
        let path_var = std::env::var("PATH").ok();
        servers::find_program(
            def.command.first()?,
            &self.inner.project,
            path_var.as_deref(),
            |p| p.is_file(),
        )
    }

    /// Starts the file's servers and sends them the file in the background, so its
    /// diagnostics come sooner after a later change. Failures only cost the warm-up.
    pub fn warm(&self, path: &Path) {
        if !self.handles(path) {
            return;
        }
        let (lsp, path) = (self.clone(), path.to_path_buf());
        self.inner.scope.spawn(async move {
            if let Err(e) = lsp.touch_file(&path, false).await {
                tracing::debug!(path = %path.display(), error = %e, "language server warm-up failed");
            }
        });
    }

    /// Sends the file's current content to every server for its type (starting them when
    /// needed) and, with `wait`, waits until they have published its diagnostics. Returns
    /// whether any server took the file.
    pub async fn touch_file(&self, path: &Path, wait: bool) -> Result<bool, LspError> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let language = servers::language_id(&ext.to_ascii_lowercase());
        let mut retried = false;
        let waits = loop {
            let clients = self.clients_for(path).await?;
            if clients.is_empty() {
                return Ok(false);
            }
            let text = tokio::fs::read_to_string(path)
                .await
                .map_err(|source| LspError::Read {
                    path: path.to_path_buf(),
                    source,
                })?;
            match sync_all(clients, path, &text, language).await {
                Ok(waits) => break waits,
                // A server died since its last use; the next lookup starts it again.
                Err(LspError::Closed { .. }) if !retried => retried = true,
                Err(e) => return Err(e),
            }
        };
        if wait {
            let all = waits.iter().map(|(c, synced)| {
                c.wait_for_diagnostics(path, *synced, DIAGNOSTICS_WAIT, DIAGNOSTICS_SETTLE)
            });
            futures::future::join_all(all).await;
        }
        Ok(true)
    }

    /// The running servers for `path`, started on first use and started again (up to
    /// [`RESTARTS`] times) when one has stopped. A server that cannot start is remembered as
    /// broken; the first failure is returned, later calls skip it.
    async fn clients_for(&self, path: &Path) -> Result<Vec<Arc<Client>>, LspError> {
        let mut out = Vec::new();
        for def in servers::for_file(&self.inner.defs, path) {
            let Some(program) = self.program(def) else {
                continue;
            };
            let root =
                servers::root_for(path, &self.inner.project, &def.root_markers, |p| p.exists());
            let key = (def.id.clone(), root.clone());
            let mut clients = self.inner.clients.lock().await;
            let restarts = match clients.get(&key) {
                Some(Slot::Ready(c, _)) if c.is_alive() => {
                    out.push(c.clone());
                    continue;
                }
                Some(Slot::Broken(_)) => continue,
                Some(Slot::Ready(_, n)) if *n >= RESTARTS => {
                    let why = format!("it stopped {} times", n + 1);
                    clients.insert(key, Slot::Broken(why));
                    continue;
                }
                Some(Slot::Ready(_, n)) => n + 1,
                None => 0,
            };
            let args = def.command.get(1..).unwrap_or_default();
            match Client::start(&self.inner.spawner, &def.id, &program, args, &root).await {
                Ok(c) => {
                    let c = Arc::new(c);
                    clients.insert(key, Slot::Ready(c.clone(), restarts));
                    out.push(c);
                }
                Err(e) => {
                    clients.insert(key, Slot::Broken(e.to_string()));
                    return Err(e);
                }
            }
        }
        Ok(out)
    }

    /// Every file's latest diagnostics, from all running servers.
    pub async fn diagnostics(&self) -> BTreeMap<PathBuf, Vec<Diagnostic>> {
        let mut all: BTreeMap<PathBuf, Vec<Diagnostic>> = BTreeMap::new();
        for slot in self.inner.clients.lock().await.values() {
            if let Slot::Ready(c, _) = slot {
                for (path, list) in c.diagnostics() {
                    all.entry(path).or_default().extend(list);
                }
            }
        }
        all
    }

    /// `(server id, root, pid)` of each running server.
    pub async fn running(&self) -> Vec<(String, PathBuf, u32)> {
        let clients = self.inner.clients.lock().await;
        let mut out: Vec<_> = clients
            .iter()
            .filter_map(|((id, root), slot)| match slot {
                Slot::Ready(c, _) if c.is_alive() => Some((id.clone(), root.clone(), c.pid())),
                _ => None,
            })
            .collect();
        out.sort();
        out
    }

    /// Why a server was given up in this instance, if it was.
    pub async fn broken(&self, server: &str) -> Option<String> {
        let clients = self.inner.clients.lock().await;
        clients.iter().find_map(|((id, _), slot)| match slot {
            Slot::Broken(why) if id == server => Some(why.clone()),
            _ => None,
        })
    }

    /// Stops every server (asked politely, then killed with its process group).
    pub async fn shutdown(&self) {
        let slots: Vec<Slot> = self
            .inner
            .clients
            .lock()
            .await
            .drain()
            .map(|(_, s)| s)
            .collect();
        let stops = slots.iter().filter_map(|s| match s {
            Slot::Ready(c, _) => Some(c.stop()),
            Slot::Broken(_) => None,
        });
        futures::future::join_all(stops).await;
    }
}

/// Sends the file's text to each server.
async fn sync_all(
    clients: Vec<Arc<Client>>,
    path: &Path,
    text: &str,
    language: &str,
) -> Result<Vec<(Arc<Client>, published::Synced)>, LspError> {
    let mut out = Vec::with_capacity(clients.len());
    for client in clients {
        let synced = client.sync(path, text, language).await?;
        out.push((client, synced));
    }
    Ok(out)
}
