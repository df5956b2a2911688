//! One step: a new assistant message, one model request, and its stream turned into stored
//! parts through the [`StepAccumulator`]. Each call is handed to the step's [`InFlight`] as
//! soon as its arguments are complete, so concurrency-safe calls run while the rest of the
//! response still streams. The step ends with those calls (for the runner to finish), or with
//! the error that broke it; in that case the calls already running are waited for and every
//! other call of the step is marked failed (none of them runs), so a retry starts clean.

use futures::StreamExt;
use serde_json::{Map, Value, json};
use strata_protocol::part::{ReasoningPart, TextPart, TextTime};
use strata_protocol::tool::ToolPart;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::accumulate::{Change, StepAccumulator};
use super::execute::CallEnv;
use super::history::reasoning_metadata;
use super::inflight::InFlight;
use super::parts::{self, ModelRef};
use super::record::Recorder;
use super::step_message::StepMessage;
use crate::provider::{
    ChatMessage, ChatRequest, FinishReason, Provider, ProviderError, Reasoning, ToolSpec, Usage,
};
use crate::store::{StoreError, now_ms};

/// What a step needs to call the model.
#[derive(Debug)]
pub struct StepEnv<'a> {
    pub provider: &'a dyn Provider,
    pub model: &'a ModelRef,
    pub system: &'a str,
    pub tools: &'a [ToolSpec],
    /// `max_tokens` and reasoning settings for this model (see [`crate::catalogue::settings`]).
    pub max_tokens: Option<u32>,
    pub reasoning: &'a Reasoning,
    /// The agent's sampling temperature, if it sets one.
    pub temperature: Option<f64>,
    /// The field reasoning goes back in with tool calls, for models that need it
    /// ([`ChatRequest::interleaved`]).
    pub interleaved: Option<&'a str>,
    /// Prompt caching turned off for this model (see [`ChatRequest::no_cache`]).
    pub no_cache: bool,
    /// Where the step's calls run; the turn's recorder, agent and cancellation are its.
    pub calls: &'a CallEnv<'a>,
}

impl<'a> StepEnv<'a> {
    /// Where the turn's changes are recorded.
    pub fn recorder(&self) -> &'a Recorder {
        self.calls.recorder
    }

    /// The agent running the turn.
    pub fn agent(&self) -> &'a str {
        self.calls.agent
    }

    /// The turn's cancellation.
    pub fn cancel(&self) -> &'a CancellationToken {
        self.calls.cancel
    }
}

impl StepEnv<'_> {
    /// A request for this model with the step's system prompt and tools. The session id is
    /// the prompt-cache key, so every step of the session shares one cache; with caching off
    /// neither the key nor any breakpoint is sent (the flag tells every wire).
    pub(crate) fn request(&self, messages: Vec<ChatMessage>, reasoning: Reasoning) -> ChatRequest {
        ChatRequest {
            model: self.model.model_id.clone(),
            system: self.system.to_string(),
            messages,
            tools: self.tools.to_vec(),
            max_tokens: self.max_tokens,
            reasoning,
            temperature: self.temperature,
            interleaved: self.interleaved.map(str::to_string),
            cache_key: (!self.no_cache).then(|| self.recorder().session_id().to_string()),
            no_cache: self.no_cache,
        }
    }
}

/// How the model's response ended.
#[derive(Debug)]
pub enum StepEnd<'a> {
    Finished {
        /// The step's message, for the runner to finish after the tools ran.
        message: StepMessage,
        reason: FinishReason,
        usage: Option<Usage>,
        /// The step's calls, some perhaps already running or done: the runner finishes them.
        calls: Box<InFlight<'a>>,
        text: String,
    },
    /// The request or its stream failed (or was cancelled); the message is marked failed.
    Broken(ProviderError),
}

/// The opencode-style name of a provider failure.
pub fn error_name(e: &ProviderError) -> &'static str {
    match e {
        ProviderError::Http { .. } | ProviderError::Api { .. } => "APIError",
        ProviderError::Connect { .. } => "ConnectionError",
        ProviderError::Interrupted { .. } => "StreamInterruptedError",
        ProviderError::Decode { .. } => "DecodeError",
        ProviderError::Cancelled => "MessageAbortedError",
        ProviderError::Config { .. } => "ProviderConfigError",
    }
}

/// Runs one step. `will_retry` says whether a retryable failure will be retried, in which case
/// the message is marked `retried` and left out of later histories.
pub async fn run_step<'a>(
    env: &StepEnv<'a>,
    history: Vec<ChatMessage>,
    will_retry: bool,
) -> Result<StepEnd<'a>, StoreError> {
    let rec = env.recorder();
    let message = StepMessage::open(rec, env.agent(), env.model)?;
    let mut driver = Driver {
        rec,
        message_id: message.id().to_string(),
        acc: StepAccumulator::new(),
        text_part: None,
        reasoning_part: None,
        calls: InFlight::new(env.calls, message.id()),
    };
    let request = env.request(history, env.reasoning.clone());
    let result = stream(env, request, &mut driver)
        .instrument(super::spans::model_request(
            env.recorder().session_id(),
            env.model,
        ))
        .await?;
    Ok(match result {
        Ok((reason, usage)) => StepEnd::Finished {
            message,
            reason,
            usage,
            text: driver.acc.text(),
            calls: Box::new(driver.calls),
        },
        Err(error) => {
            driver.break_off(&error).await?;
            let retried = will_retry && error.retryable() && !env.cancel().is_cancelled();
            let error = if env.cancel().is_cancelled() {
                ProviderError::Cancelled
            } else {
                error
            };
            message.fail(rec, error_name(&error), &error.to_string(), retried)?;
            StepEnd::Broken(error)
        }
    })
}

type Streamed = Result<(FinishReason, Option<Usage>), ProviderError>;

/// What the stream loop woke up for.
enum Woke<E> {
    Event(Option<E>),
    CallDone(Result<(), StoreError>),
    Cancelled,
}

async fn stream(
    env: &StepEnv<'_>,
    request: ChatRequest,
    driver: &mut Driver<'_>,
) -> Result<Streamed, StoreError> {
    let cancel = env.cancel();
    let opened = tokio::select! {
        opened = env.provider.stream(request, cancel.child_token()) => opened,
        () = cancel.cancelled() => Err(ProviderError::Cancelled),
    };
    let mut events = match opened {
        Ok(events) => events,
        Err(e) => return Ok(Err(e)),
    };
    loop {
        // Calls already started make progress while the stream waits for its next event.
        let woke = tokio::select! {
            next = events.next() => Woke::Event(next),
            Some(done) = driver.calls.next_done() => Woke::CallDone(done),
            () = cancel.cancelled() => Woke::Cancelled,
        };
        let next = match woke {
            Woke::Event(next) => next,
            Woke::CallDone(done) => {
                done?;
                continue;
            }
            Woke::Cancelled => return Ok(Err(ProviderError::Cancelled)),
        };
        let event = match next {
            Some(Ok(event)) => event,
            Some(Err(e)) => return Ok(Err(e)),
            None => {
                return Ok(Err(ProviderError::Interrupted {
                    url: env.provider.base_url().to_string(),
                    call_ids: driver.unfinished_ids(),
                    detail: "the event stream ended without a finish event".into(),
                }));
            }
        };
        for change in driver.acc.push(event) {
            if let Some(done) = driver.apply(change)? {
                return Ok(Ok(done));
            }
        }
    }
}

fn reasoning_part(
    text: &str,
    start: i64,
    end: Option<i64>,
    metadata: Option<Map<String, Value>>,
) -> ReasoningPart {
    ReasoningPart {
        text: text.to_string(),
        metadata,
        time: TextTime { start, end },
    }
}

/// Applies accumulator changes to the store.
struct Driver<'a> {
    rec: &'a Recorder,
    message_id: String,
    acc: StepAccumulator,
    /// The open text part: `(id, start)`.
    text_part: Option<(String, i64)>,
    /// The open reasoning part: `(id, start)`.
    reasoning_part: Option<(String, i64)>,
    calls: InFlight<'a>,
}

impl Driver<'_> {
    fn apply(
        &mut self,
        change: Change,
    ) -> Result<Option<(FinishReason, Option<Usage>)>, StoreError> {
        let rec = self.rec;
        match change {
            Change::TextOpened => {
                let start = now_ms();
                let text = TextPart::assistant("", start, None);
                let part = rec.part(&self.message_id, None, &text.into())?;
                self.text_part = Some((part.id, start));
            }
            Change::TextDelta(delta) => {
                if let Some((id, _)) = &self.text_part {
                    rec.text_delta(&self.message_id, id, &delta);
                }
            }
            Change::TextClosed(text) => {
                if let Some((id, start)) = self.text_part.take() {
                    let text = TextPart::assistant(&text, start, Some(now_ms()));
                    rec.part(&self.message_id, Some(&id), &text.into())?;
                }
            }
            Change::ReasoningOpened => {
                let start = now_ms();
                let part = rec.part(
                    &self.message_id,
                    None,
                    &reasoning_part("", start, None, None).into(),
                )?;
                self.reasoning_part = Some((part.id, start));
            }
            Change::ReasoningClosed {
                text,
                signature,
                redacted,
                item,
            } => {
                if let Some((id, start)) = self.reasoning_part.take() {
                    let meta = reasoning_metadata(signature, redacted, item);
                    let part = reasoning_part(&text, start, Some(now_ms()), meta);
                    rec.part(&self.message_id, Some(&id), &part.into())?;
                }
            }
            Change::CallStarted { id, name } => {
                let pending = ToolPart::pending(&id, &name, "");
                let part = rec.part(&self.message_id, None, &pending.into())?;
                self.acc.set_part(&id, part.id);
            }
            Change::CallReady(call) => {
                if let Some(part_id) = self.acc.part_of(&call.id).map(str::to_string) {
                    let pending = ToolPart::pending(&call.id, &call.name, &call.arguments);
                    rec.part(&self.message_id, Some(&part_id), &pending.into())?;
                    self.calls.offer(&call, &part_id)?;
                }
            }
            Change::Finished { reason, usage } => return Ok(Some((reason, usage))),
        }
        Ok(None)
    }

    fn unfinished_ids(&self) -> Vec<String> {
        self.acc
            .unfinished_calls()
            .into_iter()
            .map(|(id, _, _)| id)
            .collect()
    }

    /// The response broke off: store the text so far, let the calls already running end, and
    /// fail every other call of the step.
    async fn break_off(&mut self, error: &ProviderError) -> Result<(), StoreError> {
        if let Some(change) = self.acc.close_reasoning() {
            self.apply(change)?;
        }
        if let Some(change) = self.acc.close_text() {
            self.apply(change)?;
        }
        self.calls.settle().await?;
        let now = now_ms();
        let cancelled = matches!(error, ProviderError::Cancelled);
        let ready = self.acc.ready_with_parts();
        for (call, part_id) in ready
            .into_iter()
            .filter(|(c, _)| !self.calls.handled(&c.id))
        {
            let input: Value = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
            let why = if cancelled {
                super::execute::CANCELLED
            } else {
                "Not run: the model's response broke off before it was complete."
            };
            let state = parts::failed(&input, (now, now), why, None);
            let part = ToolPart::with(&call.id, &call.name, state);
            self.rec
                .part(&self.message_id, Some(&part_id), &part.into())?;
        }
        for (id, name, raw) in self.acc.unfinished_calls() {
            let Some(part_id) = self.acc.part_of(&id).map(str::to_string) else {
                continue;
            };
            let mut meta = Map::new();
            meta.insert("raw".into(), json!(raw));
            let why = "Not run: the model's response broke off while this call's arguments were still arriving.";
            let state = parts::failed(&json!({}), (now, now), why, Some(meta));
            let part = ToolPart::with(&id, &name, state);
            self.rec
                .part(&self.message_id, Some(&part_id), &part.into())?;
        }
        Ok(())
    }
}
