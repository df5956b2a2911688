//! Compaction: keeping a long session inside the model's context window.
//!
//! When the last step's usage comes near the window ([`ModelInfo::compact_at`]), or the
//! provider refuses a request as too long, the loop compacts before the next request:
//! 1. [`prune`]: old large tool outputs are marked `time.compacted`; later histories send a
//!    short note in their place (the stored output stays, so exports still show it);
//! 2. [`compact`]: the model (the config's `small_model` when set) is asked, under our own prompt (`summary_prompt.md`), for a
//!    summary of the conversation so far, stored as a `compaction` part in a new assistant
//!    message marked `summary`;
//! 3. [`chat_history`](super::history::chat_history) then starts from that summary
//!    (`resume.md`) and goes on with the messages after it.
//!
//! Nothing is deleted from the store.

use strata_protocol::message::{AssistantMessage, ErrorInfo};
use strata_protocol::part::{CompactionPart, PartData, TextTime};
use strata_protocol::tool::ToolState;
use strata_services::hooks::HookEvent;

mod manual;
pub mod summary;
pub mod tail;

pub use summary::{PRUNED_OUTPUT, is_retried, last_summary, resume_text};

use super::history::chat_history;
use super::parts::ModelRef;
use super::small_model::SmallModel;
use super::step::StepEnv;
use crate::catalogue::{ModelInfo, ModelSettings};
use crate::provider::{ChatMessage, ChatRequest, Provider, ProviderError, Reasoning, collect};
use crate::store::{Message, Part, Role, StoreError, now_ms};

/// The request for a summary, sent as the last user message.
pub const SUMMARY_PROMPT: &str = include_str!("summary_prompt.md");

/// Outputs smaller than this many estimated tokens are not worth pruning.
const MIN_PRUNE_TOKENS: u64 = 50;

/// A rough token count of a text: four bytes a token (the registry's deferral counts so too).
fn estimate(text: &str) -> u64 {
    strata_registry::deferred::estimate_tokens(text.len())
}

/// The messages after the last compaction (all of them when there was none).
fn since_summary(messages: &[(Message, Vec<Part>)]) -> &[(Message, Vec<Part>)] {
    match last_summary(messages) {
        Some((at, _)) => &messages[at + 1..],
        None => messages,
    }
}

/// The input size at which to compact: the model's, else (its window unknown) that of a
/// conservative window, so a long session with an unlisted model compacts before it overflows.
fn compact_limit(info: Option<&ModelInfo>) -> Option<u64> {
    info.and_then(ModelInfo::compact_at).or_else(|| {
        ModelInfo {
            context: crate::provider::resolve::UNKNOWN_MODEL_CONTEXT,
            output: 8_192,
            ..ModelInfo::default()
        }
        .compact_at()
    })
}

/// Whether the next request should follow a compaction: the last finished step since the last
/// compaction used, with the tool outputs it added (estimated), enough of the window.
pub fn due(messages: &[(Message, Vec<Part>)], info: Option<&ModelInfo>) -> bool {
    let Some(limit) = compact_limit(info) else {
        return false;
    };
    let last = since_summary(messages).iter().rev().find_map(|(m, parts)| {
        let data = AssistantMessage::from_value(&m.data).ok()?;
        (m.role == Role::Assistant && data.finish.is_some() && !data.summary)
            .then_some((data.tokens, parts))
    });
    let Some((t, parts)) = last else {
        return false;
    };
    let added: u64 = parts
        .iter()
        .filter_map(|p| match PartData::of(p) {
            Some(PartData::Tool(tool)) => Some(match &tool.state {
                ToolState::Completed(done) => estimate(&done.output),
                ToolState::Error(failed) => estimate(&failed.error),
                _ => 0,
            }),
            _ => None,
        })
        .sum();
    t.input + t.cache.read + t.cache.write + t.output + t.reasoning + added >= limit
}

/// Marks old large tool outputs (since the last compaction) as compacted: the newest outputs,
/// up to a quarter of the compaction threshold (at most 40k tokens), are kept. Returns how
/// many outputs were pruned.
pub fn prune(
    env: &StepEnv<'_>,
    messages: &[(Message, Vec<Part>)],
    info: Option<&ModelInfo>,
) -> Result<usize, StoreError> {
    let protect = compact_limit(info).map_or(40_000, |at| (at / 4).min(40_000));
    let mut kept = 0;
    let mut pruned = 0;
    let now = now_ms();
    for (message, parts) in since_summary(messages).iter().rev() {
        for part in parts.iter().rev() {
            let Some(PartData::Tool(mut tool)) = PartData::of(part) else {
                continue;
            };
            let ToolState::Completed(done) = &mut tool.state else {
                continue;
            };
            if done.time.compacted.is_some() {
                continue;
            }
            let size = estimate(&done.output);
            if kept + size <= protect {
                kept += size;
                continue;
            }
            if size < MIN_PRUNE_TOKENS {
                continue;
            }
            done.time.compacted = Some(now);
            env.recorder()
                .part(&message.id, Some(&part.id), &PartData::Tool(tool))?;
            pruned += 1;
        }
    }
    Ok(pruned)
}

/// Why a compaction runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger<'a> {
    /// The loop's own: the last step came near the window, or (`overflow`) the provider
    /// refused the last request as too long.
    Auto { overflow: bool },
    /// The user asked for it, with these instructions for the summary (may be empty).
    Manual { instructions: &'a str },
}

/// The request for a summary: our prompt, and the user's instructions when they gave some.
fn summary_request(trigger: Trigger<'_>) -> String {
    match trigger {
        Trigger::Manual { instructions } if !instructions.trim().is_empty() => format!(
            "{}\n\nThe user asked for this summary and wants it to follow these instructions:\n{}",
            SUMMARY_PROMPT.trim_end(),
            instructions.trim()
        ),
        _ => SUMMARY_PROMPT.trim_end().to_string(),
    }
}

/// Prunes, then asks the model (`small` when given) for a summary of the session so far and
/// stores it. The provider's error, if the summary request failed, is returned inside `Ok`.
pub async fn compact(
    env: &StepEnv<'_>,
    settings: &ModelSettings,
    trigger: Trigger<'_>,
    small: Option<&SmallModel>,
) -> Result<Result<(), ProviderError>, StoreError> {
    let rec = env.recorder();
    let messages = tail::conversation(rec.store(), rec.session_id())?;
    prune(env, &messages, settings.info.as_ref())?;
    let messages = tail::conversation(rec.store(), rec.session_id())?;
    let mut history = chat_history(&messages);
    history.push(ChatMessage::user(summary_request(trigger)));

    let summariser = Summariser::new(env, settings, small);
    let started = now_ms();
    let mut data = AssistantMessage::new(
        started,
        env.agent(),
        &summariser.model.provider_id,
        &summariser.model.model_id,
    );
    data.summary = true;
    let message = rec.message(Role::Assistant, &data)?;
    let mut part = CompactionPart {
        auto: matches!(trigger, Trigger::Auto { .. }),
        overflow: trigger == Trigger::Auto { overflow: true },
        summary: String::new(),
        time: TextTime {
            start: started,
            end: None,
        },
    };
    let stored = rec.part(&message.id, None, &part.clone().into())?;

    // Tools are offered (Anthropic wants them declared when the history holds calls), but the
    // prompt asks for text only and any call is ignored.
    let request = summariser.request(env, history);
    let cancel = env.cancel().child_token();
    let result = tokio::select! {
        r = async {
            let events = summariser.provider.stream(request, cancel.clone()).await?;
            collect(events).await
        } => r,
        () = env.cancel().cancelled() => Err(ProviderError::Cancelled),
    };
    data.time.completed = Some(now_ms());
    match result {
        Ok(done) if !done.text.trim().is_empty() => {
            let usage = done.usage.unwrap_or_default();
            data.tokens = super::parts::tokens(Some(usage));
            data.cost = summariser.settings.cost(&usage);
            data.finish = done.finish.as_ref().map(super::parts::finish_reason);
            part.summary = done.text.trim().to_string();
            part.time.end = data.time.completed;
            rec.part(&message.id, Some(&stored.id), &part.into())?;
            rec.update_message(&message.id, &data)?;
            Ok(Ok(()))
        }
        other => {
            let error = match other {
                Err(e) => e,
                Ok(_) => ProviderError::Decode {
                    url: summariser.provider.base_url().to_string(),
                    detail: "the model answered the summary request with no text".into(),
                },
            };
            let name = super::step::error_name(&error);
            data.error = Some(ErrorInfo::new(name, &format!("Compaction failed: {error}")));
            rec.update_message(&message.id, &data)?;
            Ok(Err(error))
        }
    }
}

/// The model a summary request goes to: the small model when there is one, else the step's.
struct Summariser<'a> {
    provider: &'a dyn Provider,
    model: ModelRef,
    settings: &'a ModelSettings,
    small: bool,
}

impl<'a> Summariser<'a> {
    fn new(env: &StepEnv<'a>, settings: &'a ModelSettings, small: Option<&'a SmallModel>) -> Self {
        match small {
            Some(s) => Summariser {
                provider: s.model.provider.as_ref(),
                model: ModelRef {
                    provider_id: s.model.provider.name().to_string(),
                    model_id: s.model.api_model.clone(),
                },
                settings: &s.settings,
                small: true,
            },
            None => Summariser {
                provider: env.provider,
                model: env.model.clone(),
                settings,
                small: false,
            },
        }
    }

    /// The step's request (same system prompt and tools) for this model; the agent's
    /// temperature is for the agent's model, so the small model gets its default.
    fn request(&self, env: &StepEnv<'_>, history: Vec<ChatMessage>) -> ChatRequest {
        let mut request = env.request(history, Reasoning::default());
        if self.small {
            request.model = self.model.model_id.clone();
            request.max_tokens = self.settings.max_tokens;
            request.temperature = None;
        }
        request
    }
}

/// Runs before each model request: compacts when `overflow` (the provider refused the last
/// request as too long) or when the last step came near the window. Returns the provider's
/// error when the summary request failed. `small` writes the summary when given.
pub async fn before_step(
    env: &StepEnv<'_>,
    settings: &ModelSettings,
    overflow: bool,
    small: Option<&SmallModel>,
) -> Result<Option<ProviderError>, StoreError> {
    let rec = env.recorder();
    let messages = tail::conversation(rec.store(), rec.session_id())?;
    if !overflow && !due(&messages, settings.info.as_ref()) {
        return Ok(None);
    }
    let hooks = env.calls.hooks;
    let fields = serde_json::json!({"trigger": "auto", "custom_instructions": ""});
    super::hooks::fire(hooks, rec, HookEvent::PreCompact, fields).await?;
    let trigger = Trigger::Auto { overflow };
    Ok(compact(env, settings, trigger, small).await?.err())
}

#[cfg(test)]
mod tests;
