//! What a session offers the editor: the agents a turn may run as, shown as ACP modes (`build`,
//! `plan` and the project's own), and the skills and the MCP servers' prompts, shown as
//! commands.

use agent_client_protocol::v1::schema::{
    AvailableCommand, AvailableCommandInput, SessionMode, SessionModeState,
    UnstructuredCommandInput,
};
use strata_registry::Agents;
use strata_services::mcp::McpPrompt;
use strata_services::skills::Skills;

/// The mode a new session starts in.
pub(crate) const DEFAULT_MODE: &str = "build";

/// The agents a turn may run as, `current` first among equals (sorted by name otherwise).
pub(crate) fn state(agents: &Agents, current: &str) -> SessionModeState {
    let modes = agents
        .list()
        .filter(|a| a.mode.is_primary())
        .map(|a| {
            SessionMode::new(a.name.clone(), a.name.clone()).description(a.description.clone())
        })
        .collect();
    SessionModeState::new(current.to_string(), modes)
}

/// Whether a turn may run as agent `id`.
pub(crate) fn is_mode(agents: &Agents, id: &str) -> bool {
    agents.get(id).is_some_and(|a| a.mode.is_primary())
}

/// The skills as commands (a command's text after its name is the task for the skill), then
/// the MCP prompts as `server:prompt` (the text after the name fills the prompt's arguments).
pub(crate) fn commands(skills: &Skills, prompts: &[McpPrompt]) -> Vec<AvailableCommand> {
    let skills = skills.all().map(|s| {
        AvailableCommand::new(s.name.clone(), s.description.clone().unwrap_or_default()).input(
            AvailableCommandInput::Unstructured(UnstructuredCommandInput::new(
                "what to use the skill for",
            )),
        )
    });
    let prompts = prompts.iter().map(|p| {
        let about = (p.description.clone().or_else(|| p.title.clone()))
            .unwrap_or_else(|| format!("the MCP prompt {} of {}", p.name, p.server));
        let command = AvailableCommand::new(p.command(), about);
        if p.arguments.is_empty() {
            command
        } else {
            command.input(AvailableCommandInput::Unstructured(
                UnstructuredCommandInput::new(p.usage()),
            ))
        }
    });
    skills.chain(prompts).collect()
}

/// `/server:prompt words…` when `server:prompt` is one of `prompts`: the command and the
/// words after it (not split yet).
pub(crate) fn prompt_command<'a>(
    text: &'a str,
    prompts: &[McpPrompt],
) -> Option<(&'a str, &'a str)> {
    let rest = text.trim_start().strip_prefix('/')?;
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    prompts
        .iter()
        .any(|p| p.command() == name)
        .then_some((name, args))
}

/// The text of a turn started with `/name rest`: a request to use the skill `name` when
/// `is_skill` says there is one, else the text unchanged.
pub(crate) fn expand(text: &str, is_skill: impl Fn(&str) -> bool) -> String {
    let Some(rest) = text.strip_prefix('/') else {
        return text.to_string();
    };
    let (name, task) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    if !is_skill(name) {
        return text.to_string();
    }
    let task = task.trim();
    if task.is_empty() {
        format!("Use the skill `{name}`.")
    } else {
        format!("Use the skill `{name}` for this: {task}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slash_command_naming_a_skill_asks_for_that_skill() {
        let is = |n: &str| n == "release";
        assert_eq!(
            expand("/release the 1.2 branch", is),
            "Use the skill `release` for this: the 1.2 branch"
        );
        assert_eq!(expand("/release", is), "Use the skill `release`.");
        assert_eq!(expand("/other thing", is), "/other thing");
        assert_eq!(expand("no command", is), "no command");
    }

    #[test]
    fn a_slash_command_naming_an_mcp_prompt_is_found_with_its_words() {
        let p = McpPrompt {
            server: "everything".into(),
            name: "args-prompt".into(),
            title: None,
            description: None,
            arguments: vec![],
        };
        let prompts = [p];
        assert_eq!(
            prompt_command("/everything:args-prompt Paris  TX", &prompts),
            Some(("everything:args-prompt", "Paris  TX"))
        );
        assert_eq!(
            prompt_command("/everything:args-prompt", &prompts),
            Some(("everything:args-prompt", ""))
        );
        assert_eq!(prompt_command("/everything:other x", &prompts), None);
        assert_eq!(prompt_command("everything:args-prompt", &prompts), None);
    }
}
