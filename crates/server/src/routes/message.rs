//! Messages: list, get one, prompt and wait for the turn (`POST /session/:id/message`),
//! prompt without waiting (`prompt_async`, 204 at once), run a command (an MCP prompt, `command`)
//! as a turn, and run a shell command as the user's own `bash` call (`shell`, 409 while the
//! session is busy), and compact it now (`summarize`).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use strata_protocol::wire::{CommandBody, ModelChoice, PromptBody, SummarizeBody};

use super::Endpoint;
use crate::core::MessageEntry;
use crate::http::AppState;
use crate::http::error::ApiFailure;
use crate::http::json::Body;

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get(
            "/session/{id}/message",
            "Messages with their parts; `?limit=N&before=` pages back from the newest",
            super::message_list::list,
        )
        .json::<Vec<MessageEntry>>(),
        Endpoint::post(
            "/session/{id}/message",
            "Prompt and wait for the turn to end",
            prompt,
        )
        .body::<PromptBody>()
        .json::<MessageEntry>(),
        Endpoint::get(
            "/session/{id}/message/{message}",
            "One message with its parts",
            one,
        )
        .json::<MessageEntry>(),
        Endpoint::post(
            "/session/{id}/shell",
            "Run a command as the user's own bash call (409 while busy)",
            shell,
        )
        .body::<ShellBody>()
        .json::<MessageEntry>(),
        Endpoint::post(
            "/session/{id}/command",
            "Run a command (an MCP prompt) as the next turn and wait for it to end",
            command,
        )
        .body::<CommandBody>()
        .json::<MessageEntry>(),
        Endpoint::post(
            "/session/{id}/summarize",
            "Compact the session now (a manual compaction) and wait for it to end",
            summarize,
        )
        .body::<SummarizeBody>()
        .json::<bool>(),
        Endpoint::post(
            "/session/{id}/prompt_async",
            "Prompt without waiting",
            prompt_async,
        )
        .body::<PromptBody>()
        .empty(),
    ]
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
    Ok(Json(s.core.answer(turn).await?))
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

/// `POST /session/:id/command`: the prompt rendered with the arguments, as a turn.
async fn command(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Body(body): Body<CommandBody>,
) -> Result<Json<MessageEntry>, ApiFailure> {
    let turn = s.core.command(&id, body).await?;
    Ok(Json(s.core.answer(turn).await?))
}

/// `POST /session/:id/shell`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ShellBody {
    pub command: String,
    #[serde(default)]
    pub agent: Option<String>,
    #[serde(default)]
    pub model: Option<ModelChoice>,
}

/// Runs the command as the user's own `bash` call and answers with the assistant message
/// holding it, once it ended.
async fn shell(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Body(body): Body<ShellBody>,
) -> Result<Json<MessageEntry>, ApiFailure> {
    s.core.session(&id)?;
    let turn = s
        .core
        .shell(&id, &body.command, body.agent, body.model.as_ref())
        .await?;
    Ok(Json(s.core.answer(turn).await?))
}

/// `POST /session/:id/summarize`: `true` once the summary is stored, or once it failed (the
/// failure is the session's error, as opencode reports it).
async fn summarize(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Body(body): Body<SummarizeBody>,
) -> Result<Json<bool>, ApiFailure> {
    let model = body.model();
    let instructions = body.instructions.unwrap_or_default();
    let turn = s.core.summarize(&id, model.as_ref(), instructions).await?;
    turn.finished().await?;
    Ok(Json(true))
}
