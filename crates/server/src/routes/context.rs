//! What clients read at start-up: paths, config, agents, providers, VCS, MCP status, skills,
//! commands (the MCP servers' prompts), and the lists Strata has nothing for yet (language
//! servers, formatters), answered
//! empty in opencode's shapes so its TUI bootstraps.

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};
use strata_protocol::wire::CommandInfo;
use strata_services::config::redact_secrets;

use super::Endpoint;
use crate::core::convert::project_id;
use crate::core::{catalog, commands};
use crate::http::AppState;
use crate::http::dir::Directory;
use crate::http::error::ApiFailure;

type Result = std::result::Result<Json<Value>, ApiFailure>;

/// Most routes here answer opencode's shapes as built JSON, which the document shows as "any".
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get("/path", "The project's paths", path),
        Endpoint::get("/config", "The merged configuration, keys hidden", config),
        Endpoint::get("/agent", "Agents", agent),
        Endpoint::get("/provider", "Providers", provider),
        Endpoint::get(
            "/config/providers",
            "Configured providers and default models",
            config_providers,
        ),
        Endpoint::get("/vcs", "The checked-out branch", vcs),
        Endpoint::get("/project/current", "The current project", project),
        Endpoint::get(
            "/project/{id}/directories",
            "The project's directories",
            directories,
        ),
        Endpoint::get("/command", "Commands: the MCP servers' prompts", command)
            .json::<Vec<CommandInfo>>(),
        Endpoint::get("/lsp", "Language servers", empty_list),
        Endpoint::get("/formatter", "Formatters", empty_list),
        Endpoint::get("/skill", "Skills", skill),
        Endpoint::get("/experimental/workspace", "Workspaces", empty_list),
        Endpoint::get("/mcp", "MCP server status", mcp),
        Endpoint::get(
            "/experimental/tool/ids",
            "Every tool's id, MCP tools included",
            tool_ids,
        )
        .json::<Vec<String>>(),
        Endpoint::get("/provider/auth", "Provider sign-in methods", empty_map),
        Endpoint::get("/experimental/resource", "Resources", empty_map),
        Endpoint::get(
            "/experimental/workspace/status",
            "Workspace status",
            empty_list,
        ),
        Endpoint::get(
            "/experimental/capabilities",
            "Server capabilities",
            capabilities,
        ),
        Endpoint::get("/experimental/console", "Console state", console),
        Endpoint::get("/api/location", "The project's location", location),
        Endpoint::get(
            "/api/skill",
            "Skills, with the project's location",
            api_skill,
        ),
        Endpoint::get(
            "/api/{*rest}",
            "Newer catalog routes: the location and an empty list",
            located_empty,
        ),
    ]
}

async fn tool_ids(
    State(s): State<AppState>,
    Directory(dir): Directory,
) -> std::result::Result<Json<Vec<&'static str>>, ApiFailure> {
    Ok(Json(s.core.instance(&dir).await?.services.registry.ids()))
}

async fn command(
    State(s): State<AppState>,
    Directory(dir): Directory,
) -> std::result::Result<Json<Vec<CommandInfo>>, ApiFailure> {
    Ok(Json(commands::list(&*s.core.instance(&dir).await?)))
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
