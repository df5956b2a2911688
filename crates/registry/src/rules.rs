//! The effective permission rules of an agent: built-in defaults, the agent's own, then the
//! user's config (spec §0.5).

use strata_services::config::Config;
use strata_services::flags::RuntimeFlags;
use strata_services::permission::{
    Action, Rule, RuleConfigError, Ruleset, build_agent_rules, default_rules,
    ensure_truncation_allow, from_config,
};
use strata_services::skills::Skills;

/// The rules of `agent` (`build` is the default agent; any other name gets the defaults and the
/// config). Each discovered skill's directory is allowed for `external_directory` by default.
/// A malformed `permission` block in config is an error naming it.
pub fn agent_ruleset(
    agent: &str,
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
    Ok(match agent {
        "build" => build_agent_rules(&defaults, &user, &truncation_dir),
        _ => {
            let mut rules = defaults;
            rules.extend(user);
            ensure_truncation_allow(rules, &truncation_dir)
        }
    })
}

/// The session rules of a run that has no one to answer questions (`--format json`, no
/// terminal on stdin, `strata tools` unless `--interactive`): `question` is denied, so the tool
/// is not offered (spec §0.5, §0.7).
pub fn non_interactive_rules() -> Ruleset {
    vec![Rule::new("question", "*", Action::Deny)]
}
