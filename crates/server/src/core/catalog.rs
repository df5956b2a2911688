//! The project context clients bootstrap from, in opencode's shapes: the path set, the
//! configured providers and models, the agents, the MCP servers' status, the skills, the VCS branch.

use std::path::Path;

use serde_json::{Map, Value, json};
use strata_agent::provider::resolve::ListedProvider;
use strata_registry::AgentInfo;
use strata_registry::rules::ruleset_of;
use strata_services::mcp::{Mcp, ServerStatus};

use super::instances::InstanceEntry;
use super::provider_json;

/// `GET /path`.
pub fn paths(entry: &InstanceEntry) -> Value {
    let flags = &entry.services.flags;
    let info = &entry.services.info;
    json!({
        "home": flags.home_dir,
        "state": flags.data_dir,
        "config": flags.config_dir,
        "worktree": info.worktree,
        "directory": info.directory,
    })
}

/// The providers of `GET /provider` and `GET /config/providers`: every provider the config
/// allows, configured ones first, then those with a key, each with a default model (the
/// config's `model` for its provider, else its first). JSON is built only for what a route
/// answers.
#[derive(Debug, Default)]
pub struct ProviderListing {
    listed: Vec<ListedProvider>,
    default: Map<String, Value>,
}

impl ProviderListing {
    /// `GET /provider`: `{all, default, connected}`, `connected` being the ids that can be
    /// called now (a key, or a base URL that needs none).
    pub fn provider(&self) -> Value {
        let all: Vec<Value> = self.listed.iter().map(provider_json::provider).collect();
        let connected: Vec<&str> = self
            .listed
            .iter()
            .filter(|p| p.usable())
            .map(|p| p.id.as_str())
            .collect();
        json!({"all": all, "default": self.default, "connected": connected})
    }

    /// `GET /config/providers`: `{providers, default}` for the usable and the configured ones.
    pub fn config_providers(&self) -> Value {
        let shown: Vec<&ListedProvider> = self
            .listed
            .iter()
            .filter(|p| p.usable() || p.configured)
            .collect();
        let default: Map<String, Value> = shown
            .iter()
            .filter_map(|p| Some((p.id.clone(), self.default.get(&p.id)?.clone())))
            .collect();
        let providers: Vec<Value> = shown.into_iter().map(provider_json::provider).collect();
        json!({"providers": providers, "default": default})
    }
}

/// Every provider the instance's resolver lists (config, catalogue, keys in the environment
/// and stored ones), with the config's `model` added under its provider when nothing else
/// lists it.
pub fn providers(entry: &InstanceEntry) -> ProviderListing {
    let services = &entry.services;
    let mut listed = services.resolver().list();
    let named = services
        .config
        .model
        .as_deref()
        .and_then(|m| m.split_once('/'));
    if let Some((provider, model)) = named
        && let Some(p) = listed.iter_mut().find(|p| p.id == provider)
        && !p.models.iter().any(|m| m.id == model)
    {
        p.models.push(provider_json::named_only(model));
    }
    listed.sort_by_key(provider_json::rank);
    let default = listed
        .iter()
        .filter_map(|p| {
            let chosen = named
                .filter(|(provider, _)| *provider == p.id)
                .map(|(_, model)| model.to_string())
                .or_else(|| p.models.first().map(|m| m.id.clone()))?;
            Some((p.id.clone(), json!(chosen)))
        })
        .collect();
    ProviderListing { listed, default }
}

/// `GET /agent`: the instance's agents (built-in, files, config) with their effective rules,
/// the default agent first (opencode's TUI starts with the first agent that is not a subagent).
pub fn agents(entry: &InstanceEntry) -> Value {
    let s = &entry.services;
    let default = s.agents.default_agent().map(|a| a.name.clone());
    let mut list: Vec<&AgentInfo> = s.agents.list().collect();
    list.sort_by_key(|a| Some(&a.name) != default.as_ref());
    Value::Array(list.into_iter().map(|a| agent_json(entry, a)).collect())
}

fn agent_json(entry: &InstanceEntry, agent: &AgentInfo) -> Value {
    let s = &entry.services;
    // A bad `permission` block fails every turn with its own error; the listing still shows
    // the agent, with the rules it was defined with.
    let rules =
        ruleset_of(agent, &s.config, &s.flags, &s.skills).unwrap_or_else(|_| agent.rules.clone());
    let mut out = json!({
        "name": agent.name,
        "mode": agent.mode.as_str(),
        "native": agent.builtin,
        "permission": rules,
        "options": {},
    });
    let fields = [
        ("description", agent.description.as_ref().map(|d| json!(d))),
        ("prompt", agent.prompt.as_ref().map(|p| json!(p))),
        ("temperature", agent.temperature.map(|t| json!(t))),
        ("steps", agent.steps.map(|n| json!(n))),
        (
            "model",
            agent
                .model
                .as_deref()
                .and_then(|m| m.split_once('/'))
                .map(|(p, m)| json!({"providerID": p, "modelID": m})),
        ),
    ];
    for (key, value) in fields {
        if let Some(v) = value {
            out[key] = v;
        }
    }
    out
}

/// `GET /mcp`: each configured MCP server's status by name, in opencode's shapes
/// (`connected`, `disabled`, `failed` with the reason).
pub fn mcp_status(entry: &InstanceEntry) -> Value {
    let Ok(mcp) = entry.instance.get::<Mcp>() else {
        return json!({});
    };
    let map: Map<String, Value> = mcp
        .servers()
        .into_iter()
        .map(|server| {
            let status = match server.status {
                ServerStatus::Connected => json!({"status": "connected"}),
                ServerStatus::Disabled => json!({"status": "disabled"}),
                ServerStatus::Failed(why) => json!({"status": "failed", "error": why}),
            };
            (server.name, status)
        })
        .collect();
    Value::Object(map)
}

/// `GET /skill`: the skills found for this project, with their instructions.
pub fn skills(entry: &InstanceEntry) -> Value {
    let list = entry.services.skills.all().map(|skill| {
        json!({
            "name": skill.name,
            "description": skill.description.as_deref().unwrap_or_default(),
            "location": skill.location,
            "content": skill.body,
        })
    });
    Value::Array(list.collect())
}

/// `GET /vcs`: the checked-out branch, read from `.git/HEAD` of the worktree.
pub fn vcs(worktree: &Path) -> Value {
    let head = std::fs::read_to_string(worktree.join(".git").join("HEAD")).ok();
    match head
        .as_deref()
        .and_then(|h| h.trim().strip_prefix("ref: refs/heads/"))
    {
        Some(branch) => json!({"branch": branch, "default_branch": branch}),
        None => json!({}),
    }
}
