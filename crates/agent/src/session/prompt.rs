//! The system prompt: who the agent is, how it should work, and where it runs.

use strata_services::instance::InstanceInfo;
use strata_services::skills::Skill;

/// The system prompt for a run in `info`'s project.
pub fn system_prompt(info: &InstanceInfo, model_id: &str, date: &str) -> String {
    let vcs = info.vcs.unwrap_or("none");
    format!(
        "You are Strata, a coding agent working in the user's project through the tools you \
are given. Work out what the user wants, look at the code before changing it, make the change \
with the tools, and check your work where you can. Prefer small, precise edits. When you are \
done, answer briefly: say what you did and anything the user must know. Do not invent file \
contents or tool results; read them.

Environment:
- Project directory: {dir}
- Worktree: {worktree}
- Version control: {vcs}
- Platform: {os}
- Today: {date}
- Model: {model_id}",
        dir = info.directory.display(),
        worktree = info.worktree.display(),
        os = std::env::consts::OS,
    )
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
