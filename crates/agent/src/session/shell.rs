//! A command the user runs in a session without the model (the shell request of opencode's
//! clients): a user message saying so, then an assistant message holding one `bash` call that
//! goes through the normal tool path — the agent's and the session's permission rules, the
//! tool's wrapper, every state of the part stored with its event. The model is not called;
//! the call and its output are in the conversation the next prompt sends.

use std::sync::Mutex;

use serde_json::json;
use strata_protocol::event::SessionStatus;
use strata_protocol::message::UserMessage;
use strata_protocol::part::TextPart;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use super::error::RunError;
use super::execute::{CallEnd, CallEnv, CallOutcome, execute, prepare};
use super::parts::ModelRef;
use super::record::Recorder;
use super::runner::{RunOutcome, RunReport, Runner};
use super::step_message::StepMessage;
use crate::doom::DoomGuard;
use crate::events::LoopEvent;
use crate::provider::{FinishReason, ToolCall};
use crate::store::{Role, now_ms};

/// The tool a shell request runs.
pub const SHELL_TOOL: &str = <strata_tools::bash::Bash as strata_tools::Tool>::ID;

/// What the user message of a shell request says (the model reads it with the call).
fn announcement(command: &str) -> String {
    format!("I ran this command myself; its call and output follow:\n{command}")
}

impl Runner {
    /// Runs `command` in session `session_id` as the user's own `bash` call; the report's text
    /// is the call's output. What a killed earlier run left is closed first, as for a turn.
    /// Without a `bash` tool the outcome is `Failed` and nothing is recorded.
    pub async fn shell(
        &self,
        session_id: &str,
        command: &str,
        cancel: CancellationToken,
        sink: Option<UnboundedSender<LoopEvent>>,
    ) -> Result<RunReport, RunError> {
        let s = &self.services;
        let agent = self.agent(&self.options.agent)?;
        let ruleset = self.ruleset(&agent)?;
        let Some(bash) = s.registry.get(SHELL_TOOL) else {
            return Ok(unavailable(session_id));
        };
        crate::recover::recover_session(&s.store, session_id)?;
        let _owner = crate::owned::RunGuard::begin(&s.store, session_id)?;
        let model = &self.model;
        let model_ref = self.model_ref();
        let rec = Recorder::new(s.store.clone(), session_id, sink);
        let user_id = announce(&rec, &agent.name, &model_ref, command)?;
        rec.status(SessionStatus::Busy)?;

        let step = StepMessage::open(&rec, &agent.name, &model_ref)?;
        let surface = [bash];
        let doom = Mutex::new(DoomGuard::new());
        let env = CallEnv {
            recorder: &rec,
            surface: &surface,
            deferred: &[],
            invalid: None,
            permission: &s.permission,
            ruleset: &ruleset,
            agent: &agent.name,
            model: &model.api_model,
            plan_file: None,
            continue_on_deny: false,
            doom: &doom,
            early_calls: false,
            cancel: &cancel,
            hooks: None,
        };
        let result = run_call(&env, &step, &user_id, command).await?;
        step.finish(&rec, &FinishReason::Stop, None, 0.0)?;
        let outcome = outcome_of(&rec, &result)?;
        rec.status(SessionStatus::Idle)?;
        Ok(RunReport {
            session_id: session_id.to_string(),
            outcome,
            steps: 0,
            text: result.output,
        })
    }
}

/// The report of a shell request in a project without the `bash` tool; nothing is recorded,
/// as there is nothing to show for it.
fn unavailable(session_id: &str) -> RunReport {
    RunReport {
        session_id: session_id.to_string(),
        outcome: RunOutcome::Failed {
            error: format!(
                "the `{SHELL_TOOL}` tool is not available in this project, so the command \
                 cannot be run"
            ),
        },
        steps: 0,
        text: String::new(),
    }
}

/// Records the user message saying the user ran `command`; returns its id.
fn announce(
    rec: &Recorder,
    agent: &str,
    model: &ModelRef,
    command: &str,
) -> Result<String, RunError> {
    let user = UserMessage::new(now_ms(), agent).sent_to(&model.provider_id, &model.model_id);
    let user = rec.message(Role::User, &user)?;
    rec.part(
        &user.id,
        None,
        &TextPart::user(&announcement(command)).into(),
    )?;
    Ok(user.id)
}

/// The `bash` call in the step message, through the normal tool path.
async fn run_call(
    env: &CallEnv<'_>,
    step: &StepMessage,
    user_id: &str,
    command: &str,
) -> Result<CallOutcome, RunError> {
    let call = ToolCall {
        id: format!("shell_{user_id}"),
        name: SHELL_TOOL.into(),
        arguments: json!({"command": command}).to_string(),
        meta: None,
    };
    let pending = prepare(env, step.id(), "", &call);
    let part = env
        .recorder
        .part(step.id(), None, &pending.part.clone().into())?;
    let prepared = super::execute::Prepared {
        part_id: part.id,
        ..pending
    };
    Ok(execute(env, prepared).await?)
}

/// How the request ended, recording the error a cancelled command leaves.
fn outcome_of(rec: &Recorder, result: &CallOutcome) -> Result<RunOutcome, RunError> {
    Ok(match result.end {
        CallEnd::Cancelled => {
            rec.error(
                "MessageAbortedError",
                "The command was cancelled by the user.",
            )?;
            RunOutcome::Cancelled
        }
        CallEnd::Halted => RunOutcome::Stopped {
            reason: result.output.clone(),
        },
        CallEnd::Completed | CallEnd::Failed => RunOutcome::Completed,
    })
}
