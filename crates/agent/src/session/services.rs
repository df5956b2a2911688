//! [`LoopServices`]: the services the loop uses, resolved from an instance, and the model
//! resolver of that instance.

use strata_graph::{Context, Deps, Missing, Requirement};
use strata_registry::{Agents, ToolRegistry};
use strata_services::background::BackgroundShells;
use strata_services::clock::Clock;
use strata_services::config::Config;
use strata_services::flags::RuntimeFlags;
use strata_services::hooks::Hooks;
use strata_services::instance::InstanceInfo;
use strata_services::instructions::Instructions;
use strata_services::permission::Permission;
use strata_services::skills::Skills;

use crate::store::Store;
use crate::subagents::SubagentRuns;

/// The services the loop uses, resolved from an instance.
#[derive(Debug, Clone)]
pub struct LoopServices {
    pub store: Store,
    pub registry: ToolRegistry,
    pub permission: Permission,
    pub config: Config,
    pub flags: RuntimeFlags,
    pub info: InstanceInfo,
    pub skills: Skills,
    /// The instruction files for the system prompt.
    pub instructions: Instructions,
    /// The agents a run may use; [`RunOptions::agent`] names one.
    pub agents: Agents,
    /// Waits between retries go through the Clock, so tests can drive them.
    pub clock: Clock,
    /// The live runs, so `task` can start children from this one.
    pub runs: SubagentRuns,
    /// The background shells, whose endings the next request is told of (absent in graphs
    /// without them).
    pub background: Option<BackgroundShells>,
    /// Claude Code's hooks of the instance, for the loop's events.
    pub hooks: Hooks,
}

/// The loop resolves its services as one declared set, so graph validation can name it.
impl Deps for LoopServices {
    fn requires() -> Vec<Requirement> {
        <(Store, ToolRegistry, Permission, Config, RuntimeFlags)>::requires()
            .into_iter()
            .chain(<(InstanceInfo, Skills, Instructions, Agents, Clock)>::requires())
            .chain(<(Hooks,)>::requires())
            .collect()
    }

    fn resolve(cx: &Context) -> Result<Self, Missing> {
        let (store, registry, permission, config, flags) = Deps::resolve(cx)?;
        let (info, skills, instructions, agents, clock) = Deps::resolve(cx)?;
        let (hooks,) = <(Hooks,)>::resolve(cx)?;
        Ok(Self {
            store,
            registry,
            permission,
            config,
            flags,
            info,
            skills,
            instructions,
            agents,
            clock,
            // Graphs without the registry cannot start subagents; a private one is harmless.
            runs: cx.get::<SubagentRuns>().unwrap_or_default(),
            background: cx.get::<BackgroundShells>().ok(),
            hooks,
        })
    }
}

impl LoopServices {
    /// How validation and errors name the loop as a consumer of an instance.
    pub const CONSUMER: &'static str = "the agent loop";

    /// Resolves every service from an instance context (the store from the global tier); a
    /// missing one names the loop.
    pub fn from_context(cx: &Context) -> Result<Self, Missing> {
        strata_graph::resolve(cx, Self::CONSUMER)
    }

    /// The model resolver of this instance: the config's providers and its
    /// `enabled_providers`/`disabled_providers`, the process environment, and the keys stored by
    /// `strata auth login` (and opencode's).
    pub fn resolver(&self) -> crate::provider::Resolver<'_> {
        let env = |k: &str| std::env::var(k).ok();
        let credentials = crate::provider::Credentials::standard(
            &self.flags.data_dir,
            &self.flags.home_dir,
            &env,
        );
        crate::provider::Resolver::new(&self.config.provider)
            .with_filters_from(&self.config.raw)
            .with_credentials(credentials)
    }
}
