//! One running language server: requests with timeouts, documents kept in sync, diagnostics
//! as the server publishes them, and a graceful then forced shutdown.
//!
//! A reader task owns the server's output: it routes responses to their callers, answers the
//! few requests servers send their client, and stores published diagnostics.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::process::ChildStdin;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::LspError;
use super::diagnostic::{Diagnostic, from_publish};
use super::published::{Publications, Synced};
use super::rpc::{Decoder, encode};
use crate::process::{Child, ChildProcessSpawner, Chunk, CommandSpec, Pipe};

/// How long `initialize` may take before the server is given up for this instance.
pub(super) const INIT_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a stopping server gets to answer `shutdown` and exit before its group is killed.
const STOP_GRACE: Duration = Duration::from_millis(800);

type Reply = Result<Value, String>;

struct Shared {
    server: String,
    root: PathBuf,
    writer: tokio::sync::Mutex<Option<ChildStdin>>,
    pending: Mutex<HashMap<i64, oneshot::Sender<Reply>>>,
    next_id: AtomicI64,
    published: Publications,
    alive: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Each map is updated in one statement, so a poisoned lock still holds consistent data.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A started and initialised server.
pub(super) struct Client {
    shared: Arc<Shared>,
    child: Mutex<Option<Child>>,
    documents: Mutex<HashMap<PathBuf, i32>>,
    reader: tokio::task::AbortHandle,
    pid: u32,
}

impl Drop for Client {
    fn drop(&mut self) {
        // Dropping the child kills its whole process group.
        self.reader.abort();
    }
}

/// The `file://` URI of a path, escaped as LSP expects.
pub fn file_uri(path: &Path) -> String {
    url::Url::from_file_path(path)
        .map(String::from)
        .unwrap_or_else(|()| format!("file://{}", path.display()))
}

impl Client {
    /// Starts `command` in `root` and runs the `initialize` handshake.
    pub(super) async fn start(
        spawner: &ChildProcessSpawner,
        server: &str,
        program: &Path,
        args: &[String],
        root: &Path,
    ) -> Result<Client, LspError> {
        let spec = CommandSpec::new(program)
            .args(args)
            .cwd(root)
            .stdin_piped()
            .kill_grace(STOP_GRACE);
        let mut child = spawner
            .spawn(spec)
            .await
            .map_err(|source| LspError::Spawn {
                server: server.to_string(),
                source,
            })?;
        let shared = Arc::new(Shared {
            server: server.to_string(),
            root: root.to_path_buf(),
            writer: tokio::sync::Mutex::new(child.stdin()),
            pending: Mutex::default(),
            next_id: AtomicI64::new(1),
            published: Publications::default(),
            alive: AtomicBool::new(true),
        });
        let reader = tokio::spawn(read_loop(child.output(), shared.clone())).abort_handle();
        let client = Client {
            shared,
            pid: child.pid(),
            child: Mutex::new(Some(child)),
            documents: Mutex::default(),
            reader,
        };
        client
            .request("initialize", initialize_params(root), INIT_TIMEOUT)
            .await?;
        client.notify("initialized", json!({})).await?;
        Ok(client)
    }

    pub(super) fn pid(&self) -> u32 {
        self.pid
    }

    /// Whether the server still runs. The process is asked directly: a helper it started can
    /// hold its pipes open after it died, so the end of its output may never come.
    pub(super) fn is_alive(&self) -> bool {
        if !self.shared.alive.load(Ordering::SeqCst) {
            return false;
        }
        let exited = lock(&self.child).as_mut().is_none_or(Child::has_exited);
        if exited {
            self.shared.fail_all("the server exited");
        }
        !exited
    }

    /// Sends a request and waits for its result.
    pub(super) async fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, LspError> {
        let s = &self.shared;
        let id = s.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        lock(&s.pending).insert(id, tx);
        let sent = s
            .send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        if let Err(e) = sent {
            lock(&s.pending).remove(&id);
            return Err(e);
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(Ok(result))) => Ok(result),
            Ok(Ok(Err(message))) => Err(LspError::Server {
                server: s.server.clone(),
                method: method.to_string(),
                message,
            }),
            Ok(Err(_)) => Err(s.closed()),
            Err(_) => {
                lock(&s.pending).remove(&id);
                Err(LspError::Timeout {
                    server: s.server.clone(),
                    method: method.to_string(),
                    after: timeout,
                })
            }
        }
    }

    pub(super) async fn notify(&self, method: &str, params: Value) -> Result<(), LspError> {
        self.shared
            .send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await
    }

    /// Opens the document, or sends its new full text when already open.
    pub(super) async fn sync(
        &self,
        path: &Path,
        text: &str,
        language: &str,
    ) -> Result<Synced, LspError> {
        let uri = file_uri(path);
        let version = {
            let mut docs = lock(&self.documents);
            let v = docs.entry(path.to_path_buf()).or_insert(-1);
            *v += 1;
            *v
        };
        let synced = self.shared.published.synced(path, i64::from(version));
        if version == 0 {
            let doc = json!({"uri": uri, "languageId": language, "version": 0, "text": text});
            self.notify("textDocument/didOpen", json!({"textDocument": doc}))
                .await?;
        } else {
            let params = json!({
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text}],
            });
            self.notify("textDocument/didChange", params).await?;
        }
        Ok(synced)
    }

    /// Waits for the diagnostics that answer `synced` (see [`Publications::wait`]).
    pub(super) async fn wait_for_diagnostics(
        &self,
        path: &Path,
        synced: Synced,
        limit: Duration,
        settle: Duration,
    ) {
        self.shared
            .published
            .wait(path, synced, limit, settle)
            .await;
    }

    /// Every file's latest diagnostics from this server.
    pub(super) fn diagnostics(&self) -> HashMap<PathBuf, Vec<Diagnostic>> {
        self.shared.published.all()
    }

    /// Asks the server to shut down and exit; kills its group if it has not within the grace.
    pub(super) async fn stop(&self) {
        if self.is_alive()
            && self
                .request("shutdown", Value::Null, STOP_GRACE)
                .await
                .is_ok()
        {
            let _ = self.notify("exit", Value::Null).await;
        }
        let child = lock(&self.child).take();
        if let Some(mut child) = child {
            // Past the grace the whole group is stopped; the result is of no further use.
            let _ = child.wait(Some(STOP_GRACE), CancellationToken::new()).await;
        }
    }
}

impl Shared {
    async fn send(&self, message: &Value) -> Result<(), LspError> {
        let mut writer = self.writer.lock().await;
        let Some(stdin) = writer.as_mut() else {
            return Err(self.closed());
        };
        let bytes = encode(message);
        let written = async {
            stdin.write_all(&bytes).await?;
            stdin.flush().await
        };
        if written.await.is_err() {
            *writer = None;
            self.alive.store(false, Ordering::SeqCst);
            return Err(self.closed());
        }
        Ok(())
    }

    fn closed(&self) -> LspError {
        LspError::Closed {
            server: self.server.clone(),
        }
    }

    /// Ends every waiting request: the server is gone.
    fn fail_all(&self, why: &str) {
        self.alive.store(false, Ordering::SeqCst);
        for (_, tx) in lock(&self.pending).drain() {
            let _ = tx.send(Err(why.to_string()));
        }
        self.published.wake();
    }

    async fn dispatch(&self, msg: Value) {
        let method = msg.get("method").and_then(Value::as_str);
        let id = msg.get("id").cloned();
        match (method, id) {
            (Some(method), Some(id)) => {
                let reply = match answer(method, msg.get("params"), &self.root) {
                    Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    Err((code, message)) => {
                        json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
                    }
                };
                // A server that stopped reading is noticed by the next request.
                let _ = self.send(&reply).await;
            }
            (Some("textDocument/publishDiagnostics"), None) => {
                let params = msg.get("params");
                if let Some((path, list)) = params.and_then(from_publish) {
                    let version = params
                        .and_then(|p| p.get("version"))
                        .and_then(Value::as_i64);
                    self.published.record(path, version, list);
                }
            }
            (None, Some(id)) => {
                let Some(tx) = id.as_i64().and_then(|id| lock(&self.pending).remove(&id)) else {
                    return;
                };
                let reply = match msg.get("error") {
                    Some(e) => Err(e
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("the server reported an error")
                        .to_string()),
                    None => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
                };
                let _ = tx.send(reply);
            }
            _ => {}
        }
    }
}

/// The answer to a request a server sends its client.
fn answer(method: &str, params: Option<&Value>, root: &Path) -> Result<Value, (i64, String)> {
    match method {
        // No settings of our own: every asked section is null, so servers use their defaults.
        "workspace/configuration" => {
            let items = params
                .and_then(|p| p.get("items"))
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            Ok(Value::Array(vec![Value::Null; items]))
        }
        "workspace/workspaceFolders" => Ok(json!([folder(root)])),
        "window/workDoneProgress/create"
        | "client/registerCapability"
        | "client/unregisterCapability"
        | "window/showMessageRequest" => Ok(Value::Null),
        other => Err((-32601, format!("Strata does not handle `{other}`"))),
    }
}

fn folder(root: &Path) -> Value {
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    json!({"uri": file_uri(root), "name": name})
}

fn initialize_params(root: &Path) -> Value {
    json!({
        "processId": std::process::id(),
        "rootUri": file_uri(root),
        "rootPath": root.display().to_string(),
        "workspaceFolders": [folder(root)],
        "capabilities": {
            "workspace": {"configuration": true, "workspaceFolders": true},
            "window": {"workDoneProgress": true},
            "textDocument": {
                "synchronization": {"didSave": false, "dynamicRegistration": false},
                "publishDiagnostics": {"versionSupport": true, "relatedInformation": false},
                "hover": {"contentFormat": ["markdown", "plaintext"]},
                "definition": {}, "references": {}, "implementation": {},
                "documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
                "callHierarchy": {},
            },
        },
    })
}

async fn read_loop(mut output: mpsc::Receiver<Chunk>, shared: Arc<Shared>) {
    let mut decoder = Decoder::default();
    while let Some(chunk) = output.recv().await {
        // Stderr is the server's own log.
        if chunk.stream != Pipe::Stdout {
            continue;
        }
        decoder.push(&chunk.data);
        loop {
            match decoder.next_message() {
                Ok(Some(msg)) => shared.dispatch(msg).await,
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!(server = %shared.server, error = %e, "language server output out of step");
                    shared.fail_all(&e.to_string());
                    return;
                }
            }
        }
    }
    shared.fail_all("the server closed its output");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_from_the_server_get_neutral_answers() {
        let root = Path::new("/p/app");
        let items = json!({"items": [{"section": "python"}, {"section": "python.analysis"}]});
        assert_eq!(
            answer("workspace/configuration", Some(&items), root),
            Ok(json!([null, null]))
        );
        assert_eq!(
            answer("workspace/workspaceFolders", None, root),
            Ok(json!([{"uri": "file:///p/app", "name": "app"}]))
        );
        assert_eq!(
            answer("client/registerCapability", None, root),
            Ok(Value::Null)
        );
        let (code, msg) = answer("workspace/applyEdit", None, root).unwrap_err();
        assert_eq!(code, -32601);
        assert!(msg.contains("workspace/applyEdit"), "{msg}");
    }

    #[test]
    fn uris_escape_what_they_must() {
        assert_eq!(file_uri(Path::new("/p/a b.c")), "file:///p/a%20b.c");
    }
}
