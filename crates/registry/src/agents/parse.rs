//! Reading one agent definition (a config entry or a file's frontmatter) key by key, so that
//! an error names the key at fault.

use std::path::Path;

use serde_json::{Map, Value};
use strata_services::permission::{Action, Rule, Ruleset, from_config};

use super::{AgentInfo, AgentMode};

/// What one definition sets; `None` leaves the agent's current value.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Patch {
    pub(crate) description: Option<String>,
    pub(crate) mode: Option<AgentMode>,
    pub(crate) model: Option<String>,
    pub(crate) temperature: Option<f64>,
    pub(crate) steps: Option<u32>,
    pub(crate) rules: Ruleset,
    pub(crate) prompt: Option<String>,
    /// `isolation: worktree` (`Some(true)`) or `isolation: none` (`Some(false)`).
    pub(crate) worktree: Option<bool>,
    /// `disable: true` removes the agent.
    pub(crate) disable: bool,
}

/// A key with a value it cannot have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeyError {
    pub(crate) key: String,
    pub(crate) message: String,
}

fn bad(key: &str, expected: &str, found: &Value) -> KeyError {
    KeyError {
        key: key.to_string(),
        message: format!("it must be {expected}, but it is {found}"),
    }
}

fn string(map: &Map<String, Value>, key: &str) -> Result<Option<String>, KeyError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().to_string()).filter(|s| !s.is_empty())),
        Some(v) => Err(bad(key, "a string", v)),
    }
}

/// Reads `map` (unknown keys are ignored, as opencode keeps them as model options).
pub(crate) fn patch(map: &Map<String, Value>, home: &Path) -> Result<Patch, KeyError> {
    let mode = match string(map, "mode")? {
        None => None,
        Some(m) => Some(AgentMode::parse(&m).ok_or_else(|| {
            bad(
                "mode",
                "\"primary\", \"subagent\" or \"all\"",
                &Value::String(m),
            )
        })?),
    };
    let temperature = match map.get("temperature") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_f64()
                .filter(|t| (0.0..=2.0).contains(t))
                .ok_or_else(|| bad("temperature", "a number from 0 to 2", v))?,
        ),
    };
    let steps_key = if map.contains_key("steps") {
        "steps"
    } else {
        "maxSteps"
    };
    let steps = match map.get(steps_key) {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .filter(|n| *n > 0)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| bad(steps_key, "a positive integer", v))?,
        ),
    };
    let mut rules = tools_rules(map)?;
    rules.extend(permission_rules(map, home)?);
    let disable = match map.get("disable") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(v) => return Err(bad("disable", "true or false", v)),
    };
    let worktree = match string(map, "isolation")?.as_deref() {
        None => None,
        Some("worktree") => Some(true),
        Some("none") => Some(false),
        Some(other) => {
            let found = Value::String(other.to_string());
            return Err(bad("isolation", "\"worktree\" or \"none\"", &found));
        }
    };
    Ok(Patch {
        description: string(map, "description")?,
        mode,
        model: string(map, "model")?,
        temperature,
        steps,
        rules,
        prompt: string(map, "prompt")?,
        worktree,
        disable,
    })
}

/// `permission`: an action for everything, or the config's map of tool to action or patterns.
fn permission_rules(map: &Map<String, Value>, home: &Path) -> Result<Ruleset, KeyError> {
    match map.get("permission") {
        None | Some(Value::Null) => Ok(Ruleset::new()),
        Some(Value::String(s)) => match Action::parse(s) {
            Some(action) => Ok(vec![Rule::new("*", "*", action)]),
            None => Err(bad(
                "permission",
                "\"allow\", \"ask\", \"deny\" or a map of tools to actions",
                &Value::String(s.clone()),
            )),
        },
        Some(Value::Object(m)) => from_config(m, home).map_err(|e| KeyError {
            key: e.field.clone(),
            message: format!(
                "it must be \"allow\", \"ask\" or \"deny\", but it is {}",
                e.found
            ),
        }),
        Some(v) => Err(bad("permission", "an object mapping tools to actions", v)),
    }
}

/// The older `tools: {name: false}` switches, as rules: `false` denies the tool's permission
/// (a built-in tool's, as its definition declares: `write` and `apply_patch` ask as `edit`),
/// `true` allows it. A name no built-in has (an MCP tool) is its own permission.
fn tools_rules(map: &Map<String, Value>) -> Result<Ruleset, KeyError> {
    tools_rules_over(map, &strata_tools::builtin())
}

/// [`tools_rules`] over the tool definitions `defs`.
pub(super) fn tools_rules_over(
    map: &Map<String, Value>,
    defs: &[strata_tools::ToolDef],
) -> Result<Ruleset, KeyError> {
    let Some(tools) = map.get("tools").filter(|v| !v.is_null()) else {
        return Ok(Ruleset::new());
    };
    let Value::Object(tools) = tools else {
        return Err(bad(
            "tools",
            "an object of tool names to true or false",
            tools,
        ));
    };
    let mut rules = Ruleset::new();
    for (tool, on) in tools {
        let Value::Bool(on) = on else {
            return Err(bad(&format!("tools.{tool}"), "true or false", on));
        };
        let permission = defs
            .iter()
            .find(|d| d.id == tool)
            .map_or(tool.as_str(), |d| d.permission);
        let action = if *on { Action::Allow } else { Action::Deny };
        rules.push(Rule::new(permission, "*", action));
    }
    Ok(rules)
}

/// Applies `patch` to `agent`: set values replace, rules are appended to its own rules.
pub(crate) fn apply(agent: &mut AgentInfo, patch: Patch) {
    let Patch {
        description,
        mode,
        model,
        temperature,
        steps,
        rules,
        prompt,
        worktree,
        disable: _,
    } = patch;
    if let Some(worktree) = worktree {
        agent.worktree = worktree;
    }
    if description.is_some() {
        agent.description = description;
    }
    if let Some(mode) = mode {
        agent.mode = mode;
    }
    if model.is_some() {
        agent.model = model;
    }
    if temperature.is_some() {
        agent.temperature = temperature;
    }
    if steps.is_some() {
        agent.steps = steps;
    }
    if prompt.is_some() {
        agent.prompt = prompt;
    }
    agent.own_rules.extend(rules);
}
