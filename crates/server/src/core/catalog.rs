//! The project context clients bootstrap from, in opencode's shapes: the path set, the
//! configured providers and models, the agents, the MCP servers' status, the skills, the VCS branch.

use std::path::Path;

use serde_json::{Map, Value, json};
use strata_registry::AgentInfo;
use strata_registry::rules::ruleset_of;
use strata_services::mcp::{Mcp, ServerStatus};

use super::instances::InstanceEntry;

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

/// The models this project can name: the config's `model` and every model listed under a
/// configured provider, grouped by provider (`{providerID: {modelID: Model}}`).
fn models(entry: &InstanceEntry) -> Vec<(String, Vec<String>)> {
    let config = &entry.services.config;
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut add = |provider: &str, model: &str| match out.iter_mut().find(|(p, _)| p == provider) {
        Some((_, models)) if !models.iter().any(|m| m == model) => models.push(model.into()),
        Some(_) => {}
        None => out.push((provider.into(), vec![model.into()])),
    };
    if let Some((p, m)) = config.model.as_deref().and_then(|m| m.split_once('/')) {
        add(p, m);
    }
    for (provider, body) in &config.provider {
        if let Some(models) = body.get("models").and_then(Value::as_object) {
            for model in models.keys() {
                add(provider, model);
            }
        }
    }
    out
}

fn model_json(provider: &str, model: &str) -> Value {
    let io = json!({"text": true, "audio": false, "image": false, "video": false, "pdf": false});
    json!({
        "id": model,
        "providerID": provider,
        "api": {"id": model, "url": "", "npm": "@ai-sdk/openai-compatible"},
        "name": model,
        "capabilities": {
            "temperature": true, "reasoning": false, "attachment": false, "toolcall": true,
            "input": io, "output": io, "interleaved": false,
        },
        "cost": {"input": 0, "output": 0, "cache": {"read": 0, "write": 0}},
        "limit": {"context": 128000, "output": 32000},
        "status": "active",
        "options": {},
        "headers": {},
        "release_date": "",
        "variants": {},
    })
}

/// The providers with their models, and the default model of each.
pub fn providers(entry: &InstanceEntry) -> (Vec<Value>, Map<String, Value>) {
    let mut defaults = Map::new();
    let list = models(entry)
        .into_iter()
        .map(|(provider, models)| {
            if let Some(first) = models.first() {
                defaults.insert(provider.clone(), json!(first));
            }
            let name = entry
                .services
                .config
                .provider
                .get(&provider)
                .and_then(|p| p.get("name"))
                .and_then(Value::as_str)
                .unwrap_or(&provider)
                .to_string();
            let models: Map<String, Value> = models
                .iter()
                .map(|m| (m.clone(), model_json(&provider, m)))
                .collect();
            json!({
                "id": provider, "name": name, "source": "config", "env": [],
                "options": {}, "models": models,
            })
        })
        .collect();
    (list, defaults)
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
