//! `Wire`: what one vendor's streaming chat protocol supplies to the shared provider (path,
//! headers, request body, per-event decoding). Its own module so that the HTTP helpers and the
//! provider both depend on it, not on each other.

use reqwest::header::HeaderMap;
use serde_json::Value;

use super::sse::SseEvent;
use super::stream_state::DecodeState;
use super::{ChatRequest, ProviderError, StreamEvent};

/// One vendor's streaming chat protocol.
pub trait Wire: Send + Sync + 'static {
    /// The provider id used in model ids (`openai`, `anthropic`).
    const NAME: &'static str;
    /// The endpoint, appended to the base URL.
    const PATH: &'static str;

    /// The base URL requests use, from the configured one without its trailing `/`.
    fn base_url(trimmed: &str) -> String {
        trimmed.to_string()
    }

    /// The request headers (the key, when there is one, and any version header).
    fn headers(api_key: Option<&str>) -> Result<HeaderMap, ProviderError>;

    /// The JSON body of a streamed request.
    fn body(req: &ChatRequest) -> Value;

    /// Handles one SSE event: updates `state` (calls, finish reason, usage, end marker) and
    /// appends the neutral events it produced to `out`.
    fn decode(
        ev: SseEvent,
        state: &mut DecodeState,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), ProviderError>;
}
