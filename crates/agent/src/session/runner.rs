//! `Runner`: the agent loop. Call the model ([`step`](super::step)), run the calls it made
//! ([`schedule`](super::schedule) + [`execute`](super::execute)), send the results back, and
//! repeat until the model stops, the step budget is spent, a refusal stops the turn, or the
//! user cancels. A step whose stream breaks is retried (a new assistant message) when the error
//! is retryable.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use strata_protocol::event::SessionStatus;
use strata_protocol::message::UserMessage;
use strata_protocol::part::TextPart;
use strata_registry::AgentInfo;
use strata_registry::SurfaceSpec;
use strata_registry::rules::ruleset_of;
use strata_services::permission::Ruleset;
use strata_tools::ErasedTool;
use strata_tools::plan_exit::approval_message;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::agent_mode::{AFTER_PLAN, PLAN_EXIT};
use super::compact;
use super::execute::{CallEnd, CallEnv};
use super::history::chat_history;
use super::parts::ModelRef;
use super::record::Recorder;
use super::small_model::SmallModel;
use super::step::{StepEnd, StepEnv, error_name, run_step};
use super::{LoopServices, RunError};
use crate::doom::DoomGuard;
use crate::events::LoopEvent;
use crate::provider::{Provider, ToolSpec};
use crate::store::{Role, now_ms};

/// How a run behaves.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The agent whose rules apply (`build`).
    pub agent: String,
    /// Most model steps in one run.
    pub max_steps: u32,
    /// Retries of a step whose request or stream failed with a retryable error.
    pub max_retries: u32,
    /// Wait before retry `n` is `n × retry_delay`, or what the server asked for when longer
    /// (at most [`MAX_SERVER_WAIT`]).
    pub retry_delay: Duration,
    /// Rules of this run, after the agent's (spec §0.5): e.g. a run with no one to answer
    /// questions denies `question` (see `strata_registry::rules::non_interactive_rules`).
    pub session_rules: Ruleset,
    /// The reasoning variant (`low`, `medium`, `high`, … or one from the config), see
    /// [`crate::catalogue::settings`].
    pub variant: Option<String>,
    /// Start concurrency-safe calls while the response still streams (see `schedule`).
    pub early_calls: bool,
    /// The agent's own system prompt, replacing the base prompt (see `prompt::assemble`);
    /// the chosen agent's prompt wins when it has one.
    pub agent_prompt: Option<String>,
    /// The assistant-message field the model's reasoning is sent back in with its tool calls
    /// (`reasoning_content`, `reasoning_details`), for models that need it back
    /// ([`ChatRequest::interleaved`](crate::provider::ChatRequest::interleaved)); `None` sends
    /// none, and the catalogue's word for the model applies.
    pub interleaved: Option<String>,
    /// The config's `small_model`, which writes compaction summaries in place of the run's
    /// model (see [`super::small_model::resolve`]); children started by `task` inherit it.
    pub small_model: Option<SmallModel>,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            agent: "build".into(),
            max_steps: 50,
            max_retries: 2,
            retry_delay: Duration::from_millis(500),
            session_rules: Ruleset::new(),
            variant: None,
            early_calls: true,
            agent_prompt: None,
            interleaved: None,
            small_model: None,
        }
    }
}

/// The model a run talks to.
#[derive(Debug, Clone)]
pub struct Model {
    /// `provider/model`, as the user named it (decides the tool surface).
    pub id: String,
    /// The model id sent to the API.
    pub api_model: String,
    pub provider: Arc<dyn Provider>,
}

impl Model {
    /// The model `id` as the resolver made it ready.
    pub fn resolved(id: impl Into<String>, resolved: crate::provider::Resolved) -> Self {
        Self {
            id: id.into(),
            api_model: resolved.api_model,
            provider: Arc::from(resolved.provider),
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RunOutcome {
    /// The model answered without asking for more tool calls.
    Completed,
    /// The step budget ran out while the model still wanted tools.
    StepLimit { steps: u32 },
    /// A refused permission or a fatal tool error ended the turn; `reason` is its message.
    Stopped { reason: String },
    /// The user cancelled.
    Cancelled,
    /// The model request failed (after retries).
    Failed { error: String },
}

/// A finished run.
#[derive(Debug, Clone)]
pub struct RunReport {
    pub session_id: String,
    pub outcome: RunOutcome,
    /// Model steps taken (retries not counted).
    pub steps: u32,
    /// The assistant's last text.
    pub text: String,
}

/// The agent loop over one instance's services and one model.
#[derive(Debug)]
pub struct Runner {
    pub(super) services: LoopServices,
    pub(super) model: Model,
    pub(super) options: RunOptions,
}

impl Runner {
    pub fn new(services: LoopServices, model: Model, options: RunOptions) -> Self {
        Self {
            services,
            model,
            options,
        }
    }

    /// The tools advertised to this runner's model, in registration order.
    pub fn surface(&self) -> Result<Vec<ErasedTool>, RunError> {
        let agent = self.agent(&self.options.agent)?;
        Ok(self.surface_with(self.ruleset(&agent)?))
    }

    /// The agent named `name`, or a usage error listing the agents there are.
    pub(super) fn agent(&self, name: &str) -> Result<AgentInfo, RunError> {
        Ok(self.services.agents.lookup(name)?.clone())
    }

    fn surface_with(&self, ruleset: Ruleset) -> Vec<ErasedTool> {
        let s = &self.services;
        let spec = SurfaceSpec {
            model: self.model.id.clone(),
            plan_mode: false,
            ruleset,
            flags: s.flags.enabled(),
            backends: s.registry.configured_backends(&s.config, &s.flags),
        };
        s.registry.surface(&spec)
    }

    /// What a child started from this run runs with.
    fn context(&self, sink: Option<UnboundedSender<LoopEvent>>) -> crate::subagents::RunContext {
        crate::subagents::RunContext {
            services: self.services.clone(),
            model: self.model.clone(),
            options: self.options.clone(),
            sink,
        }
    }

    /// The effective rules of this run: the agent's, then the session's; a run computes them
    /// once.
    pub(super) fn ruleset(&self, agent: &AgentInfo) -> Result<Ruleset, RunError> {
        let s = &self.services;
        let mut rules = ruleset_of(agent, &s.config, &s.flags, &s.skills)?;
        rules.extend(self.options.session_rules.iter().cloned());
        Ok(rules)
    }

    /// Adds `message` to session `session_id` and runs the loop until it ends. Every change
    /// is stored with its event and forwarded to `sink`. What a killed earlier run left in the
    /// session is closed first, and this process is recorded as the run's owner meanwhile.
    pub async fn run(
        &self,
        session_id: &str,
        message: &str,
        cancel: CancellationToken,
        sink: Option<UnboundedSender<LoopEvent>>,
    ) -> Result<RunReport, RunError> {
        let store = &self.services.store;
        crate::recover::recover_session(store, session_id)?;
        let _owner = crate::owned::RunGuard::begin(store, session_id)?;
        let span = super::spans::turn(session_id, &self.options.agent, &self.model.id);
        let report = self
            .run_turn(session_id, message, cancel, sink)
            .instrument(span)
            .await;
        super::spans::log_end(session_id, &self.model.id, &report);
        report
    }

    async fn run_turn(
        &self,
        session_id: &str,
        message: &str,
        cancel: CancellationToken,
        sink: Option<UnboundedSender<LoopEvent>>,
    ) -> Result<RunReport, RunError> {
        let s = &self.services;
        let opts = &self.options;
        // Checked before anything is stored: a bad setting leaves the session untouched.
        let mut agent = self.agent(&opts.agent)?;
        let settings = crate::catalogue::settings(
            &self.model.id,
            &s.config.provider,
            opts.variant.as_deref(),
        )?;
        let _live = s.runs.register(session_id, self.context(sink.clone()));
        let rec = Recorder::new(s.store.clone(), session_id, sink);
        let session = s.store.session(session_id)?;
        if session.title.is_empty() {
            rec.title(&title_of(message))?;
        }
        // A prompt after a revert makes it final: the taken-back messages leave for good.
        crate::undo::commit_revert(&s.store, session_id)?;
        let now = now_ms();
        let sent = UserMessage::new(now, &opts.agent)
            .sent_to(self.model.provider.name(), &self.model.api_model);
        let user = rec.message(Role::User, &sent)?;
        rec.part(&user.id, None, &TextPart::user(message).into())?;
        rec.status(SessionStatus::Busy)?;

        let plan_file = super::agent_mode::plan_file(&s.info, &session);
        let mut steps = 0;
        let mut text = String::new();
        let outcome = 'agents: loop {
            let ruleset = self.ruleset(&agent)?;
            let surface = self.surface_with(ruleset.clone());
            let specs: Vec<ToolSpec> = surface
                .iter()
                .map(|t| ToolSpec {
                    name: t.id.to_string(),
                    description: t.description.clone(),
                    parameters: (*t.schema).clone(),
                })
                .collect();
            let model_ref = ModelRef {
                provider_id: self.model.provider.name().to_string(),
                model_id: self.model.api_model.clone(),
            };
            let system = super::prompt::for_run(
                s,
                &self.model.id,
                agent.prompt.as_deref().or(opts.agent_prompt.as_deref()),
                &surface,
                &ruleset,
            )
            .await;
            let doom = Mutex::new(DoomGuard::new());
            let invalid = s.registry.get("invalid");
            let call_env = CallEnv {
                recorder: &rec,
                surface: &surface,
                invalid: invalid.as_ref(),
                permission: &s.permission,
                ruleset: &ruleset,
                agent: &agent.name,
                model: &self.model.api_model,
                plan_file: Some(&plan_file),
                continue_on_deny: s.config.experimental.continue_loop_on_deny,
                doom: &doom,
                early_calls: opts.early_calls,
                cancel: &cancel,
            };
            let step_env = StepEnv {
                recorder: &rec,
                provider: self.model.provider.as_ref(),
                model: &model_ref,
                agent: &agent.name,
                system: &system,
                tools: &specs,
                cancel: &cancel,
                calls: &call_env,
                max_tokens: settings.max_tokens,
                reasoning: &settings.reasoning,
                temperature: agent.temperature,
                // The run's own choice (tests), else the catalogue's word for the model.
                interleaved: opts.interleaved.as_deref().or(settings
                    .info
                    .as_ref()
                    .and_then(|i| i.interleaved.as_deref())),
                no_cache: settings.no_cache,
            };
            // The agent's own budget, within the run's.
            let max_steps = agent
                .steps
                .map_or(opts.max_steps, |n| n.min(opts.max_steps));
            let mut switch = false;
            let outcome = loop {
                if cancel.is_cancelled() {
                    break RunOutcome::Cancelled;
                }
                if steps >= max_steps {
                    break RunOutcome::StepLimit { steps };
                }
                steps += 1;
                let step_span = super::spans::step(session_id, steps);
                let mut attempt = 0;
                let (mut overflow, mut compacted_on_overflow) = (false, false);
                let end = loop {
                    if let Some(e) = compact::before_step(
                        &step_env,
                        &settings,
                        overflow,
                        opts.small_model.as_ref(),
                    )
                    .await?
                    {
                        break StepEnd::Broken(e);
                    }
                    overflow = false;
                    let stored = crate::undo::conversation(&s.store, session_id)?;
                    let mut history = chat_history(&stored);
                    super::agent_mode::remind(&mut history, &stored, &agent.name, &plan_file);
                    let will_retry = attempt < opts.max_retries;
                    let end = run_step(&step_env, history, will_retry)
                        .instrument(step_span.clone())
                        .await?;
                    match &end {
                        // Too long for the model: compact and send the step again, once.
                        StepEnd::Broken(e) if e.is_context_overflow() && !compacted_on_overflow => {
                            (overflow, compacted_on_overflow) = (true, true);
                        }
                        StepEnd::Broken(e)
                            if will_retry && e.retryable() && !cancel.is_cancelled() =>
                        {
                            attempt += 1;
                            let wait = retry_wait(opts.retry_delay, attempt, e.retry_after());
                            rec.status(SessionStatus::Retry {
                                attempt,
                                message: e.to_string(),
                                wait_ms: u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                            })?;
                            tokio::select! {
                                () = s.clock.sleep(wait) => {}
                                () = cancel.cancelled() => {}
                            }
                        }
                        _ => break end,
                    }
                };
                let (message, reason, usage, calls, step_text) = match end {
                    StepEnd::Broken(e)
                        if cancel.is_cancelled()
                            || e == crate::provider::ProviderError::Cancelled =>
                    {
                        break RunOutcome::Cancelled;
                    }
                    StepEnd::Broken(e) => {
                        rec.error(error_name(&e), &e.to_string())?;
                        break RunOutcome::Failed {
                            error: e.to_string(),
                        };
                    }
                    StepEnd::Finished {
                        message,
                        reason,
                        usage,
                        calls,
                        text,
                    } => (message, reason, usage, calls, text),
                };
                if !step_text.is_empty() {
                    text = step_text;
                }
                let results = calls.finish().instrument(step_span).await?;
                let cost = settings.cost(&usage.unwrap_or_default());
                message.finish(&rec, &reason, usage, cost)?;
                if cancel.is_cancelled() || results.iter().any(|r| r.end == CallEnd::Cancelled) {
                    break RunOutcome::Cancelled;
                }
                if let Some(halt) = results.iter().find(|r| r.end == CallEnd::Halted) {
                    break RunOutcome::Stopped {
                        reason: halt.output.clone(),
                    };
                }
                if results.is_empty() {
                    break RunOutcome::Completed;
                }
                if results
                    .iter()
                    .any(|r| r.name == PLAN_EXIT && r.end == CallEnd::Completed)
                {
                    switch = true;
                    break RunOutcome::Completed;
                }
            };
            if !switch {
                break 'agents outcome;
            }
            // The user approved the plan: the build agent takes over with a message naming it.
            let shown = strata_services::fs::relative_to(&s.info.worktree, &plan_file);
            let next = rec.message(Role::User, &UserMessage::new(now_ms(), AFTER_PLAN))?;
            rec.part(
                &next.id,
                None,
                &TextPart::user(&approval_message(&shown)).into(),
            )?;
            agent = self.agent(AFTER_PLAN)?;
        };
        match &outcome {
            RunOutcome::Cancelled => {
                rec.error("MessageAbortedError", "The run was cancelled by the user.")?;
            }
            RunOutcome::StepLimit { steps } => {
                let msg = format!(
                    "The run stopped after {steps} steps while the model still wanted to call tools. \
                     Continue it with --continue, or allow more with --max-steps."
                );
                rec.error("StepLimitError", &msg)?;
            }
            _ => {}
        }
        rec.status(SessionStatus::Idle)?;
        Ok(RunReport {
            session_id: session_id.to_string(),
            outcome,
            steps,
            text,
        })
    }
}

/// The longest wait a server's `Retry-After` may impose before a retry.
pub const MAX_SERVER_WAIT: Duration = Duration::from_secs(60);

/// The wait before retry `attempt`: `attempt × delay`, or the server's wish when longer.
fn retry_wait(delay: Duration, attempt: u32, asked: Option<Duration>) -> Duration {
    let own = delay * attempt;
    asked.map_or(own, |a| own.max(a.min(MAX_SERVER_WAIT)))
}

/// A session title from the first line of the first message.
fn title_of(message: &str) -> String {
    let line = message
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let mut title: String = line.chars().take(80).collect();
    if line.chars().count() > 80 {
        title.push('…');
    }
    title
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_may_lengthen_the_wait_up_to_a_minute() {
        let d = Duration::from_millis(500);
        assert_eq!(retry_wait(d, 2, None), Duration::from_secs(1));
        assert_eq!(
            retry_wait(d, 1, Some(Duration::from_secs(20))),
            Duration::from_secs(20)
        );
        assert_eq!(
            retry_wait(d, 3, Some(Duration::from_millis(100))),
            Duration::from_millis(1500)
        );
        assert_eq!(
            retry_wait(d, 1, Some(Duration::from_secs(3600))),
            MAX_SERVER_WAIT
        );
    }
}
