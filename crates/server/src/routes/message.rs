//! Messages: list, get one, prompt and wait for the turn (`POST /session/:id/message`), and
//! prompt without waiting (`prompt_async`, 204 at once).

use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use strata_protocol::wire::PromptBody;

use crate::core::MessageEntry;
use crate::http::AppState;
use crate::http::error::ApiFailure;
use crate::http::json::Body;

/// How long a finished blocking prompt waits for its events to reach the subscribers'
/// queues before answering (opencode's `run` stops reading events once the answer arrives).
const DELIVERY_WAIT: Duration = Duration::from_secs(2);

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/session/{id}/message", get(list).post(prompt))
        .route("/session/{id}/message/{message}", get(one))
        .route("/session/{id}/prompt_async", post(prompt_async))
}

/// `?limit=`: the last N messages.
#[derive(Debug, Default, Deserialize)]
pub struct ListQuery {
    #[serde(default)]
    pub limit: Option<usize>,
}

async fn list(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<ListQuery>,
) -> Result<Json<Vec<MessageEntry>>, ApiFailure> {
    Ok(Json(s.core.messages(&id, q.limit)?))
}

async fn one(
    State(s): State<AppState>,
    Path((id, message)): Path<(String, String)>,
) -> Result<Json<MessageEntry>, ApiFailure> {
    Ok(Json(s.core.message(&id, &message)?))
}

async fn prompt(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Body(body): Body<PromptBody>,
) -> Result<Json<MessageEntry>, ApiFailure> {
    let turn = s.core.prompt(&id, body).await?;
    let end = turn.finished().await?;
    s.core.hub().delivered(end.cursor, DELIVERY_WAIT).await;
    let last = s.core.last_assistant(&id)?.ok_or_else(|| {
        ApiFailure::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "UnknownError",
            format!("the turn in session {id} ended without an assistant message"),
        )
    })?;
    Ok(Json(last))
}

async fn prompt_async(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Body(body): Body<PromptBody>,
) -> Result<StatusCode, ApiFailure> {
    // The turn runs on its own task; dropping the handle does not stop it.
    s.core.prompt(&id, body).await?;
    Ok(StatusCode::NO_CONTENT)
}
