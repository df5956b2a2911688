//! Compaction the user asks for (opencode's `POST /session/:id/summarize`, Claude Code's
//! `/compact`): the `PreCompact` hooks run with `trigger: "manual"` and the user's
//! instructions, then the session is summarised as the loop does near the window, under the
//! same system prompt and tools the next step would send.

use std::sync::Mutex;

use serde_json::json;
use strata_protocol::event::SessionStatus;
use strata_services::hooks::HookEvent;
use strata_tools::invalid::Invalid;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use super::{Trigger, compact};
use crate::catalogue::ModelSettings;
use crate::doom::DoomGuard;
use crate::events::LoopEvent;
use crate::provider::ProviderError;
use crate::session::error::RunError;
use crate::session::execute::CallEnv;
use crate::session::record::Recorder;
use crate::session::runner::{RunOutcome, RunReport, Runner};
use crate::session::step::{StepEnv, error_name};
use strata_registry::AgentInfo;
use strata_services::permission::Ruleset;

impl Runner {
    /// Summarises session `session_id` now, whatever its size. `instructions` (may be empty)
    /// are added to the summary request and given to the `PreCompact` hooks as
    /// `custom_instructions`. What a killed earlier run left is closed first, as for a turn.
    /// A failed summary request is the report's `Failed` outcome and the session's error.
    pub async fn summarize(
        &self,
        session_id: &str,
        instructions: &str,
        cancel: CancellationToken,
        sink: Option<UnboundedSender<LoopEvent>>,
    ) -> Result<RunReport, RunError> {
        let s = &self.services;
        let agent = self.agent(&self.options.agent)?;
        let settings = crate::catalogue::settings(
            &self.model.id,
            &s.config.provider,
            self.options.variant.as_deref(),
        )?;
        let ruleset = self.ruleset(&agent)?;
        crate::recover::recover_session(&s.store, session_id)?;
        let _owner = crate::owned::RunGuard::begin(&s.store, session_id)?;
        let rec = Recorder::new(s.store.clone(), session_id, sink);
        rec.status(SessionStatus::Busy)?;
        let fields = json!({"trigger": "manual", "custom_instructions": instructions});
        crate::session::hooks::fire(Some(&s.hooks), &rec, HookEvent::PreCompact, fields).await?;

        let summary = self
            .summary(&rec, &agent, &settings, &ruleset, instructions, &cancel)
            .await?;
        let outcome = match summary {
            Ok(()) => RunOutcome::Completed,
            Err(ProviderError::Cancelled) => RunOutcome::Cancelled,
            Err(e) => {
                rec.error(error_name(&e), &format!("Compaction failed: {e}"))?;
                RunOutcome::Failed {
                    error: e.to_string(),
                }
            }
        };
        rec.status(SessionStatus::Idle)?;
        Ok(RunReport {
            session_id: session_id.to_string(),
            outcome,
            steps: 0,
            text: String::new(),
        })
    }

    /// Builds what the next step would send, so the summary shares its cached prefix, and
    /// asks for the summary under it.
    async fn summary(
        &self,
        rec: &Recorder,
        agent: &AgentInfo,
        settings: &ModelSettings,
        ruleset: &Ruleset,
        instructions: &str,
        cancel: &CancellationToken,
    ) -> Result<Result<(), ProviderError>, RunError> {
        let s = &self.services;
        let deferral = strata_registry::Deferral {
            context_window: crate::session::deferred::context_window(settings),
            loaded: crate::session::deferred::loaded_in(&s.store, rec.session_id())?,
        };
        let layout = s.registry.layout(&self.spec(ruleset.clone()), &deferral);
        let prompt = agent
            .prompt
            .as_deref()
            .or(self.options.agent_prompt.as_deref());
        let base =
            crate::session::prompt::for_run(s, &self.model.id, prompt, &layout.tools, ruleset)
                .await;
        let system = crate::session::deferred::system_with(&base, &layout);
        let tools = crate::session::runner::tool_specs(&layout.tools);
        let model = self.model_ref();
        let doom = Mutex::new(DoomGuard::new());
        let invalid = s.registry.get(<Invalid as strata_tools::Tool>::ID);
        // No call runs here: the summary request's tool calls are ignored.
        let calls = CallEnv {
            recorder: rec,
            surface: &layout.tools,
            deferred: &layout.deferred,
            invalid: invalid.as_ref(),
            permission: &s.permission,
            ruleset,
            agent: &agent.name,
            model: &self.model.api_model,
            plan_file: None,
            continue_on_deny: false,
            doom: &doom,
            early_calls: false,
            cancel,
            hooks: Some(&s.hooks),
        };
        let env = StepEnv {
            provider: self.model.provider.as_ref(),
            model: &model,
            system: &system,
            tools: &tools,
            max_tokens: settings.max_tokens,
            reasoning: &settings.reasoning,
            temperature: agent.temperature,
            interleaved: self.interleaved(settings),
            no_cache: settings.no_cache,
            calls: &calls,
        };
        let trigger = Trigger::Manual { instructions };
        let small = self.options.small_model.as_ref();
        Ok(compact(&env, settings, trigger, small).await?)
    }
}
