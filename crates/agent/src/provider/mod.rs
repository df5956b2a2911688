//! Model providers: one neutral interface over the vendors' streaming chat APIs.
//!
//! The loop builds a [`ChatRequest`] (system prompt, conversation, tool specs), calls
//! [`Provider::stream`] and reads [`StreamEvent`]s: text deltas, tool calls as they start and
//! grow, a [`StreamEvent::ToolCallReady`] once a call is complete and its arguments are valid
//! JSON (only then may it run), and a final [`StreamEvent::Finish`]. A stream ends after
//! `Finish` or after its first error; errors say whether a retry may help
//! ([`ProviderError::retryable`]) and, when the stream was cut mid-call, which calls never became
//! ready ([`ProviderError::Interrupted`]) so the loop can mark them failed and retry the step.
//!
//! Implementations: one skeleton, [`StreamingProvider`], over reqwest with a hand-written SSE
//! parser ([`sse`]) and one end-of-stream rule ([`DecodeState::end`]), parameterised by a
//! [`Wire`] (path, headers, body, decoding): [`OpenAiCompatible`] (chat completions),
//! [`OpenAiResponses`] (OpenAI's Responses API) and [`Anthropic`] (Messages). A [`Resolver`]
//! picks one from a model id, the config's providers, the packed models.dev catalogue, the
//! environment and the stored keys ([`Credentials`]).
//!
//! ```ignore
//! let (provider, model) = resolve_provider("openai/gpt-4.1", |k| std::env::var(k).ok(), &providers)?;
//! let req = ChatRequest { model, system, messages, tools, max_tokens: None, reasoning: Reasoning::default(), temperature: None, ..Default::default() };
//! let mut events = provider.stream(req, cancel.clone()).await?;
//! while let Some(event) = events.next().await { match event? { /* … */ } }
//! ```

mod anthropic;
pub mod assembler;
pub mod credentials;
mod error;
#[cfg(test)]
mod fixtures;
mod http;
mod openai;
pub mod resolve;
mod responses;
pub mod sse;
mod stream_state;
mod streaming;
mod types;
mod wire;

use async_trait::async_trait;
use futures::StreamExt;
use futures::stream::BoxStream;
use tokio_util::sync::CancellationToken;

pub use anthropic::{ANTHROPIC_VERSION, Anthropic, AnthropicWire, DEFAULT_MAX_TOKENS};
pub use assembler::ToolCallAssembler;
pub use credentials::Credentials;
pub use error::{ERROR_BODY_LIMIT, ProviderError};
pub use http::build_client;
pub use openai::{OpenAiCompatible, OpenAiWire};
pub use resolve::{
    ANTHROPIC_DEFAULT_BASE_URL, OPENAI_DEFAULT_BASE_URL, Resolved, Resolver, WireKind,
    resolve_provider,
};
pub use responses::{OpenAiResponses, ResponsesWire};
pub use stream_state::{DecodeState, Items};
pub use streaming::StreamingProvider;
pub use types::{
    ChatMessage, ChatRequest, Completion, FinishReason, Media, Reasoning, ReasoningBlock,
    ReasoningItem, StreamEvent, ToolCall, ToolSpec, Usage,
};
pub use wire::Wire;

/// The events of one response; ends after `Finish` or after the first error.
pub type EventStream = BoxStream<'static, Result<StreamEvent, ProviderError>>;

/// A model endpoint that streams chat responses.
#[async_trait]
pub trait Provider: Send + Sync + std::fmt::Debug {
    /// The provider id used in model ids (`openai`, `anthropic`).
    fn name(&self) -> &str;

    /// The base URL requests go to (for logs and error messages).
    fn base_url(&self) -> &str;

    /// Sends `req` and returns its event stream once the response headers arrived. Fails early
    /// on connection errors and non-success statuses. When `cancel` fires, the pending call (or
    /// the next poll of the stream) returns [`ProviderError::Cancelled`] and the connection is
    /// dropped.
    async fn stream(
        &self,
        req: ChatRequest,
        cancel: CancellationToken,
    ) -> Result<EventStream, ProviderError>;
}

/// Drains a stream into one [`Completion`] (text joined, ready calls in order). Useful for
/// titles, summaries and tests; the loop reads events one by one instead.
pub async fn collect(mut events: EventStream) -> Result<Completion, ProviderError> {
    let mut done = Completion::default();
    while let Some(event) = events.next().await {
        match event? {
            StreamEvent::TextDelta(text) => done.text.push_str(&text),
            StreamEvent::ReasoningDelta(text) => done.reasoning.push_str(&text),
            StreamEvent::ToolCallReady(call) => done.tool_calls.push(call),
            StreamEvent::Finish { reason, usage } => {
                done.finish = Some(reason);
                done.usage = usage;
            }
            StreamEvent::ToolCallStarted { .. }
            | StreamEvent::ToolCallDelta { .. }
            | StreamEvent::ReasoningEnd { .. }
            | StreamEvent::RedactedReasoning(_) => {}
        }
    }
    Ok(done)
}
