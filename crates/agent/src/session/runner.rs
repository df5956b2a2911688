//! `Runner`: the agent loop. Call the model ([`step`](super::step)), run the calls it made
//! ([`schedule`](super::schedule) + [`execute`](super::execute)), send the results back, and
//! repeat until the model stops, the step budget is spent, a refusal stops the turn, or the
//! user cancels. A step whose stream breaks is retried (a new assistant message) when the error
//! is retryable.

use std::time::Duration;

use strata_protocol::part::FilePart;
use strata_registry::AgentInfo;
use strata_registry::SurfaceSpec;
use strata_registry::rules::ruleset_of;
use strata_services::permission::Ruleset;
use strata_tools::ErasedTool;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::error::RunError;
pub use super::model::Model;
use super::services::LoopServices;
use super::small_model::SmallModel;
use crate::catalogue::ModelSettings;

mod turn;
use crate::events::LoopEvent;
pub(crate) use turn::tool_specs;

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

    /// The model as steps and parts name it: provider and API model id.
    pub(crate) fn model_ref(&self) -> super::parts::ModelRef {
        super::parts::ModelRef {
            provider_id: self.model.provider.name().to_string(),
            model_id: self.model.api_model.clone(),
        }
    }

    /// Whether (and how) the model takes reasoning back between steps: the run's own choice
    /// (tests), else the catalogue's word for the model.
    pub(crate) fn interleaved<'a>(&'a self, settings: &'a ModelSettings) -> Option<&'a str> {
        let info = settings.info.as_ref();
        (self.options.interleaved.as_deref()).or(info.and_then(|i| i.interleaved.as_deref()))
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
        self.services.registry.surface(&self.spec(ruleset))
    }

    /// What decides this runner's surface under `ruleset`.
    pub(super) fn spec(&self, ruleset: Ruleset) -> SurfaceSpec {
        let s = &self.services;
        SurfaceSpec {
            model: self.model.id.clone(),
            plan_mode: false,
            ruleset,
            flags: s.flags.enabled(),
            backends: s.registry.configured_backends(&s.config, &s.flags),
        }
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
        self.run_with(session_id, message, &[], cancel, sink).await
    }

    /// [`run`](Self::run) with `files` the user attached (images, PDFs as `data:` URLs),
    /// stored with the prompt and sent to the model after its text.
    pub async fn run_with(
        &self,
        session_id: &str,
        message: &str,
        files: &[FilePart],
        cancel: CancellationToken,
        sink: Option<UnboundedSender<LoopEvent>>,
    ) -> Result<RunReport, RunError> {
        let store = &self.services.store;
        crate::recover::recover_session(store, session_id)?;
        let _owner = crate::owned::RunGuard::begin(store, session_id)?;
        let span = super::spans::turn(session_id, &self.options.agent, &self.model.id);
        let report = self
            .run_turn(session_id, message, files, cancel, sink)
            .instrument(span)
            .await;
        log_end(session_id, &self.model.id, &report);
        report
    }
}

impl Runner {
    /// The session is over for this process (the front-end exits): runs the `SessionEnd`
    /// hooks with `reason` and records them. A hook never stops anything here either.
    pub async fn end_session(&self, session_id: &str, reason: &str) -> Result<(), RunError> {
        let s = &self.services;
        super::hooks::session_end(&s.hooks, &s.store, session_id, reason).await?;
        Ok(())
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

/// One log line per finished run, for the log file.
fn log_end(session_id: &str, model: &str, report: &Result<RunReport, RunError>) {
    match report {
        Ok(r) => tracing::info!(
            session.id = %session_id,
            model = %model,
            steps = r.steps,
            outcome = ?r.outcome,
            "run ended"
        ),
        Err(e) => tracing::info!(session.id = %session_id, model = %model, "run failed: {e}"),
    }
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
