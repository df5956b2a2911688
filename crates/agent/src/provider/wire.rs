//! `Wire`: what one vendor's streaming chat protocol supplies to the shared provider (path,
//! headers, request body, per-event decoding). Its own module so that the HTTP helpers and the
//! provider both depend on it, not on each other; only its default headers come from the HTTP
//! helpers.

use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;

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

/// The headers of OpenAI's APIs (chat completions and Responses): the key, when there is one,
/// as a bearer token.
pub(crate) fn bearer_headers(api_key: Option<&str>) -> Result<HeaderMap, ProviderError> {
    let mut headers = HeaderMap::new();
    if let Some(key) = api_key {
        let value = key_header(&format!("Bearer {key}"), "OPENAI_API_KEY")?;
        headers.insert(reqwest::header::AUTHORIZATION, value);
    }
    Ok(headers)
}

/// An API key as a header value; a key with characters headers cannot carry is a config error
/// naming the variable it came from.
pub(crate) fn key_header(value: &str, env: &str) -> Result<HeaderValue, ProviderError> {
    HeaderValue::from_str(value).map_err(|_| ProviderError::Config {
        model: String::new(),
        detail: format!(
            "the API key contains characters not allowed in an HTTP header; check {env}"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_headers_cannot_carry_names_its_variable() {
        assert_eq!(key_header("sk-1", "X_KEY").unwrap(), "sk-1");
        let err = key_header("sk-1\nsecret", "OPENAI_API_KEY").unwrap_err();
        assert!(
            matches!(&err, ProviderError::Config { detail, .. } if detail.contains("OPENAI_API_KEY")),
            "{err}"
        );
        assert!(
            !err.to_string().contains("secret"),
            "the key itself is not shown: {err}"
        );
    }
}
