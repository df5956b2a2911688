//! Sessions: list, create (with permission rules), status, get, update, delete, children,
//! fork, abort, todo, diff, revert, unrevert, and the older per-session permission reply.

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use strata_protocol::event::SessionStatus;
use strata_protocol::wire::{
    FileDiff, PermissionReply, PermissionReplyBody, SessionCreateBody, SessionInfo, Todo,
};

use crate::core::sessions::SessionUpdate;
use crate::http::AppState;
use crate::http::dir::Directory;
use crate::http::error::ApiFailure;
use crate::http::json::Body;

type Result<T> = std::result::Result<Json<T>, ApiFailure>;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/session", get(list).post(create))
        .route("/session/status", get(status))
        .route("/session/{id}", get(one).patch(update).delete(delete))
        .route("/session/{id}/children", get(children))
        .route("/session/{id}/todo", get(todo))
        .route("/session/{id}/diff", get(diff))
        .route("/session/{id}/fork", post(fork))
        .route("/session/{id}/revert", post(revert))
        .route("/session/{id}/unrevert", post(unrevert))
        .route("/session/{id}/abort", post(abort))
        .route("/session/{id}/permissions/{permission}", post(old_reply))
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
