//! Agents: who is running a turn. An agent is a name, a description, a mode (primary,
//! subagent or both), optional model, temperature, step budget and prompt, and its own
//! permission rules (merged with the defaults and the user's config by [`crate::rules`]).
//!
//! Sources, later replacing or refining an earlier agent of the same name:
//! 1. the built-in agents `build` (default), `plan`, `general` and `explore`;
//! 2. markdown files with YAML frontmatter: the user's (`<config dir>/agents/*.md` and
//!    `~/.config/strata/agents/*.md`), then, in each directory from the worktree root down to the
//!    instance directory, `.opencode/agent/*.md`, `.opencode/agents/*.md` and
//!    `.strata/agents/*.md` (the file stem is the name, the body the prompt);
//! 3. the config's `agent` map (`"agent": {"review": {...}}`).
//!
//! A file or entry that cannot be read is reported ([`Agents::errors`]) naming the file and the
//! key at fault; the other agents still load. Files are read through [`FsUtil`].

mod builtin;
mod load;
mod parse;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use strata_graph::{BoxError, Node, Scope, Tier};
use strata_services::config::Config;
use strata_services::flags::RuntimeFlags;
use strata_services::fs::FsUtil;
use strata_services::instance::InstanceInfo;
use strata_services::permission::Ruleset;

pub use builtin::{PLAN_BASH_ALLOW, PLANS_DIR, builtin_agents, plan_bash_rules};
pub use load::sources;

/// The agent a run uses when none is named.
pub const DEFAULT_AGENT: &str = "build";

/// Where an agent may be used: as the agent of a turn, as a `task` subagent, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AgentMode {
    Primary,
    Subagent,
    All,
}

impl AgentMode {
    pub fn parse(s: &str) -> Option<AgentMode> {
        match s {
            "primary" => Some(AgentMode::Primary),
            "subagent" => Some(AgentMode::Subagent),
            "all" => Some(AgentMode::All),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            AgentMode::Primary => "primary",
            AgentMode::Subagent => "subagent",
            AgentMode::All => "all",
        }
    }

    /// Whether `task` may start this agent.
    pub fn is_subagent(self) -> bool {
        matches!(self, AgentMode::Subagent | AgentMode::All)
    }

    /// Whether a turn may run as this agent.
    pub fn is_primary(self) -> bool {
        matches!(self, AgentMode::Primary | AgentMode::All)
    }
}

impl fmt::Display for AgentMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// Where an agent's definition came from (the last source that touched it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentSource {
    Builtin,
    /// A markdown file.
    File(PathBuf),
    /// The config's `agent` map.
    Config,
}

/// One agent.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentInfo {
    pub name: String,
    /// What it is for; `task` lists it to the model.
    pub description: Option<String>,
    pub mode: AgentMode,
    /// `provider/model` to run with instead of the default.
    pub model: Option<String>,
    pub temperature: Option<f64>,
    /// Most model steps in one run of this agent.
    pub steps: Option<u32>,
    /// The built-in part of the agent's rules: after the defaults, before the user's
    /// `permission` config (see [`crate::rules::ruleset_of`]).
    pub rules: Ruleset,
    /// Rules from the agent's config or file, applied after the user's `permission` config.
    pub own_rules: Ruleset,
    /// Instructions added to the system prompt for this agent.
    pub prompt: Option<String>,
    /// `isolation: worktree`: each `task` child of this agent works in a git worktree of its
    /// own, removed when it ends unchanged.
    pub worktree: bool,
    pub builtin: bool,
    pub source: AgentSource,
}

impl AgentInfo {
    /// A bare agent with no rules of its own.
    pub fn new(name: impl Into<String>, mode: AgentMode) -> Self {
        Self {
            name: name.into(),
            description: None,
            mode,
            model: None,
            temperature: None,
            steps: None,
            rules: Ruleset::new(),
            own_rules: Ruleset::new(),
            prompt: None,
            worktree: false,
            builtin: false,
            source: AgentSource::Config,
        }
    }

    /// Whether this is the plan agent (plan-mode reminders, plan file).
    pub fn is_plan(&self) -> bool {
        self.name == "plan"
    }
}

/// An agent file or config entry that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentError {
    /// The agent it would have defined.
    pub name: String,
    /// The file, or `None` for the config's `agent` map.
    pub file: Option<PathBuf>,
    /// The key at fault (`temperature`, `permission.bash.git *`), empty for the whole file.
    pub key: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "the agent file {}", file.display())?,
            None => write!(f, "the config entry `agent.{}`", self.name)?,
        }
        if !self.key.is_empty() {
            write!(f, " has a bad `{}`", self.key)?;
        } else {
            write!(f, " could not be read")?;
        }
        write!(
            f,
            ": {}; the agent `{}` was not loaded",
            self.message, self.name
        )
    }
}

/// A name no agent has.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("there is no agent named `{name}`{broken}; the available agents are: {available}")]
pub struct UnknownAgent {
    pub name: String,
    /// The names that exist, sorted, comma-separated.
    pub available: String,
    /// `" (…)"` when a file meant to define it could not be read.
    broken: String,
}

#[derive(Debug, Default)]
struct Loaded {
    /// By name, so listings come out sorted.
    agents: BTreeMap<String, AgentInfo>,
    errors: Vec<AgentError>,
}

/// Handle to an instance's agents. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Agents(Arc<Loaded>);

impl strata_graph::Service for Agents {
    const KEY: &'static str = "Agents";
}

impl Default for Agents {
    /// The built-in agents only.
    fn default() -> Self {
        Self::from_parts(builtin_agents(), Vec::new())
    }
}

impl Agents {
    /// The instance-tier node: loads the agents through FsUtil when the instance starts.
    pub fn node() -> Node {
        Node::new(
            Tier::Instance,
            |(fs, info, config, flags): (FsUtil, InstanceInfo, Config, RuntimeFlags),
             _scope: Scope| async move {
                let agents = load::load(&fs, &info, &config, &flags).await;
                for e in agents.errors() {
                    tracing::warn!(target: "strata::agents", "{e}");
                }
                Ok::<_, BoxError>(agents)
            },
        )
    }

    pub(crate) fn from_parts(agents: Vec<AgentInfo>, errors: Vec<AgentError>) -> Self {
        let agents = agents.into_iter().map(|a| (a.name.clone(), a)).collect();
        Self(Arc::new(Loaded { agents, errors }))
    }

    /// Every agent, sorted by name.
    pub fn list(&self) -> impl Iterator<Item = &AgentInfo> {
        self.0.agents.values()
    }

    /// Every agent's name, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.0.agents.keys().map(String::as_str).collect()
    }

    pub fn get(&self, name: &str) -> Option<&AgentInfo> {
        self.0.agents.get(name)
    }

    /// The agent `name`, or an error listing the agents there are (and the broken file that
    /// was meant to define `name`, if any).
    pub fn lookup(&self, name: &str) -> Result<&AgentInfo, UnknownAgent> {
        self.get(name).ok_or_else(|| UnknownAgent {
            name: name.to_string(),
            available: self.names().join(", "),
            broken: self
                .errors()
                .iter()
                .find(|e| e.name == name)
                .map_or_else(String::new, |e| format!(" ({e})")),
        })
    }

    /// The default agent (`build`); the built-ins always define it.
    pub fn default_agent(&self) -> Option<&AgentInfo> {
        self.get(DEFAULT_AGENT)
    }

    /// The agents `task` may start (mode `subagent` or `all`), sorted by name.
    pub fn subagents(&self) -> impl Iterator<Item = &AgentInfo> {
        self.list().filter(|a| a.mode.is_subagent())
    }

    /// The agents a turn may run as (mode `primary` or `all`), sorted by name.
    pub fn primaries(&self) -> impl Iterator<Item = &AgentInfo> {
        self.list().filter(|a| a.mode.is_primary())
    }

    /// Agent files and config entries that could not be read.
    pub fn errors(&self) -> &[AgentError] {
        &self.0.errors
    }
}
