//! The ACP agent: one handler per method, each a thin call on the server core. Work that
//! waits (building a project's instance, a turn, a replay) runs on a task of the connection,
//! so the dispatch loop stays free for `session/cancel` and for the editor's answers.

use agent_client_protocol::v1::schema::{
    AgentCapabilities, AvailableCommandsUpdate, CancelNotification, Implementation,
    InitializeRequest, InitializeResponse, LoadSessionRequest, LoadSessionResponse,
    McpCapabilities, NewSessionRequest, NewSessionResponse, PromptCapabilities, PromptRequest,
    SessionConfigOptionValue, SessionUpdate, SetSessionConfigOptionRequest,
    SetSessionConfigOptionResponse, SetSessionModeRequest, SetSessionModeResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{
    Agent, Client, ConnectTo, ErrorCode, JsonRpcResponse, on_receive_notification,
    on_receive_request,
};
use std::sync::Arc;
use strata_protocol::wire::{PermissionRule, SessionCreateBody};

use agent_client_protocol::v1::schema::McpServer;
use strata_server::ServerCore;
use strata_server::core::InstanceEntry;
use strata_services::fs::FsUtil;
use strata_services::mcp::Mcp;

use crate::state::{Acp, rpc_error};
use crate::turn::send;
use crate::{models, modes, turn, updates};

type Error = agent_client_protocol::Error;

/// The agent over `core`, ready to connect to an editor's transport.
pub fn agent(core: ServerCore) -> impl ConnectTo<Client> {
    let acp = Acp::new(core);
    let (a, b, c, d, e, f, g) = (
        acp.clone(),
        acp.clone(),
        acp.clone(),
        acp.clone(),
        acp.clone(),
        acp.clone(),
        acp,
    );
    Agent
        .v1()
        .name("strata")
        .on_receive_request(
            async move |req: InitializeRequest, r: Responder<InitializeResponse>, _cx| {
                r.respond(initialize(&a, req))
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: NewSessionRequest, r: Responder<NewSessionResponse>, cx| {
                let acp = b.clone();
                let conn = cx.clone();
                cx.spawn(async move {
                    let opened = new_session(&acp, req, &conn).await;
                    answer_opened(&acp, &conn, r, opened)
                })
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: LoadSessionRequest, r: Responder<LoadSessionResponse>, cx| {
                let acp = c.clone();
                let conn = cx.clone();
                cx.spawn(async move {
                    let opened = load_session(&acp, req, &conn).await;
                    answer_opened(&acp, &conn, r, opened)
                })
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: PromptRequest, r: Responder<_>, cx| {
                let acp = d.clone();
                let conn = cx.clone();
                later(&cx, r, async move { turn::run(&acp, req, &conn).await })
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: SetSessionModeRequest, r: Responder<SetSessionModeResponse>, cx| {
                let acp = e.clone();
                later(&cx, r, async move { set_mode(&acp, req).await })
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |req: SetSessionConfigOptionRequest,
                        r: Responder<SetSessionConfigOptionResponse>,
                        cx| {
                let acp = g.clone();
                later(&cx, r, async move { set_option(&acp, req).await })
            },
            on_receive_request!(),
        )
        .on_receive_notification(
            async move |n: CancelNotification, _cx: ConnectionTo<Client>| {
                f.cancel(&n.session_id.0);
                Ok(())
            },
            on_receive_notification!(),
        )
}

/// A session opened for the editor (new or loaded): the answer, the session's instance and
/// its id.
type Opened<T> = Result<(T, Arc<InstanceEntry>, String), Error>;

/// Answers `r` with the opened session; once the editor knows the session, its updates may
/// flow and its commands are offered.
fn answer_opened<T: JsonRpcResponse>(
    acp: &Acp,
    conn: &ConnectionTo<Client>,
    r: Responder<T>,
    opened: Opened<T>,
) -> Result<(), Error> {
    match opened {
        Ok((answer, entry, sid)) => {
            r.respond(answer)?;
            acp.editor_knows(&sid);
            announce_commands(conn, &sid, &entry);
            Ok(())
        }
        Err(e) => r.respond_with_error(e),
    }
}

/// Answers `r` with what `work` gives, on a task of the connection.
fn later<T: JsonRpcResponse + Send + 'static>(
    cx: &ConnectionTo<Client>,
    r: Responder<T>,
    work: impl Future<Output = Result<T, Error>> + Send + 'static,
) -> Result<(), Error> {
    cx.spawn(async move {
        match work.await {
            Ok(v) => r.respond(v),
            Err(e) => r.respond_with_error(e),
        }
    })
}

fn initialize(acp: &Acp, req: InitializeRequest) -> InitializeResponse {
    acp.set_client(req.client_capabilities);
    let caps = AgentCapabilities::new()
        .load_session(true)
        .prompt_capabilities(PromptCapabilities::new().embedded_context(true).image(true))
        .mcp_capabilities(McpCapabilities::new().http(true));
    // Keys come from Strata's config and `strata auth`: no auth method is offered.
    InitializeResponse::new(agent_client_protocol::schema::ProtocolVersion::V1)
        .agent_capabilities(caps)
        .agent_info(Implementation::new("strata", env!("CARGO_PKG_VERSION")).title("Strata"))
}

/// Rules every ACP session starts with: an editor has no way to answer the `question` tool.
fn session_rules() -> Vec<PermissionRule> {
    vec![PermissionRule {
        permission: "question".into(),
        pattern: "*".into(),
        action: "deny".into(),
    }]
}

async fn new_session(
    acp: &Acp,
    req: NewSessionRequest,
    cx: &ConnectionTo<Client>,
) -> Opened<NewSessionResponse> {
    let body = SessionCreateBody {
        permission: session_rules(),
        ..SessionCreateBody::default()
    };
    let info = acp
        .core
        .create_session(&req.cwd, body)
        .await
        .map_err(rpc_error)?;
    acp.open(&info.id, None);
    bind_editor_fs(acp, cx, &info.id, info.directory.as_ref()).await?;
    let entry = acp
        .core
        .session_instance(&info.id)
        .await
        .map_err(rpc_error)?;
    connect_mcp(&entry, &req.mcp_servers).await;
    let modes = modes::state(&entry.services.agents, modes::DEFAULT_MODE);
    let options = models::options(&entry, None);
    let answer = NewSessionResponse::new(info.id.clone())
        .modes(modes)
        .config_options(options);
    Ok((answer, entry, info.id))
}

async fn load_session(
    acp: &Acp,
    req: LoadSessionRequest,
    cx: &ConnectionTo<Client>,
) -> Opened<LoadSessionResponse> {
    let sid = req.session_id.0.to_string();
    let info = acp.core.session(&sid).map_err(rpc_error)?;
    acp.open(&sid, None);
    bind_editor_fs(acp, cx, &sid, info.directory.as_ref()).await?;
    let entry = acp.core.session_instance(&sid).await.map_err(rpc_error)?;
    connect_mcp(&entry, &req.mcp_servers).await;
    replay(acp, cx, &sid, &entry).await?;
    let session = acp.session(&sid)?;
    let modes = modes::state(&entry.services.agents, &session.mode);
    let options = models::options(&entry, session.model.as_deref());
    let answer = LoadSessionResponse::new()
        .modes(modes)
        .config_options(options);
    Ok((answer, entry, sid))
}

/// Sends the stored history of `sid` to the editor as updates, a chunk of messages at a
/// time, so a long session is never read whole; the todo list comes last.
async fn replay(
    acp: &Acp,
    cx: &ConnectionTo<Client>,
    sid: &str,
    entry: &InstanceEntry,
) -> Result<(), Error> {
    let registry = &entry.services.registry;
    let effects = |id: &str| crate::tool_call::declared_in(registry, id);
    let mut reader = acp.core.message_reader(sid).map_err(rpc_error)?;
    while let Some(chunk) = reader.next_chunk().map_err(rpc_error)? {
        for update in updates::replay(&chunk, &entry.directory, &effects) {
            send(cx, sid, update);
        }
        // The writer gets its turn between chunks, so sent updates do not pile up.
        tokio::task::yield_now().await;
    }
    let todos = acp.core.todos(sid).map_err(rpc_error)?;
    if !todos.is_empty() {
        send(cx, sid, updates::plan(&todos));
    }
    Ok(())
}

/// When the editor offers its file system, binds session `sid` to an instance of its own
/// whose `FsUtil` goes through the editor (keyed by this connection and the session, so no
/// other session shares it). Its file access starts once the editor knows the session.
async fn bind_editor_fs(
    acp: &Acp,
    cx: &ConnectionTo<Client>,
    sid: &str,
    dir: &std::path::Path,
) -> Result<(), Error> {
    // Bound once per connection and session: a second load keeps the instance it has.
    if !acp.editor_files() || acp.session(sid)?.editor_fs.is_some() {
        return Ok(());
    }
    let shared = acp.core.instance(dir).await.map_err(rpc_error)?;
    let disk = shared.instance.get::<FsUtil>().map_err(|e| {
        Error::new(
            ErrorCode::INTERNAL_ERROR,
            format!("the project has no file system: {e}"),
        )
    })?;
    let key = format!("acp-editor-fs:{}:{sid}", acp.conn);
    let project = std::path::Path::new(&shared.directory);
    let (overlay, switch) = crate::editor_fs::overlay(key, disk, cx.clone(), sid, project);
    acp.core.bind_overlay(sid, overlay);
    acp.set_editor_fs(sid, switch);
    Ok(())
}

/// Connects the MCP servers the editor passed through the instance's MCP client; their tools
/// join the instance's (every session of the project sees them, as with configured ones).
async fn connect_mcp(entry: &InstanceEntry, servers: &[McpServer]) {
    if servers.is_empty() {
        return;
    }
    let (ok, skipped) = crate::mcp::servers(servers);
    for name in skipped {
        tracing::warn!(server = %name, "an MCP server the editor passed was skipped: Strata \
            connects stdio and streamable HTTP servers, not SSE");
    }
    match entry.instance.get::<Mcp>() {
        Ok(mcp) => mcp.add(&ok).await,
        Err(e) => tracing::warn!(error = %e, "the editor's MCP servers were not connected"),
    }
}

/// Tells the editor which commands (skills, MCP prompts) the session has; sent after the
/// session's answer, so the editor knows the session it is about.
fn announce_commands(cx: &ConnectionTo<Client>, sid: &str, entry: &InstanceEntry) {
    let prompts = match entry.instance.get::<Mcp>() {
        Ok(mcp) => mcp.prompts(),
        Err(_) => Vec::new(),
    };
    let commands = modes::commands(&entry.services.skills, &prompts);
    let update = SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(commands));
    send(cx, sid, update);
}

async fn set_mode(acp: &Acp, req: SetSessionModeRequest) -> Result<SetSessionModeResponse, Error> {
    let sid = req.session_id.0.to_string();
    acp.session(&sid)?;
    let entry = acp.core.session_instance(&sid).await.map_err(rpc_error)?;
    let mode = req.mode_id.0.to_string();
    if !modes::is_mode(&entry.services.agents, &mode) {
        return Err(Error::new(
            ErrorCode::INVALID_PARAMS,
            format!(
                "modeId: `{mode}` is not an agent a turn can run as; pick one of the modes \
                 session/new listed"
            ),
        ));
    }
    acp.set_mode(&sid, &mode);
    Ok(SetSessionModeResponse::new())
}

/// `session/set_config_option`: the model chooser; the session's next turn uses the model.
async fn set_option(
    acp: &Acp,
    req: SetSessionConfigOptionRequest,
) -> Result<SetSessionConfigOptionResponse, Error> {
    let sid = req.session_id.0.to_string();
    acp.session(&sid)?;
    if &*req.config_id.0 != models::OPTION {
        return Err(Error::new(
            ErrorCode::INVALID_PARAMS,
            format!(
                "configId: `{}` is not an option of this agent; the one option is `{}`",
                req.config_id.0,
                models::OPTION
            ),
        ));
    }
    let SessionConfigOptionValue::ValueId { value } = &req.value else {
        return Err(Error::new(
            ErrorCode::INVALID_PARAMS,
            "value: the model is chosen by its id (`provider/model`), not a boolean",
        ));
    };
    let entry = acp.core.session_instance(&sid).await.map_err(rpc_error)?;
    let model = value.0.to_string();
    if !models::is_offered(&entry, &model) {
        return Err(Error::new(
            ErrorCode::INVALID_PARAMS,
            format!(
                "value: `{model}` is not a model this session can use; pick one the `model` \
                 option lists"
            ),
        ));
    }
    acp.set_model(&sid, &model);
    Ok(SetSessionConfigOptionResponse::new(models::options(
        &entry,
        Some(&model),
    )))
}
