//! Sessions: list, create (with permission rules), status, get, update, delete, children,
//! fork, abort, todo, diff, revert, unrevert, and the older per-session permission reply.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, State};
use serde::Deserialize;
use strata_protocol::event::SessionStatus;
use strata_protocol::wire::{
    FileDiff, PermissionReply, PermissionReplyBody, SessionCreateBody, SessionInfo, SessionTools,
    Todo,
};

use super::Endpoint;
use crate::core::sessions::SessionUpdate;
use crate::http::AppState;
use crate::http::dir::Directory;
use crate::http::error::ApiFailure;
use crate::http::json::Body;

type Result<T> = std::result::Result<Json<T>, ApiFailure>;

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get("/session", "List the project's sessions", list).json::<Vec<SessionInfo>>(),
        Endpoint::post("/session", "Create a session", create)
            .body::<SessionCreateBody>()
            .json::<SessionInfo>(),
        Endpoint::get("/session/status", "Busy sessions", status)
            .json::<BTreeMap<String, SessionStatus>>(),
        Endpoint::get("/session/{id}", "Get a session", one).json::<SessionInfo>(),
        Endpoint::patch("/session/{id}", "Update a session", update)
            .body::<SessionUpdate>()
            .json::<SessionInfo>(),
        Endpoint::delete("/session/{id}", "Delete a session and its children", delete)
            .json::<bool>(),
        Endpoint::get("/session/{id}/children", "Child sessions", children)
            .json::<Vec<SessionInfo>>(),
        Endpoint::get("/session/{id}/todo", "The session's todo list", todo).json::<Vec<Todo>>(),
        Endpoint::get(
            "/session/{id}/tools",
            "The session's tools, loaded or deferred, and their counts",
            tools,
        )
        .json::<SessionTools>(),
        Endpoint::get("/session/{id}/diff", "The session's file changes", diff)
            .json::<Vec<FileDiff>>(),
        Endpoint::post(
            "/session/{id}/revert",
            "Revert the session to before a message: files restored, later messages hidden",
            revert,
        )
        .body::<RevertBody>()
        .json::<SessionInfo>(),
        Endpoint::post(
            "/session/{id}/unrevert",
            "Undo the session's revert",
            unrevert,
        )
        .json::<SessionInfo>(),
        Endpoint::post("/session/{id}/fork", "Fork a session", fork)
            .body::<ForkBody>()
            .json::<SessionInfo>(),
        Endpoint::post("/session/{id}/abort", "Abort the running turn", abort).json::<bool>(),
        Endpoint::post(
            "/session/{id}/permissions/{permission}",
            "Reply to a permission request (older form)",
            old_reply,
        )
        .body::<OldReplyBody>()
        .json::<bool>()
        .conflict(super::reply::NOT_PENDING),
    ]
}

async fn list(State(s): State<AppState>, Directory(dir): Directory) -> Result<Vec<SessionInfo>> {
    Ok(Json(s.core.list_sessions(&dir).await?))
}

async fn create(
    State(s): State<AppState>,
    Directory(dir): Directory,
    Body(body): Body<SessionCreateBody>,
) -> Result<SessionInfo> {
    Ok(Json(s.core.create_session(&dir, body).await?))
}

async fn status(State(s): State<AppState>) -> Result<BTreeMap<String, SessionStatus>> {
    Ok(Json(
        s.core
            .busy_sessions()
            .into_iter()
            .map(|id| (id, SessionStatus::Busy))
            .collect(),
    ))
}

async fn one(State(s): State<AppState>, Path(id): Path<String>) -> Result<SessionInfo> {
    Ok(Json(s.core.session(&id)?))
}

async fn update(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Body(body): Body<SessionUpdate>,
) -> Result<SessionInfo> {
    Ok(Json(s.core.update_session(&id, body)?))
}

async fn delete(State(s): State<AppState>, Path(id): Path<String>) -> Result<bool> {
    s.core.delete_session(&id).await?;
    Ok(Json(true))
}

async fn children(State(s): State<AppState>, Path(id): Path<String>) -> Result<Vec<SessionInfo>> {
    Ok(Json(s.core.children(&id)?))
}

async fn todo(State(s): State<AppState>, Path(id): Path<String>) -> Result<Vec<Todo>> {
    Ok(Json(s.core.todos(&id)?))
}

/// The tools the session's next step sees: `{model, loaded, deferred, tools: [{id, state}]}`.
async fn tools(State(s): State<AppState>, Path(id): Path<String>) -> Result<SessionTools> {
    Ok(Json(s.core.session_tools(&id).await?))
}

/// The session's file changes, from its first undo point to the files now.
async fn diff(State(s): State<AppState>, Path(id): Path<String>) -> Result<Vec<FileDiff>> {
    Ok(Json(s.core.diff(&id).await?))
}

/// `POST /session/:id/revert`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct RevertBody {
    #[serde(rename = "messageID")]
    pub message_id: String,
    /// Accepted for opencode's clients; Strata reverts whole messages.
    #[serde(rename = "partID", default)]
    pub part_id: Option<String>,
}

async fn revert(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Body(body): Body<RevertBody>,
) -> Result<SessionInfo> {
    Ok(Json(s.core.revert(&id, &body.message_id).await?))
}

async fn unrevert(State(s): State<AppState>, Path(id): Path<String>) -> Result<SessionInfo> {
    Ok(Json(s.core.unrevert(&id).await?))
}

/// `POST /session/:id/fork`.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct ForkBody {
    #[serde(rename = "messageID", default)]
    pub message_id: Option<String>,
}

async fn fork(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Body(body): Body<ForkBody>,
) -> Result<SessionInfo> {
    Ok(Json(s.core.fork(&id, body.message_id.as_deref())?))
}

async fn abort(State(s): State<AppState>, Path(id): Path<String>) -> Result<bool> {
    s.core.session(&id)?;
    s.core.abort(&id);
    Ok(Json(true))
}

/// The older per-session reply: `{"response": "once" | "always" | "reject"}`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct OldReplyBody {
    pub response: PermissionReply,
}

async fn old_reply(
    State(s): State<AppState>,
    Path((id, permission)): Path<(String, String)>,
    Body(body): Body<OldReplyBody>,
) -> Result<bool> {
    let body = PermissionReplyBody {
        reply: body.response,
        message: None,
    };
    s.core
        .reply_permission(&permission, body, Some(&id))
        .await?;
    Ok(Json(true))
}
