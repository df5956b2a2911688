//! What clients read at start-up: paths, config, agents, providers, VCS, MCP status, skills,
//! and the lists Strata has nothing for yet (commands, language servers, formatters), answered
//! empty in opencode's shapes so its TUI bootstraps.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};
use strata_services::config::redact_secrets;

use crate::core::catalog;
use crate::core::convert::project_id;
use crate::http::AppState;
use crate::http::dir::Directory;
use crate::http::error::ApiFailure;

type Result = std::result::Result<Json<Value>, ApiFailure>;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/path", get(path))
        .route("/config", get(config))
        .route("/agent", get(agent))
        .route("/provider", get(provider))
        .route("/config/providers", get(config_providers))
        .route("/vcs", get(vcs))
        .route("/project/current", get(project))
        .route("/project/{id}/directories", get(directories))
        .route("/command", get(empty_list))
        .route("/lsp", get(empty_list))
        .route("/formatter", get(empty_list))
        .route("/skill", get(skill))
        .route("/experimental/workspace", get(empty_list))
        .route("/mcp", get(mcp))
        .route("/provider/auth", get(empty_map))
        .route("/experimental/resource", get(empty_map))
        .route("/experimental/workspace/status", get(empty_list))
        .route("/experimental/capabilities", get(capabilities))
        .route("/experimental/console", get(console))
        .route("/api/location", get(location))
        .route("/api/skill", get(api_skill))
        .route("/api/{*rest}", get(located_empty))
}

async fn path(State(s): State<AppState>, Directory(dir): Directory) -> Result {
    Ok(Json(catalog::paths(&*s.core.instance(&dir).await?)))
}

async fn config(State(s): State<AppState>, Directory(dir): Directory) -> Result {
    let entry = s.core.instance(&dir).await?;
    // Keys and tokens stay on the server: a client that shows the config never needs them.
    let raw = &entry.services.config.raw;
    Ok(Json(if raw.is_object() {
        redact_secrets(raw)
    } else {
        json!({})
    }))
}

async fn agent(State(s): State<AppState>, Directory(dir): Directory) -> Result {
    Ok(Json(catalog::agents(&*s.core.instance(&dir).await?)))
}

async fn mcp(State(s): State<AppState>, Directory(dir): Directory) -> Result {
    Ok(Json(catalog::mcp_status(&*s.core.instance(&dir).await?)))
}

async fn provider(State(s): State<AppState>, Directory(dir): Directory) -> Result {
    let listing = catalog::providers(&*s.core.instance(&dir).await?);
    Ok(Json(listing.provider()))
}

async fn config_providers(State(s): State<AppState>, Directory(dir): Directory) -> Result {
    let listing = catalog::providers(&*s.core.instance(&dir).await?);
    Ok(Json(listing.config_providers()))
}

async fn vcs(State(s): State<AppState>, Directory(dir): Directory) -> Result {
    let entry = s.core.instance(&dir).await?;
    Ok(Json(catalog::vcs(&entry.services.info.worktree)))
}

async fn project(State(s): State<AppState>, Directory(dir): Directory) -> Result {
    let entry = s.core.instance(&dir).await?;
    let worktree = entry.services.info.worktree.to_string_lossy().into_owned();
    let vcs = entry
        .services
        .info
        .worktree
        .join(".git")
        .exists()
        .then_some("git");
    Ok(Json(json!({
        "id": project_id(&entry.directory),
        "worktree": worktree,
        "vcs": vcs,
        "time": {"created": 0, "updated": 0},
        "sandboxes": [],
    })))
}

async fn directories(State(s): State<AppState>, Directory(dir): Directory) -> Result {
    let entry = s.core.instance(&dir).await?;
    Ok(Json(json!([{"directory": entry.directory}])))
}

async fn empty_list() -> Json<Value> {
    Json(json!([]))
}

async fn empty_map() -> Json<Value> {
    Json(json!({}))
}

async fn capabilities() -> Json<Value> {
    Json(json!({"backgroundSubagents": false}))
}

async fn console() -> Json<Value> {
    Json(json!({"consoleManagedProviders": [], "switchableOrgCount": 0}))
}

async fn skill(State(s): State<AppState>, Directory(dir): Directory) -> Result {
    Ok(Json(catalog::skills(&*s.core.instance(&dir).await?)))
}

/// `{directory, project: {id, directory}}`: where the newer `/api/*` routes say they answer
/// from.
fn located(directory: &str) -> Value {
    json!({
        "directory": directory,
        "project": {"id": project_id(directory), "directory": directory},
    })
}

async fn location(State(s): State<AppState>, Directory(dir): Directory) -> Result {
    let entry = s.core.instance(&dir).await?;
    Ok(Json(located(&entry.directory)))
}

async fn api_skill(State(s): State<AppState>, Directory(dir): Directory) -> Result {
    let entry = s.core.instance(&dir).await?;
    Ok(Json(json!({
        "location": located(&entry.directory),
        "data": catalog::skills(&entry),
    })))
}

/// The newer `/api/*` catalog routes opencode's TUI also asks for: the project's location and
/// an empty list (Strata serves the v1 routes).
async fn located_empty(State(s): State<AppState>, Directory(dir): Directory) -> Result {
    let entry = s.core.instance(&dir).await?;
    Ok(Json(
        json!({"location": located(&entry.directory), "data": []}),
    ))
}
