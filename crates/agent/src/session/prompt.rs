//! The system prompt: who the agent is, how it should work, where it runs, and what the user
//! and the project asked of it.
//!
//! Assembled in this order ([`assemble`]):
//! 1. the base prompt (`prompts/base.md`) followed by the notes for the model's family
//!    (`prompts/gpt.md`, `prompts/claude.md`, chosen by [`Family::of`]), or, for an agent that
//!    has its own prompt, that prompt instead of both;
//! 2. the environment block (directory, worktree, VCS, platform, date, model);
//! 3. the instruction files (AGENTS.md and friends, see `strata_services::instructions`), each
//!    under a line naming its path;
//! 4. the skills listing, when the `skill` tool is offered.

use strata_services::instance::InstanceInfo;
use strata_services::instructions::InstructionFile;
use strata_services::permission::Ruleset;
use strata_services::skills::Skill;
use strata_tools::ErasedTool;

use super::services::LoopServices;
use strata_tools::skill::SkillTool;

const BASE: &str = include_str!("prompts/base.md");
const GPT_NOTES: &str = include_str!("prompts/gpt.md");
const CLAUDE_NOTES: &str = include_str!("prompts/claude.md");

/// The label before each instruction file's text (the `read` tool's reminders use it too).
pub const INSTRUCTIONS_FROM: &str = "Instructions from: ";

/// The model families that get their own notes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// OpenAI's GPT and reasoning (`o1`, `o3`, `o4`…, codex) models.
    Gpt,
    /// Anthropic's Claude models.
    Claude,
    /// Anything else: the base prompt alone.
    Other,
}

impl Family {
    /// The family of `model_id` (`provider/model`): by the model's name, else by its provider
    /// (`anthropic/…` serves Claude models).
    pub fn of(model_id: &str) -> Family {
        let id = model_id.to_ascii_lowercase();
        let (provider, model) = id.split_once('/').unwrap_or(("", &id));
        let reasoning = ["o1", "o3", "o4"]
            .iter()
            .any(|p| model == *p || model.starts_with(&format!("{p}-")));
        if model.contains("claude") {
            Family::Claude
        } else if model.contains("gpt") || model.contains("codex") || reasoning {
            Family::Gpt
        } else if provider == "anthropic" {
            Family::Claude
        } else {
            Family::Other
        }
    }

    fn notes(self) -> Option<&'static str> {
        match self {
            Family::Gpt => Some(GPT_NOTES),
            Family::Claude => Some(CLAUDE_NOTES),
            Family::Other => None,
        }
    }
}

/// What a system prompt is assembled from.
#[derive(Debug, Clone)]
pub struct PromptInput<'a> {
    /// `provider/model`, as the user named it.
    pub model_id: &'a str,
    pub info: &'a InstanceInfo,
    /// Today, `YYYY-MM-DD`.
    pub date: &'a str,
    /// An agent's own prompt: replaces the base prompt and the model notes; the environment,
    /// instructions and skills still follow.
    pub agent_prompt: Option<&'a str>,
    pub instructions: &'a [InstructionFile],
    /// The skills section, when the `skill` tool is offered (see [`skills_section`]).
    pub skills: Option<String>,
}

/// The whole system prompt.
pub fn assemble(input: &PromptInput<'_>) -> String {
    let mut sections: Vec<String> = Vec::new();
    match input.agent_prompt {
        Some(own) => sections.push(own.trim().to_string()),
        None => {
            sections.push(BASE.trim().to_string());
            if let Some(notes) = Family::of(input.model_id).notes() {
                sections.push(notes.trim().to_string());
            }
        }
    }
    sections.push(environment(input.info, input.model_id, input.date));
    if let Some(section) = instructions_section(input.instructions) {
        sections.push(section);
    }
    if let Some(skills) = &input.skills {
        sections.push(skills.clone());
    }
    sections.join("\n\n")
}

/// The system prompt of a run: today's date, the instance's instruction files as they are now,
/// and the skills when `surface` offers the `skill` tool.
pub async fn for_run(
    services: &LoopServices,
    model_id: &str,
    agent_prompt: Option<&str>,
    surface: &[ErasedTool],
    ruleset: &Ruleset,
) -> String {
    let date = strata_services::clock::utc_date(crate::store::now_ms());
    let instructions = services.instructions.load().await;
    // The skills reach the model here, not in the tool's description, which stays stable.
    let skills = surface
        .iter()
        .any(|t| t.id == <SkillTool as strata_tools::Tool>::ID)
        .then(|| skills_section(services.skills.listed(ruleset)))
        .flatten();
    assemble(&PromptInput {
        model_id,
        info: &services.info,
        date: &date,
        agent_prompt,
        instructions: &instructions,
        skills,
    })
}

/// The base prompt with the environment block, without instructions or skills.
pub fn system_prompt(info: &InstanceInfo, model_id: &str, date: &str) -> String {
    assemble(&PromptInput {
        model_id,
        info,
        date,
        agent_prompt: None,
        instructions: &[],
        skills: None,
    })
}

/// Where the agent runs.
fn environment(info: &InstanceInfo, model_id: &str, date: &str) -> String {
    format!(
        "# Environment

- Project directory: {dir}
- Worktree: {worktree}
- Version control: {vcs}
- Platform: {os}
- Today: {date}
- Model: {model_id}",
        dir = info.directory.display(),
        worktree = info.worktree.display(),
        vcs = info.vcs.unwrap_or("none"),
        os = std::env::consts::OS,
    )
}

/// The instruction files, each under a line naming it; `None` when there are none.
fn instructions_section(files: &[InstructionFile]) -> Option<String> {
    if files.is_empty() {
        return None;
    }
    let blocks: Vec<String> = files
        .iter()
        .map(|f| {
            format!(
                "{INSTRUCTIONS_FROM}{}\n{}",
                f.path.display(),
                f.text.trim_end()
            )
        })
        .collect();
    Some(format!(
        "# Instructions

The user and the project left these instructions. Follow them. Where two disagree, the one \
listed later (closer to the working directory, or named in the configuration) wins, and a \
direct request from the user wins over all of them.

{}",
        blocks.join("\n\n")
    ))
}

/// The `<available_skills>` section (spec §13): each listed skill's name, description and the
/// location of its SKILL.md, sorted by name as given. `None` when there is nothing to list.
/// The caller passes only skills with a description that the agent's rules do not deny, and
/// leaves the section out when the `skill` tool is not on the surface.
pub fn skills_section<'a>(skills: impl IntoIterator<Item = &'a Skill>) -> Option<String> {
    let entries: Vec<String> = skills
        .into_iter()
        .map(|s| {
            format!(
                "  <skill>\n    <name>{}</name>\n    <description>{}</description>\n    \
                 <location>{}</location>\n  </skill>",
                escape(&s.name),
                escape(s.description.as_deref().unwrap_or_default()),
                escape(&s.location.display().to_string()),
            )
        })
        .collect();
    if entries.is_empty() {
        return None;
    }
    Some(format!(
        "Skills are instructions written for particular kinds of task. When the task at hand \
matches a skill's description, load that skill with the `skill` tool, by name, before you do \
the work, and follow it.
<available_skills>
{}
</available_skills>",
        entries.join("\n")
    ))
}

/// Escapes the characters that would break the XML-like listing.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> InstanceInfo {
        InstanceInfo {
            directory: "/src/shop/app".into(),
            worktree: "/src/shop".into(),
            data_dir: "/data".into(),
            vcs: Some("git"),
        }
    }

    /// The prompt with the platform redacted (paths and date are fixed above).
    fn prompt(
        model_id: &str,
        agent_prompt: Option<&str>,
        instructions: &[InstructionFile],
    ) -> String {
        assemble(&PromptInput {
            model_id,
            info: &info(),
            date: "2026-01-02",
            agent_prompt,
            instructions,
            skills: None,
        })
        .replace(
            &format!("- Platform: {}", std::env::consts::OS),
            "- Platform: [os]",
        )
    }

    #[test]
    fn the_prompt_for_each_family() {
        insta::assert_snapshot!("prompt_other", prompt("openai/qwen3-coder", None, &[]));
        insta::assert_snapshot!("prompt_gpt", prompt("openai/gpt-5", None, &[]));
        insta::assert_snapshot!(
            "prompt_claude",
            prompt("anthropic/claude-sonnet-4-5", None, &[])
        );
    }

    #[test]
    fn an_agent_prompt_replaces_the_base_and_instructions_follow_the_environment() {
        let files = [
            InstructionFile {
                path: "/src/shop/AGENTS.md".into(),
                text: "Run the tests.\n".into(),
            },
            InstructionFile {
                path: "/src/shop/app/CLAUDE.md".into(),
                text: "Tabs.".into(),
            },
        ];
        let own = prompt(
            "anthropic/claude-sonnet-4-5",
            Some("You plan; you never edit files."),
            &files,
        );
        insta::assert_snapshot!("prompt_agent_with_instructions", own);
        assert!(own.starts_with("You plan; you never edit files.\n\n# Environment"));
        assert!(!own.contains("Notes for this model"));
    }

    #[test]
    fn families_come_from_the_model_id() {
        assert_eq!(Family::of("openai/gpt-4.1"), Family::Gpt);
        assert_eq!(Family::of("openai/o3-mini"), Family::Gpt);
        assert_eq!(Family::of("openai/gpt-5-codex"), Family::Gpt);
        assert_eq!(Family::of("anthropic/claude-sonnet-4-5"), Family::Claude);
        assert_eq!(Family::of("openai/claude-via-proxy"), Family::Claude);
        assert_eq!(Family::of("anthropic/scripted-model"), Family::Claude);
        assert_eq!(Family::of("openai/qwen3-coder"), Family::Other);
        assert_eq!(Family::of("openai/o3x"), Family::Other);
    }

    fn skill(name: &str, description: &str) -> Skill {
        Skill {
            name: name.into(),
            description: Some(description.into()),
            location: format!("/s/{name}/SKILL.md").into(),
            dir: format!("/s/{name}").into(),
            source: strata_services::skills::SkillSource::Project,
            body: String::new(),
        }
    }

    #[test]
    fn skills_are_listed_with_name_description_and_location() {
        let skills = [skill("a", "does <a> & more"), skill("b", "bee")];
        let section = skills_section(&skills).unwrap();
        assert!(section.contains(
            "<available_skills>\n  <skill>\n    <name>a</name>\n    \
             <description>does &lt;a&gt; &amp; more</description>\n    \
             <location>/s/a/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>b</name>"
        ));
        assert!(section.ends_with("</skill>\n</available_skills>"));
        assert_eq!(skills_section(&[]), None);
    }
}
