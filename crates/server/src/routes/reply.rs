//! Replies to what a turn waits on: permission requests and questions.

use axum::Json;
use axum::extract::{Path, State};
use strata_protocol::wire::{
    PermissionReplyBody, PermissionRequest, QuestionReplyBody, QuestionRequest,
};

use super::Endpoint;
use crate::http::AppState;
use crate::http::error::ApiFailure;
use crate::http::json::Body;

/// What a 409 from a permission reply means.
pub(super) const NOT_PENDING: &str = "The request is not pending (already answered, withdrawn, or unknown); `data.requestID` names it";

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get("/permission", "Pending permission requests", permissions)
            .json::<Vec<PermissionRequest>>(),
        Endpoint::post(
            "/permission/{id}/reply",
            "Reply to a permission request",
            reply_permission,
        )
        .body::<PermissionReplyBody>()
        .json::<bool>()
        .conflict(NOT_PENDING),
        Endpoint::get("/question", "Pending questions", questions).json::<Vec<QuestionRequest>>(),
        Endpoint::post("/question/{id}/reply", "Answer a question", reply_question)
            .body::<QuestionReplyBody>()
            .json::<bool>(),
        Endpoint::post(
            "/question/{id}/reject",
            "Dismiss a question",
            reject_question,
        )
        .json::<bool>(),
    ]
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
