//! `Wire`: what one vendor's streaming chat protocol supplies to the shared provider (path,
//! headers, request body, per-event decoding). Its own module so that the HTTP helpers and the
//! provider both depend on it, not on each other; only its default headers come from the HTTP
//! helpers.

use reqwest::header::HeaderMap;
use serde_json::Value;

use super::http::bearer_headers;
use super::sse::SseEvent;
use super::stream_state::DecodeState;
use super::{ChatRequest, ProviderError, StreamEvent};

/// Builds the JSON body of a streamed request.
pub(super) type BodyFn = fn(&ChatRequest) -> Value;

/// Handles one SSE event whose data is not blank: updates the state (calls, finish reason,
/// usage, end marker) and appends the neutral events it produced.
pub(super) type DecodeFn =
    fn(SseEvent, &mut DecodeState, &mut Vec<StreamEvent>) -> Result<(), ProviderError>;

/// One vendor's streaming chat protocol.
pub trait Wire: Send + Sync + 'static {
    /// The provider id used in model ids (`openai`, `anthropic`).
    const NAME: &'static str;
    /// The endpoint, appended to the base URL.
    const PATH: &'static str;
    /// The JSON body of a streamed request.
    const BODY: BodyFn;
    /// The protocol's own event decoding (see [`Wire::decode`] for what it is spared).
    const DECODE: DecodeFn;

    /// The base URL requests use, from the configured one without its trailing `/`.
    fn base_url(trimmed: &str) -> String {
        trimmed.to_string()
    }

    /// The request headers (the key, when there is one, and any version header); by default
    /// the key as a bearer token, as OpenAI's APIs take it.
    fn headers(api_key: Option<&str>) -> Result<HeaderMap, ProviderError> {
        bearer_headers(api_key)
    }

    /// Handles one SSE event: events with blank data (keep-alives, bare comments) change
    /// nothing, the others go to [`Wire::DECODE`].
    fn decode(
        ev: SseEvent,
        state: &mut DecodeState,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), ProviderError> {
        if ev.data.trim().is_empty() {
            return Ok(());
        }
        (Self::DECODE)(ev, state, out)
    }
}
