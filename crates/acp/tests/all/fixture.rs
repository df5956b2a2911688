//! A server core over a temporary project, data and config directory (the scripted model server
//! is the `openai` provider), and an ACP client connected to `strata_acp::agent` over it that
//! records every update and answers permission asks with a set option.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ClientCapabilities, FileSystemCapabilities, InitializeRequest, ReadTextFileRequest,
    ReadTextFileResponse, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SelectedPermissionOutcome, SessionNotification, SessionUpdate,
    WriteTextFileRequest, WriteTextFileResponse,
};
use agent_client_protocol::{Agent, Client, on_receive_notification, on_receive_request};
use serde_json::{Value, json};
use strata_graph::{Node, Tier};
use strata_server::{CoreOptions, ServerCore};
use strata_services::flags::RuntimeFlags;
use strata_testkit::model_server::{ModelServer, Turn};

/// The longest a turn may take in these tests.
pub(crate) const TURN: Duration = Duration::from_secs(30);

pub(crate) struct Project {
    pub core: ServerCore,
    pub dir: PathBuf,
    pub model: ModelServer,
    _root: tempfile::TempDir,
}

/// A project with `files`, the scripted `turns` and `config` merged into its strata.json.
pub(crate) async fn project(turns: Vec<Turn>, config: Value, files: &[(&str, &str)]) -> Project {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let root = tempfile::Builder::new()
        .prefix("strata-acp-")
        .tempdir()
        .unwrap();
    let dir = root.path().join("project");
    let (data, config_dir, home) = (
        root.path().join("data"),
        root.path().join("config"),
        root.path().join("home"),
    );
    for d in [&dir, &data, &config_dir, &home] {
        std::fs::create_dir_all(d).unwrap();
    }
    let dir = std::fs::canonicalize(&dir).unwrap();
    for (rel, content) in files {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    let model = ModelServer::start(turns);
    let mut cfg = config;
    cfg["model"] = json!("openai/scripted-model");
    cfg["provider"]["openai"]["baseURL"] = json!(model.url());
    std::fs::write(dir.join("strata.json"), cfg.to_string()).unwrap();
    let mut flags = RuntimeFlags::for_dirs(&data, &config_dir);
    flags.home_dir = home;
    let mut graph = strata_agent::production();
    graph
        .replace::<RuntimeFlags>(Node::value(Tier::Global, flags))
        .unwrap();
    let core = ServerCore::start(CoreOptions {
        default_dir: dir.clone(),
        graph,
    })
    .await
    .unwrap();
    Project {
        core,
        dir,
        model,
        _root: root,
    }
}

/// What the client saw, in order.
#[derive(Debug, Clone)]
pub(crate) enum Seen {
    Update(SessionUpdate),
    Asked(RequestPermissionRequest),
}

use agent_client_protocol::v1::Responder;

type Held = Responder<RequestPermissionResponse>;

/// Everything the client saw so far, and the asks it holds unanswered; shared with the
/// handlers.
#[derive(Debug, Clone, Default)]
pub(crate) struct Log(Arc<Mutex<Vec<Seen>>>, Arc<Mutex<Vec<Held>>>);

impl Log {
    pub(crate) fn all(&self) -> Vec<Seen> {
        self.0.lock().unwrap().clone()
    }

    /// Answers every held ask `cancelled`, as a client does after `session/cancel`.
    pub(crate) fn cancel_held(&self) {
        for r in self.1.lock().unwrap().drain(..) {
            r.respond(RequestPermissionResponse::new(
                RequestPermissionOutcome::Cancelled,
            ))
            .unwrap();
        }
    }

    pub(crate) fn updates(&self) -> Vec<Value> {
        self.all()
            .into_iter()
            .filter_map(|s| match s {
                Seen::Update(u) => Some(serde_json::to_value(u).unwrap()),
                Seen::Asked(_) => None,
            })
            .collect()
    }

    pub(crate) fn asks(&self) -> Vec<RequestPermissionRequest> {
        self.all()
            .into_iter()
            .filter_map(|s| match s {
                Seen::Asked(a) => Some(a),
                Seen::Update(_) => None,
            })
            .collect()
    }

    /// The agent's message chunks joined.
    pub(crate) fn said(&self) -> String {
        self.updates()
            .iter()
            .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
            .map(|u| {
                u["content"]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect()
    }

    fn push(&self, seen: Seen) {
        self.0.lock().unwrap().push(seen);
    }
}

/// An editor's open buffers by absolute path, and the file requests it was sent.
#[derive(Debug, Clone, Default)]
pub(crate) struct Buffers {
    pub open: Arc<Mutex<HashMap<PathBuf, String>>>,
    pub reads: Arc<Mutex<Vec<PathBuf>>>,
    pub writes: Arc<Mutex<Vec<PathBuf>>>,
}

impl Buffers {
    pub(crate) fn with(files: &[(PathBuf, &str)]) -> Buffers {
        let b = Buffers::default();
        for (path, text) in files {
            b.open
                .lock()
                .unwrap()
                .insert(path.clone(), text.to_string());
        }
        b
    }

    pub(crate) fn get(&self, path: &std::path::Path) -> Option<String> {
        self.open.lock().unwrap().get(path).cloned()
    }

    /// As an editor reads: the open buffer, else the file on disk.
    fn read(&self, req: &ReadTextFileRequest) -> Result<String, agent_client_protocol::Error> {
        self.reads.lock().unwrap().push(req.path.clone());
        if let Some(text) = self.get(&req.path) {
            return Ok(text);
        }
        std::fs::read_to_string(&req.path).map_err(|e| {
            agent_client_protocol::Error::new(
                agent_client_protocol::ErrorCode::RESOURCE_NOT_FOUND,
                format!("{}: {e}", req.path.display()),
            )
        })
    }

    /// As an editor writes without saving: into the buffer only.
    fn write(&self, req: WriteTextFileRequest) {
        self.writes.lock().unwrap().push(req.path.clone());
        self.open.lock().unwrap().insert(req.path, req.content);
    }
}

/// Connects a client to an ACP agent over `core`, initializes, and runs `body`. The client
/// answers every permission ask with option `answer` (`None`: never answers).
pub(crate) async fn with_client<R: Send + 'static>(
    core: &ServerCore,
    answer: Option<&'static str>,
    log: Log,
    body: impl AsyncFnOnce(ConnectionTo<Agent>) -> R + Send,
) -> R {
    with_editor(core, answer, log, None, body).await
}

/// [`with_client`] for an editor that offers its file system over `buffers` (`None`: it
/// offers none).
pub(crate) async fn with_editor<R: Send + 'static>(
    core: &ServerCore,
    answer: Option<&'static str>,
    log: Log,
    buffers: Option<Buffers>,
    body: impl AsyncFnOnce(ConnectionTo<Agent>) -> R + Send,
) -> R {
    let agent = strata_acp::agent(core.clone());
    let (on_update, on_ask) = (log.clone(), log.clone());
    let offers_fs = buffers.is_some();
    let (on_read, on_write) = (
        buffers.clone().unwrap_or_default(),
        buffers.unwrap_or_default(),
    );
    let client = Client
        .v1()
        .name("test-client")
        .on_receive_notification(
            async move |n: SessionNotification, _cx| {
                on_update.push(Seen::Update(n.update));
                Ok(())
            },
            on_receive_notification!(),
        )
        .on_receive_request(
            async move |req: RequestPermissionRequest, r: Held, _cx| {
                on_ask.push(Seen::Asked(req));
                match answer {
                    Some(id) => r.respond(RequestPermissionResponse::new(
                        RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id)),
                    )),
                    None => {
                        on_ask.1.lock().unwrap().push(r);
                        Ok(())
                    }
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: ReadTextFileRequest, r: Responder<ReadTextFileResponse>, _cx| {
                match on_read.read(&req) {
                    Ok(text) => r.respond(ReadTextFileResponse::new(text)),
                    Err(e) => r.respond_with_error(e),
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: WriteTextFileRequest, r: Responder<WriteTextFileResponse>, _cx| {
                on_write.write(req);
                r.respond(WriteTextFileResponse::new())
            },
            on_receive_request!(),
        );
    let fs = FileSystemCapabilities::new()
        .read_text_file(offers_fs)
        .write_text_file(offers_fs);
    let caps = ClientCapabilities::new().fs(fs);
    let run = client.connect_with(agent, async move |cx: ConnectionTo<Agent>| {
        let init = cx
            .send_request(
                InitializeRequest::new(agent_client_protocol::schema::ProtocolVersion::V1)
                    .client_capabilities(caps),
            )
            .block_task()
            .await?;
        assert!(init.agent_capabilities.load_session);
        Ok(body(cx).await)
    });
    tokio::time::timeout(TURN, run)
        .await
        .expect("the ACP exchange finished in time")
        .expect("the ACP connection worked")
}
