//! opencode's `/experimental/worktree` routes over the [`Worktrees`] service: list, create,
//! remove and reset the git worktrees Strata makes for a project (`?directory=` names the
//! project). Failures answer 400 with opencode's `WorktreeError` names.
//!
//! One difference on purpose: removing a worktree with uncommitted changes needs `"force":
//! true` in the body, as `strata worktree remove` needs `--force`, so no client loses work by
//! accident.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use strata_services::worktree::{Worktree, WorktreeError, Worktrees};

use super::Endpoint;
use crate::http::AppState;
use crate::http::dir::Directory;
use crate::http::error::ApiFailure;
use crate::http::json::Body;

/// A worktree, as opencode answers it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
pub struct WorktreeInfo {
    pub name: String,
    pub branch: String,
    /// The worktree's folder.
    pub directory: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorktreeCreateInput {
    /// The worktree's name (also its branch, `strata/NAME`); generated when left out.
    #[serde(default)]
    pub name: Option<String>,
    /// Not supported: a command to run once the worktree is made (refused when set).
    #[serde(default, rename = "startCommand")]
    pub start_command: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorktreeRemoveInput {
    /// The worktree's folder (or its name).
    pub directory: String,
    /// Remove it even with uncommitted changes, which are lost.
    #[serde(default)]
    pub force: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorktreeResetInput {
    /// The worktree's folder (or its name).
    pub directory: String,
}

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get(
            "/experimental/worktree",
            "List the project's worktree folders",
            list,
        )
        .json::<Vec<String>>(),
        Endpoint::post(
            "/experimental/worktree",
            "Create a worktree on a new branch from HEAD",
            create,
        )
        .body::<WorktreeCreateInput>()
        .json::<WorktreeInfo>(),
        Endpoint::delete(
            "/experimental/worktree",
            "Remove a worktree and its branch",
            remove,
        )
        .body::<WorktreeRemoveInput>()
        .json::<bool>(),
        Endpoint::post(
            "/experimental/worktree/reset",
            "Reset a worktree to the main checkout's HEAD",
            reset,
        )
        .body::<WorktreeResetInput>()
        .json::<bool>(),
    ]
}

/// opencode's error name for a failure of `op`.
fn failure(op: &str, e: WorktreeError) -> ApiFailure {
    let name = match (&e, op) {
        (WorktreeError::NotGit { .. }, _) => "WorktreeNotGitError",
        (_, "create") => "WorktreeCreateFailedError",
        (_, "remove") => "WorktreeRemoveFailedError",
        (_, "reset") => "WorktreeResetFailedError",
        _ => "WorktreeListFailedError",
    };
    ApiFailure::new(StatusCode::BAD_REQUEST, name, e.to_string())
}

fn service(s: &AppState) -> Result<Worktrees, ApiFailure> {
    Ok(s.core.worktrees()?)
}

fn info(w: &Worktree) -> WorktreeInfo {
    WorktreeInfo {
        name: w.name.clone(),
        branch: w.branch.clone(),
        directory: w.path.to_string_lossy().into_owned(),
    }
}

async fn list(
    State(s): State<AppState>,
    Directory(dir): Directory,
) -> Result<Json<Vec<String>>, ApiFailure> {
    let all = match service(&s)?.list(&dir).await {
        Ok(all) => all,
        // A project without git has no worktrees, as opencode lists it.
        Err(WorktreeError::NotGit { .. }) => Vec::new(),
        Err(e) => return Err(failure("list", e)),
    };
    let dirs = all
        .iter()
        .map(|w| w.worktree.path.to_string_lossy().into_owned())
        .collect();
    Ok(Json(dirs))
}

async fn create(
    State(s): State<AppState>,
    Directory(dir): Directory,
    Body(body): Body<WorktreeCreateInput>,
) -> Result<Json<WorktreeInfo>, ApiFailure> {
    if body.start_command.as_deref().is_some_and(|c| !c.is_empty()) {
        return Err(ApiFailure::new(
            StatusCode::BAD_REQUEST,
            "WorktreeStartCommandFailedError",
            "`startCommand` is not supported here; create the worktree without it and run the \
             command in a session there",
        ));
    }
    let name = body.name.as_deref().filter(|n| !n.is_empty());
    let created = service(&s)?
        .create(&dir, name, false)
        .await
        .map_err(|e| failure("create", e))?;
    Ok(Json(info(&created.worktree)))
}

async fn remove(
    State(s): State<AppState>,
    Directory(dir): Directory,
    Body(body): Body<WorktreeRemoveInput>,
) -> Result<Json<bool>, ApiFailure> {
    service(&s)?
        .remove(&dir, &body.directory, body.force)
        .await
        .map_err(|e| failure("remove", e))?;
    Ok(Json(true))
}

async fn reset(
    State(s): State<AppState>,
    Directory(dir): Directory,
    Body(body): Body<WorktreeResetInput>,
) -> Result<Json<bool>, ApiFailure> {
    service(&s)?
        .reset(&dir, &body.directory)
        .await
        .map_err(|e| failure("reset", e))?;
    Ok(Json(true))
}
