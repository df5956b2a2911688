//! One turn of the loop, in named stages: record the prompt ([`Runner::begin`]), run an agent's
//! steps ([`Runner::agent_steps`]): each step tried with retries and compaction
//! ([`Runner::attempt`]) and then settled once its calls ran ([`Runner::settle`]); hand over
//! from `plan` to `build` ([`Runner::hand_over`]), and record how the turn ended
//! ([`Runner::record_end`]).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;
use strata_services::hooks::HookEvent;

use strata_protocol::event::SessionStatus;
use strata_protocol::message::UserMessage;
use strata_protocol::part::{FilePart, TextPart};
use strata_registry::AgentInfo;
use strata_tools::ErasedTool;
use strata_tools::plan_exit::approval_message;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::{RunOutcome, RunReport, Runner, retry_wait, title_of};
use crate::catalogue::ModelSettings;
use crate::doom::DoomGuard;
use crate::events::LoopEvent;
use crate::provider::ToolSpec;
use crate::session::agent_mode::{AFTER_PLAN, PLAN_EXIT};
use crate::session::compact;
use crate::session::error::RunError;
use crate::session::execute::{CallEnd, CallEnv};
use crate::session::history::chat_history;
use crate::session::hooks;
use crate::session::parts::ModelRef;
use crate::session::record::Recorder;
use crate::session::step::{StepEnd, StepEnv, error_name, run_step};
use crate::store::{Role, now_ms};
use strata_tools::invalid::Invalid;

/// What the stages of one turn share.
struct TurnCx<'a> {
    session_id: &'a str,
    rec: &'a Recorder,
    settings: &'a ModelSettings,
    cancel: &'a CancellationToken,
    plan_file: &'a Path,
    /// A child session (`task`): its end runs `SubagentStop` instead of `Stop`.
    subagent: bool,
    /// A `Stop` hook already sent the model back this turn (`stop_hook_active`).
    stop_active: AtomicBool,
}

/// How a step ended for the turn: go on, or stop with an outcome (and whether the user
/// approved a plan, so `build` takes over).
enum Next {
    Step,
    Stop(RunOutcome, bool),
}

impl Runner {
    pub(super) async fn run_turn(
        &self,
        session_id: &str,
        message: &str,
        files: &[FilePart],
        cancel: CancellationToken,
        sink: Option<UnboundedSender<LoopEvent>>,
    ) -> Result<RunReport, RunError> {
        // Checked before anything is stored: a bad setting leaves the session untouched.
        let mut agent = self.agent(&self.options.agent)?;
        let settings = crate::catalogue::settings(
            &self.model.id,
            &self.services.config.provider,
            self.options.variant.as_deref(),
        )?;
        let _live = self
            .services
            .runs
            .register(session_id, self.context(sink.clone()));
        let rec = Recorder::new(self.services.store.clone(), session_id, sink);
        let subagent = self.services.store.session(session_id)?.parent_id.is_some();
        // A `task` child's prompt comes from the model, not the user (as in Claude Code).
        let context = if subagent {
            Vec::new()
        } else {
            match self.prompt_hooks(&rec, message).await? {
                Ok(context) => context,
                Err(reason) => return blocked_prompt(&rec, session_id, reason),
            }
        };
        let plan_file = self.begin(&rec, session_id, message, files, &context)?;
        let _notifier =
            hooks::notify_on_asks(Some(&self.services.hooks), &rec, &self.services.permission);
        let cx = TurnCx {
            session_id,
            rec: &rec,
            settings: &settings,
            cancel: &cancel,
            plan_file: &plan_file,
            subagent,
            stop_active: AtomicBool::new(false),
        };
        let (mut steps, mut text) = (0, String::new());
        let outcome = loop {
            let (outcome, switch) = self.agent_steps(&cx, &agent, &mut steps, &mut text).await?;
            if !switch {
                break outcome;
            }
            self.hand_over(&rec, &plan_file)?;
            agent = self.agent(AFTER_PLAN)?;
        };
        record_end(&rec, &outcome)?;
        Ok(RunReport {
            session_id: session_id.to_string(),
            outcome,
            steps,
            text,
        })
    }

    /// `SessionStart` (once per session and process) and `UserPromptSubmit`: the context
    /// they add to the prompt, or why a hook blocked it.
    async fn prompt_hooks(
        &self,
        rec: &Recorder,
        message: &str,
    ) -> Result<Result<Vec<String>, String>, RunError> {
        let hooks = Some(&self.services.hooks);
        let store = &self.services.store;
        let has_messages = || store.has_messages(rec.session_id()).unwrap_or(false);
        let start = hooks::session_start(hooks, rec, has_messages).await?;
        let fields = json!({"prompt": message});
        let prompt = hooks::fire(hooks, rec, HookEvent::UserPromptSubmit, fields).await?;
        if let Some(reason) = prompt.blocked.or(prompt.stop) {
            return Ok(Err(reason));
        }
        let context = [
            hooks::context_text(HookEvent::SessionStart, &start.context),
            hooks::context_text(HookEvent::UserPromptSubmit, &prompt.context),
        ];
        Ok(Ok(context.into_iter().flatten().collect()))
    }

    /// Records the prompt (titling a new session, making a revert final) with the context
    /// hooks added, and marks the session busy; returns the session's plan file.
    fn begin(
        &self,
        rec: &Recorder,
        session_id: &str,
        message: &str,
        files: &[FilePart],
        context: &[String],
    ) -> Result<PathBuf, RunError> {
        let s = &self.services;
        let session = s.store.session(session_id)?;
        if session.title.is_empty() {
            rec.title(&title_of(message))?;
        }
        // A prompt after a revert makes it final: the taken-back messages leave for good.
        crate::undo::commit_revert(&s.store, session_id)?;
        let sent = UserMessage::new(now_ms(), &self.options.agent)
            .sent_to(self.model.provider.name(), &self.model.api_model);
        let user = rec.message(Role::User, &sent)?;
        rec.part(&user.id, None, &TextPart::user(message).into())?;
        for text in context {
            rec.part(&user.id, None, &TextPart::user(text).into())?;
        }
        for file in files {
            rec.file(&user.id, file)?;
        }
        rec.status(SessionStatus::Busy)?;
        Ok(crate::session::agent_mode::plan_file(&s.info, &session))
    }

    /// Runs `agent`'s steps until the model is done or something stops the turn; `true` beside
    /// the outcome when the user approved a plan.
    async fn agent_steps(
        &self,
        cx: &TurnCx<'_>,
        agent: &AgentInfo,
        steps: &mut u32,
        text: &mut String,
    ) -> Result<(RunOutcome, bool), RunError> {
        let (s, opts) = (&self.services, &self.options);
        let ruleset = self.ruleset(agent)?;
        let spec = self.spec(ruleset.clone());
        let window = crate::session::deferred::context_window(cx.settings);
        let first = self.layout(cx, &spec, window)?;
        let model_ref = self.model_ref();
        let prompt = agent.prompt.as_deref().or(opts.agent_prompt.as_deref());
        let base_system =
            crate::session::prompt::for_run(s, &self.model.id, prompt, &first.tools, &ruleset)
                .await;
        let doom = Mutex::new(DoomGuard::new());
        let invalid = s.registry.get(<Invalid as strata_tools::Tool>::ID);
        // The agent's own budget, within the run's.
        let max_steps = agent
            .steps
            .map_or(opts.max_steps, |n| n.min(opts.max_steps));
        let mut next_layout = Some(first);
        loop {
            if cx.cancel.is_cancelled() {
                return Ok((RunOutcome::Cancelled, false));
            }
            if *steps >= max_steps {
                return Ok((RunOutcome::StepLimit { steps: *steps }, false));
            }
            *steps += 1;
            // Tools loaded in the last step are offered from this one on (spec §24).
            let layout = match next_layout.take() {
                Some(l) => l,
                None => self.layout(cx, &spec, window)?,
            };
            let specs = tool_specs(&layout.tools);
            let system = crate::session::deferred::system_with(&base_system, &layout);
            let call_env = CallEnv {
                recorder: cx.rec,
                surface: &layout.tools,
                deferred: &layout.deferred,
                invalid: invalid.as_ref(),
                permission: &s.permission,
                ruleset: &ruleset,
                agent: &agent.name,
                model: &self.model.api_model,
                plan_file: Some(cx.plan_file),
                continue_on_deny: s.config.experimental.continue_loop_on_deny,
                doom: &doom,
                early_calls: opts.early_calls,
                cancel: cx.cancel,
                hooks: Some(&s.hooks),
            };
            let step_env = self.step_env(cx, agent, &model_ref, &system, &specs, &call_env);
            let step_span = crate::session::spans::step(cx.session_id, *steps);
            let end = self.attempt(cx, &step_env, agent, &step_span).await?;
            if let Next::Stop(outcome, switch) = self.settle(cx, end, text, step_span).await? {
                let done = outcome == RunOutcome::Completed && !switch;
                if done && self.stop_hooks(cx, &agent.name).await? {
                    continue;
                }
                return Ok((outcome, switch));
            }
        }
    }

    /// This step's tools: the surface split into loaded and deferred, with the tools the
    /// session loaded so far (read from its stored results) appended.
    fn layout(
        &self,
        cx: &TurnCx<'_>,
        spec: &strata_registry::SurfaceSpec,
        window: u64,
    ) -> Result<strata_registry::Layout, RunError> {
        let deferral = strata_registry::Deferral {
            context_window: window,
            loaded: crate::session::deferred::loaded_in(&self.services.store, cx.session_id)?,
        };
        Ok(self.services.registry.layout(spec, &deferral))
    }

    /// What one step sends: this model's settings with `system` and `tools`.
    fn step_env<'e>(
        &'e self,
        cx: &TurnCx<'e>,
        agent: &AgentInfo,
        model: &'e ModelRef,
        system: &'e str,
        tools: &'e [ToolSpec],
        calls: &'e CallEnv<'e>,
    ) -> StepEnv<'e> {
        StepEnv {
            provider: self.model.provider.as_ref(),
            model,
            system,
            tools,
            calls,
            max_tokens: cx.settings.max_tokens,
            reasoning: &cx.settings.reasoning,
            temperature: agent.temperature,
            interleaved: self.interleaved(cx.settings),
            no_cache: cx.settings.no_cache,
        }
    }

    /// Sends one step until it finishes or fails for good: a context overflow compacts and
    /// sends it again once; a retryable failure waits and retries within the budget.
    async fn attempt<'e>(
        &self,
        cx: &TurnCx<'_>,
        env: &StepEnv<'e>,
        agent: &AgentInfo,
        step_span: &tracing::Span,
    ) -> Result<StepEnd<'e>, RunError> {
        let (s, opts) = (&self.services, &self.options);
        let mut attempt = 0;
        let (mut overflow, mut compacted_on_overflow) = (false, false);
        loop {
            let small = opts.small_model.as_ref();
            if let Some(e) = compact::before_step(env, cx.settings, overflow, small).await? {
                return Ok(StepEnd::Broken(e));
            }
            overflow = false;
            if let Some(shells) = &s.background {
                crate::session::background::deliver(shells, cx.rec, &agent.name)?;
            }
            let stored = compact::tail::conversation(&s.store, cx.session_id)?;
            let mut history = chat_history(&stored);
            crate::session::agent_mode::remind(&mut history, &stored, &agent.name, cx.plan_file);
            let will_retry = attempt < opts.max_retries;
            let end = run_step(env, history, will_retry)
                .instrument(step_span.clone())
                .await?;
            match &end {
                // Too long for the model: compact and send the step again, once.
                StepEnd::Broken(e) if e.is_context_overflow() && !compacted_on_overflow => {
                    (overflow, compacted_on_overflow) = (true, true);
                }
                StepEnd::Broken(e) if will_retry && e.retryable() && !cx.cancel.is_cancelled() => {
                    attempt += 1;
                    let wait = retry_wait(opts.retry_delay, attempt, e.retry_after());
                    cx.rec.status(SessionStatus::Retry {
                        attempt,
                        message: e.to_string(),
                        wait_ms: u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                    })?;
                    tokio::select! {
                        () = s.clock.sleep(wait) => {}
                        () = cx.cancel.cancelled() => {}
                    }
                }
                _ => return Ok(end),
            }
        }
    }

    /// Finishes a step the model ended: runs out its calls, records its message, and says
    /// whether the turn goes on.
    async fn settle(
        &self,
        cx: &TurnCx<'_>,
        end: StepEnd<'_>,
        text: &mut String,
        step_span: tracing::Span,
    ) -> Result<Next, RunError> {
        let (message, reason, usage, calls, step_text) = match end {
            StepEnd::Broken(e)
                if cx.cancel.is_cancelled() || e == crate::provider::ProviderError::Cancelled =>
            {
                return Ok(Next::Stop(RunOutcome::Cancelled, false));
            }
            StepEnd::Broken(e) => {
                cx.rec.error(error_name(&e), &e.to_string())?;
                let error = e.to_string();
                return Ok(Next::Stop(RunOutcome::Failed { error }, false));
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
            *text = step_text;
        }
        let results = calls.finish().instrument(step_span).await?;
        let cost = cx.settings.cost(&usage.unwrap_or_default());
        message.finish(cx.rec, &reason, usage, cost)?;
        let stop = |outcome| Ok(Next::Stop(outcome, false));
        if cx.cancel.is_cancelled() || results.iter().any(|r| r.end == CallEnd::Cancelled) {
            return stop(RunOutcome::Cancelled);
        }
        if let Some(halt) = results.iter().find(|r| r.end == CallEnd::Halted) {
            let reason = halt.output.clone();
            return stop(RunOutcome::Stopped { reason });
        }
        if results.is_empty() {
            return stop(RunOutcome::Completed);
        }
        let approved = |r: &&crate::session::execute::CallOutcome| {
            r.name == PLAN_EXIT && r.end == CallEnd::Completed
        };
        if results.iter().any(|r| approved(&r)) {
            return Ok(Next::Stop(RunOutcome::Completed, true));
        }
        Ok(Next::Step)
    }

    /// `Stop` (or `SubagentStop`) when the model is done: `true` when a hook blocked, and
    /// the loop goes on with its reason as a new message. The next run of the hooks this turn
    /// gets `stop_hook_active: true`, so a hook can let the model finish.
    async fn stop_hooks(&self, cx: &TurnCx<'_>, agent: &str) -> Result<bool, RunError> {
        let event = if cx.subagent {
            HookEvent::SubagentStop
        } else {
            HookEvent::Stop
        };
        let fields = json!({"stop_hook_active": cx.stop_active.load(Ordering::Relaxed)});
        let verdict = hooks::fire(Some(&self.services.hooks), cx.rec, event, fields).await?;
        let Some(reason) = verdict.blocked.filter(|_| verdict.stop.is_none()) else {
            return Ok(false);
        };
        cx.stop_active.store(true, Ordering::Relaxed);
        let next = cx
            .rec
            .message(Role::User, &UserMessage::new(now_ms(), agent))?;
        let text = TextPart::user(&hooks::stop_blocked_text(event, &reason));
        cx.rec.part(&next.id, None, &text.into())?;
        Ok(true)
    }

    /// The user approved the plan: a message naming it, for the build agent that takes over.
    fn hand_over(&self, rec: &Recorder, plan_file: &Path) -> Result<(), RunError> {
        let shown = strata_services::fs::relative_to(&self.services.info.worktree, plan_file);
        let next = rec.message(Role::User, &UserMessage::new(now_ms(), AFTER_PLAN))?;
        let text = TextPart::user(&approval_message(&shown));
        rec.part(&next.id, None, &text.into())?;
        Ok(())
    }
}

/// The tools as the model sees them.
pub(crate) fn tool_specs(surface: &[ErasedTool]) -> Vec<ToolSpec> {
    surface
        .iter()
        .map(|t| ToolSpec {
            name: t.id.to_string(),
            description: t.description.clone(),
            parameters: (*t.schema).clone(),
        })
        .collect()
}

/// The report of a turn whose prompt a `UserPromptSubmit` hook blocked: nothing of the prompt
/// is stored; the reason is recorded as the session's error, for the user to see.
fn blocked_prompt(rec: &Recorder, session_id: &str, reason: String) -> Result<RunReport, RunError> {
    let reason =
        format!("A UserPromptSubmit hook blocked this prompt, so it was not sent: {reason}");
    rec.error("PromptBlockedError", &reason)?;
    rec.status(SessionStatus::Idle)?;
    Ok(RunReport {
        session_id: session_id.to_string(),
        outcome: RunOutcome::Stopped { reason },
        steps: 0,
        text: String::new(),
    })
}

/// Records why a turn that did not complete ended, and marks the session idle.
fn record_end(rec: &Recorder, outcome: &RunOutcome) -> Result<(), RunError> {
    match outcome {
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
    Ok(())
}
