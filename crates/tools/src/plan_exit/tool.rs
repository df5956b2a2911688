//! The tool itself: one Yes/No question through the Question service.

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use strata_services::instance::InstanceInfo;
use strata_services::question::{Question, QuestionInfo, QuestionOption};

use crate::contract::{Effects, Tool, ToolCx, ToolError, ToolResult};
use crate::question::ask;

/// No parameters.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PlanExitParams {}

/// The option that approves the switch.
pub const YES: &str = "Yes";
const NO: &str = "No";

#[derive(Debug)]
pub struct PlanExit {
    question: Question,
    info: InstanceInfo,
}

/// The question put to the user about the plan at `shown` (a worktree-relative path).
pub fn question_for(shown: &str) -> QuestionInfo {
    QuestionInfo {
        question: format!(
            "The plan in {shown} is ready. Should the build agent take over and start \
             implementing it?"
        ),
        header: "Build agent".into(),
        options: vec![
            QuestionOption {
                label: YES.into(),
                description: "Switch to the build agent and implement the plan".into(),
            },
            QuestionOption {
                label: NO.into(),
                description: "Stay in plan mode and keep refining the plan".into(),
            },
        ],
        multiple: Some(false),
        custom: None,
    }
}

/// The user message that hands an approved plan to the build agent.
pub fn approval_message(shown: &str) -> String {
    format!("The plan in {shown} is approved. Editing files is allowed now: carry out the plan.")
}

/// `path` relative to the worktree with `/` separators, or as it is when outside.
fn shown(path: &Path, worktree: &Path) -> String {
    match path.strip_prefix(worktree) {
        Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
        Err(_) => path.display().to_string(),
    }
}

impl Tool for PlanExit {
    const ID: &'static str = "plan_exit";
    const EFFECTS: Effects = Effects {
        read_only: false,
        destructive: false,
        concurrency_safe: false,
        open_world: false,
    };
    type Params = PlanExitParams;
    type Deps = (Question, InstanceInfo);

    fn init((question, info): Self::Deps) -> Self {
        PlanExit { question, info }
    }

    fn description(&self) -> String {
        include_str!("description.md").to_string()
    }

    async fn execute(&self, _: PlanExitParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        let Some(plan) = &cx.plan_file else {
            return Err(ToolError::model(
                "There is no plan file for this session, so there is nothing to approve. \
                 `plan_exit` works only in plan mode.",
            ));
        };
        let shown = shown(plan, &self.info.worktree);
        let answers = ask(&self.question, &cx, vec![question_for(&shown)]).await?;
        let answer = answers.first().cloned().unwrap_or_default();
        if answer.iter().any(|a| a == YES) {
            return Ok(ToolResult::new(
                "Switching to the build agent",
                "The user approved the switch to the build agent. Stop here and wait for \
                 further instructions.",
            ));
        }
        let said: Vec<&str> = answer
            .iter()
            .map(String::as_str)
            .filter(|a| *a != NO && !a.trim().is_empty())
            .collect();
        let mut message = "The user chose to stay in plan mode and keep working on the plan \
                           rather than switch to the build agent."
            .to_string();
        if !said.is_empty() {
            message.push_str(&format!(" They said: {}", said.join(", ")));
        }
        Err(ToolError::Dismissed(message))
    }
}
