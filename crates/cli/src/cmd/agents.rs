//! Choosing the agent of a command (`--agent`), shared by `run` and `tools`.

use strata_registry::agents::DEFAULT_AGENT;
use strata_registry::{AgentInfo, Agents, Instance};

/// Prints a warning for each agent file or config entry that could not be read.
pub(crate) fn warn_broken(agents: &Agents) {
    for e in agents.errors() {
        eprintln!("strata: warning: {e}");
    }
}

/// The agents of `inst`, with a warning for each broken definition.
pub(crate) fn of(inst: &Instance) -> Result<Agents, String> {
    let agents = inst
        .get::<Agents>()
        .map_err(|e| format!("{e}; run `strata debug graph` to see the services"))?;
    warn_broken(&agents);
    Ok(agents)
}

/// The agent `name` (default `build`); an unknown name is a usage error listing the agents.
pub(crate) fn choose(agents: &Agents, name: Option<&str>) -> Result<AgentInfo, String> {
    let name = name.unwrap_or(DEFAULT_AGENT);
    agents
        .lookup(name)
        .cloned()
        .map_err(|e| format!("{e}; pick one with --agent NAME"))
}
