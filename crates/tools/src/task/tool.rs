//! The `task` tool itself: ask, prepare the child through [`Subagents`], announce it, run it,
//! and wrap its last text in a `<task>` block.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, json};
use strata_services::permission::{Action, Rule, evaluate};
use strata_services::subagents::{SubagentError, SubagentInfo, SubagentRequest, Subagents};

use crate::contract::{Ask, Effects, Tool, ToolCx, ToolError, ToolResult};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TaskParams {
    /// A short label for the task, three to five words.
    pub description: String,
    /// Everything the subagent needs to do the task, and what it should report back.
    pub prompt: String,
    /// Which subagent runs the task: one of those listed in this tool's description.
    pub subagent_type: String,
    /// The id from an earlier task's result: continue that subagent session instead of
    /// starting a new one.
    #[serde(default)]
    pub task_id: Option<String>,
    /// The slash command that led to this task, if any (for the record only).
    #[serde(default)]
    pub command: Option<String>,
    /// Background subagents are an experiment that is off: not advertised, refused when set.
    #[serde(default)]
    #[schemars(skip)]
    pub background: Option<bool>,
}

#[derive(Debug)]
pub struct TaskTool {
    subagents: Subagents,
}

/// The description: the tool's text, then one line per subagent the caller may start.
pub fn describe(agents: &[SubagentInfo], rules: &[Rule]) -> String {
    let mut text = include_str!("description.md").trim_end().to_string();
    text.push_str("\n\nSubagents you can start (`subagent_type`: what it is for):\n");
    let mut listed: Vec<&SubagentInfo> = agents
        .iter()
        .filter(|a| evaluate("task", &a.name, &[rules]).action != Action::Deny)
        .collect();
    listed.sort_by(|a, b| a.name.cmp(&b.name));
    if listed.is_empty() {
        text.push_str("(none)\n");
    }
    for a in listed {
        let what = a
            .description
            .as_deref()
            .unwrap_or("No description: meant to be started by the user, not by you.");
        text.push_str(&format!("- {}: {what}\n", a.name));
    }
    text
}

/// The block the model gets back: `state` is `completed` (with `<task_result>`) or `error`
/// (with `<task_error>`).
pub fn result_block(session_id: &str, outcome: Result<&str, &str>) -> String {
    let (state, tag, body) = match outcome {
        Ok(text) => ("completed", "task_result", text),
        Err(error) => ("error", "task_error", error),
    };
    format!("<task id=\"{session_id}\" state=\"{state}\">\n<{tag}>\n{body}\n</{tag}>\n</task>")
}

impl Tool for TaskTool {
    const ID: &'static str = "task";
    // Children run side by side: several task calls in one step start at once.
    const EFFECTS: Effects = Effects {
        read_only: false,
        destructive: false,
        concurrency_safe: true,
        open_world: false,
    };
    type Params = TaskParams;
    type Deps = (Subagents,);

    fn init((subagents,): Self::Deps) -> Self {
        TaskTool { subagents }
    }

    fn description(&self) -> String {
        describe(&self.subagents.agents(), &[])
    }

    fn description_for(&self, rules: &[Rule]) -> Option<String> {
        Some(describe(&self.subagents.agents(), rules))
    }

    async fn execute(&self, p: TaskParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        if p.background == Some(true) {
            return Err(ToolError::model(
                "Background subagents are turned off here, so `background` must be left out or \
                 false. Call `task` again without it and wait for the result.",
            ));
        }
        cx.ask(
            Ask::new(
                Self::PERMISSION,
                vec![p.subagent_type.clone()],
                vec!["*".into()],
            )
            .metadata(json!({"description": p.description, "subagent_type": p.subagent_type})),
        )
        .await?;
        let child = self
            .subagents
            .prepare(SubagentRequest {
                parent_session_id: cx.session_id.clone(),
                caller_agent: cx.agent.clone(),
                description: p.description.clone(),
                subagent_type: p.subagent_type.clone(),
                task_id: p.task_id.clone().filter(|id| !id.is_empty()),
            })
            .map_err(|e| ToolError::model(e.to_string()))?;
        let mut meta = Map::new();
        meta.insert("parentSessionId".into(), json!(child.parent_session_id));
        meta.insert("sessionId".into(), json!(child.session_id));
        meta.insert("model".into(), json!(child.model));
        // Announced before the child runs, so front-ends can link to its session at once.
        cx.metadata(Some(p.description.clone()), meta.clone());
        let ran = self
            .subagents
            .run(child.clone(), p.prompt, cx.abort.child_token())
            .await;
        match ran {
            Ok(text) => {
                let mut result =
                    ToolResult::new(p.description, result_block(&child.session_id, Ok(&text)));
                for (k, v) in meta {
                    result = result.meta(&k, v);
                }
                Ok(result)
            }
            Err(SubagentError::Cancelled { .. }) if cx.abort.is_cancelled() => {
                Err(ToolError::Cancelled)
            }
            Err(e) => Err(ToolError::model(result_block(
                &child.session_id,
                Err(&e.to_string()),
            ))),
        }
    }
}
