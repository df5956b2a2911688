//! What the agent of a turn changes in the loop besides its rules: the session's plan file,
//! the reminders that tell the model plan mode is on (or over), and the switch from `plan` to
//! `build` once the user approves the plan through `plan_exit`.
//!
//! Reminders are added to the last user message of the request only; they are not stored, so
//! the session's messages stay what the user and the loop wrote.

use std::path::{Path, PathBuf};

use strata_protocol::message::{AssistantMessage, UserMessage};
use strata_registry::agents::{DEFAULT_AGENT, PLANS_DIR};
use strata_services::instance::InstanceInfo;

use crate::provider::ChatMessage;
use crate::store::{Message, Part, Role, Session};

/// The tool whose success hands the turn to the build agent.
pub const PLAN_EXIT: &str = <strata_tools::plan_exit::PlanExit as strata_tools::Tool>::ID;

/// The agent that takes over from an approved plan.
pub const AFTER_PLAN: &str = DEFAULT_AGENT;

/// `‹worktree›/.strata/plans/‹created›-‹slug›.md`, the slug being the random tail of the
/// session id in lower case: stable for the session's life, unlike its title.
pub fn plan_file(info: &InstanceInfo, session: &Session) -> PathBuf {
    let tail: String = session
        .id
        .chars()
        .rev()
        .take(8)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    info.worktree.join(PLANS_DIR).join(format!(
        "{}-{}.md",
        session.created_ms,
        tail.to_ascii_lowercase()
    ))
}

/// The reminder sent with the user's message while the plan agent works.
pub fn plan_reminder(plan_file: &Path) -> String {
    let file = plan_file.display();
    format!(
        "<system-reminder>
Plan mode is on. You are planning, not implementing: do not change the project. The one file \
you may write is the plan file; edits anywhere else are refused. Run only commands that look \
(git status, git log, git diff, ls, cat, rg, find without -exec or -delete); anything else \
needs the user's approval and should not be needed while planning.

Your plan goes in {file}: create it with `write` if it does not exist yet, and keep \
improving it as you learn more.

Work in this order: understand the request by reading the code (delegate broad searches to \
the explore subagent), settle open questions with the user through the `question` tool, then \
write a concrete plan: the goal, the files to change and how, and how to check the result. \
When the plan is complete, call `plan_exit` so the user can approve it and hand the work to \
the build agent. Do not end your turn with the plan unfinished unless you are waiting for an \
answer.
</system-reminder>"
    )
}

/// The reminder sent once the build agent takes over from the plan agent.
pub fn build_switch_reminder() -> String {
    "<system-reminder>
Plan mode is over: you are now the build agent. Editing files and running commands are allowed \
again, within your usual permissions. If a plan was approved, carry it out step by step.
</system-reminder>"
        .to_string()
}

/// The agent a stored message was written by (empty when unknown).
fn agent_of(message: &Message) -> String {
    match message.role {
        Role::User => serde_json::from_value::<UserMessage>(message.data.clone())
            .map(|m| m.agent)
            .unwrap_or_default(),
        Role::Assistant => AssistantMessage::from_value(&message.data)
            .map(|m| m.agent)
            .unwrap_or_default(),
    }
}

/// Adds the reminder `agent` needs to the last user message of `history`: plan mode's while
/// `agent` is `plan`, the switch-back one when another agent runs right after the plan agent
/// answered.
pub fn remind(
    history: &mut [ChatMessage],
    stored: &[(Message, Vec<Part>)],
    agent: &str,
    plan_file: &Path,
) {
    let reminder = if agent == "plan" {
        plan_reminder(plan_file)
    } else {
        let last_assistant = stored
            .iter()
            .rev()
            .find(|(m, _)| m.role == Role::Assistant)
            .map(|(m, _)| agent_of(m));
        if last_assistant.as_deref() != Some("plan") {
            return;
        }
        build_switch_reminder()
    };
    if let Some(ChatMessage::User { text, .. }) = history
        .iter_mut()
        .rev()
        .find(|m| matches!(m, ChatMessage::User { .. }))
    {
        text.push_str("\n\n");
        text.push_str(&reminder);
    }
}
