//! Replies to what a turn waits on: permission requests and questions.

use axum::extract::{Path, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use strata_protocol::wire::{
    PermissionReplyBody, PermissionRequest, QuestionReplyBody, QuestionRequest,
};

use crate::http::AppState;
use crate::http::error::ApiFailure;
use crate::http::json::Body;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/permission", get(permissions))
        .route("/permission/{id}/reply", post(reply_permission))
        .route("/question", get(questions))
        .route("/question/{id}/reply", post(reply_question))
        .route("/question/{id}/reject", post(reject_question))
}

async fn permissions(State(s): State<AppState>) -> Json<Vec<PermissionRequest>> {
    Json(s.core.pending_permissions().await)
}

async fn reply_permission(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Body(body): Body<PermissionReplyBody>,
) -> Result<Json<bool>, ApiFailure> {
    s.core.reply_permission(&id, body, None).await?;
    Ok(Json(true))
}

async fn questions(State(s): State<AppState>) -> Json<Vec<QuestionRequest>> {
    Json(s.core.pending_questions().await)
}

async fn reply_question(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Body(body): Body<QuestionReplyBody>,
) -> Result<Json<bool>, ApiFailure> {
    s.core.reply_question(&id, body.answers).await?;
    Ok(Json(true))
}

async fn reject_question(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<bool>, ApiFailure> {
    s.core.reject_question(&id).await?;
    Ok(Json(true))
}
