//! The effective permission rules of an agent: built-in defaults, the built-in agent's rules,
//! the user's config, then the agent's own definition (spec §0.5).

use strata_services::config::Config;
use strata_services::flags::RuntimeFlags;
use strata_services::permission::{
    Action, Rule, RuleConfigError, Ruleset, default_rules, ensure_truncation_allow, from_config,
};
use strata_services::skills::Skills;

use crate::agents::{AgentInfo, AgentMode, builtin_agents};

/// The rules of the built-in agent named `agent` (`build` is the default agent; any other
/// name gets the defaults and the config). Each discovered skill's directory is allowed for
/// `external_directory` by default. A malformed `permission` block in config is an error
/// naming it. For custom agents use [`ruleset_of`] with the agent from [`crate::Agents`].
pub fn agent_ruleset(
    agent: &str,
    config: &Config,
    flags: &RuntimeFlags,
    skills: &Skills,
) -> Result<Ruleset, RuleConfigError> {
    let builtin = builtin_agents().into_iter().find(|a| a.name == agent);
    match builtin {
        Some(a) => ruleset_of(&a, config, flags, skills),
        None => ruleset_of(
            &AgentInfo::new(agent, AgentMode::All),
            config,
            flags,
            skills,
        ),
    }
}

/// The effective rules of `agent` (spec §0.5): the defaults, the built-in agent's rules, the
/// user's `permission` config, then the rules from the agent's own definition; and the
/// truncation directory stays readable unless denied exactly.
pub fn ruleset_of(
    agent: &AgentInfo,
    config: &Config,
    flags: &RuntimeFlags,
    skills: &Skills,
) -> Result<Ruleset, RuleConfigError> {
    let truncation_dir = flags.tool_output_dir();
    let temp = flags.temp_dir.join("strata");
    let defaults = default_rules(&truncation_dir, &temp, &skills.dirs());
    let user = match &config.data().permission {
        Some(map) => from_config(map, &flags.home_dir)?,
        None => Vec::new(),
    };
    let mut rules = defaults;
    rules.extend(agent.rules.iter().cloned());
    rules.extend(user);
    rules.extend(agent.own_rules.iter().cloned());
    Ok(ensure_truncation_allow(rules, &truncation_dir))
}

/// The session rules of a run that has no one to answer questions (`--format json`, no
/// terminal on stdin, `strata tools` unless `--interactive`): `question` and `plan_exit`
/// (which asks through the Question service) are denied, so they are not offered (spec §0.5,
/// §0.7).
pub fn non_interactive_rules() -> Ruleset {
    vec![
        Rule::new("question", "*", Action::Deny),
        Rule::new("plan_exit", "*", Action::Deny),
    ]
}
