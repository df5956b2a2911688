//! `ProviderError`: every way a model request can fail, naming the URL or model involved and
//! saying what to do next. The loop asks [`ProviderError::retryable`] whether to try again.

/// The most bytes of an error response body kept in [`ProviderError::Http`].
pub const ERROR_BODY_LIMIT: usize = 2048;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProviderError {
    /// The endpoint answered with a non-success status.
    #[error("model request to {url} failed with HTTP {status}: {body}{}", status_hint(*.status))]
    Http {
        url: String,
        status: u16,
        /// The first [`ERROR_BODY_LIMIT`] bytes of the response body.
        body: String,
        /// How long the server asked the client to wait (`retry-after-ms` or `retry-after`).
        retry_after: Option<std::time::Duration>,
    },
    /// The endpoint could not be reached (or the client could not be built).
    #[error(
        "could not reach the model endpoint {url}: {detail}; check the base URL and that the server is running"
    )]
    Connect { url: String, detail: String },
    /// The stream stopped before the response finished. `call_ids` are the tool calls that were
    /// started but never became ready: mark them failed and retry the step.
    #[error(
        "the model stream from {url} stopped before the response finished ({detail}){}; retry the step",
        unfinished(call_ids)
    )]
    Interrupted {
        url: String,
        call_ids: Vec<String>,
        detail: String,
    },
    /// The stream carried something that is not the expected wire format.
    #[error("could not decode the model stream from {url}: {detail}")]
    Decode { url: String, detail: String },
    /// The endpoint reported an error inside an otherwise successful stream.
    #[error("the model endpoint {url} reported an error ({kind}): {message}")]
    Api {
        url: String,
        kind: String,
        message: String,
    },
    /// The caller's cancellation token fired.
    #[error("the model request was cancelled")]
    Cancelled,
    /// The model id or provider settings cannot be used; `detail` says what to set.
    #[error("cannot use model `{model}`: {detail}")]
    Config { model: String, detail: String },
}

impl ProviderError {
    /// Whether trying the same request again may succeed: rate limits, server errors, overload
    /// and streams cut short. Bad requests, bad keys and cancellation are not retried.
    pub fn retryable(&self) -> bool {
        match self {
            ProviderError::Http { status, .. } => {
                *status == 408 || *status == 429 || (500..600).contains(status)
            }
            ProviderError::Interrupted { .. } => true,
            ProviderError::Api { kind, .. } => {
                let kind = kind.to_ascii_lowercase();
                [
                    "overloaded",
                    "rate_limit",
                    "server_error",
                    "api_error",
                    "timeout",
                ]
                .iter()
                .any(|k| kind.contains(k))
            }
            ProviderError::Connect { .. }
            | ProviderError::Decode { .. }
            | ProviderError::Cancelled
            | ProviderError::Config { .. } => false,
        }
    }

    /// How long the server asked to wait before trying again, when it said.
    pub fn retry_after(&self) -> Option<std::time::Duration> {
        match self {
            ProviderError::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// Whether the provider refused the request because it does not fit the model's context
    /// window (the loop compacts and tries again).
    pub fn is_context_overflow(&self) -> bool {
        let text = match self {
            ProviderError::Http {
                status: 400 | 413 | 422,
                body,
                ..
            } => body,
            ProviderError::Api { kind, message, .. } => &format!("{kind} {message}"),
            _ => return false,
        };
        let text = text.to_ascii_lowercase();
        [
            "context_length_exceeded",
            "maximum context length",
            "context window",
            "prompt is too long",
            "too many tokens",
            "exceeds the context",
            "input is too long",
            "request too large",
            // Gemini: "The input token count (…) exceeds the maximum number of tokens allowed".
            "exceeds the maximum number of tokens",
            // Mistral: "… too large for model with 131072 maximum context length".
            "too large for model",
            // xAI: "This model's maximum prompt length is …".
            "maximum prompt length",
            // Groq and Cerebras: "Please reduce the length of the messages or completion".
            "reduce the length of the messages",
            // llama.cpp's server: "the request exceeds the available context size".
            "exceeds the available context size",
            // Moonshot: "Invalid request: Your request exceeded model token limit".
            "exceeded model token limit",
            // LM Studio and Ollama.
            "context length",
            "context overflow",
        ]
        .iter()
        .any(|k| text.contains(k))
    }

    /// The tool calls left unfinished by an interrupted stream (empty for other errors).
    pub fn interrupted_call_ids(&self) -> &[String] {
        match self {
            ProviderError::Interrupted { call_ids, .. } => call_ids,
            _ => &[],
        }
    }
}

fn unfinished(call_ids: &[String]) -> String {
    if call_ids.is_empty() {
        String::new()
    } else {
        format!("; unfinished tool calls: {}", call_ids.join(", "))
    }
}

fn status_hint(status: u16) -> &'static str {
    match status {
        401 | 403 => " (check the API key)",
        404 => " (check the base URL and the model id)",
        429 => " (rate limited; retry later)",
        500..=599 => " (server error; retry later)",
        _ => "",
    }
}

/// Cuts `body` to at most [`ERROR_BODY_LIMIT`] bytes on a character boundary.
pub(crate) fn clip_body(body: &str) -> String {
    if body.len() <= ERROR_BODY_LIMIT {
        return body.to_string();
    }
    let mut end = ERROR_BODY_LIMIT;
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &body[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16) -> ProviderError {
        ProviderError::Http {
            url: "http://127.0.0.1:1/v1/chat/completions".into(),
            status,
            body: "nope".into(),
            retry_after: None,
        }
    }

    #[test]
    fn rate_limits_and_server_errors_are_retryable_client_errors_are_not() {
        assert!(http(429).retryable());
        assert!(http(500).retryable());
        assert!(http(503).retryable());
        assert!(!http(400).retryable());
        assert!(!http(401).retryable());
        assert!(!ProviderError::Cancelled.retryable());
        let cut = ProviderError::Interrupted {
            url: "u".into(),
            call_ids: vec!["c1".into()],
            detail: "closed".into(),
        };
        assert!(cut.retryable());
        assert!(
            cut.to_string().contains("unfinished tool calls: c1"),
            "{cut}"
        );
        assert_eq!(cut.interrupted_call_ids(), ["c1".to_string()]);
        let overloaded = ProviderError::Api {
            url: "u".into(),
            kind: "overloaded_error".into(),
            message: "busy".into(),
        };
        assert!(overloaded.retryable());
    }

    #[test]
    fn context_overflow_is_recognised_in_the_vendors_words() {
        let body = |status: u16, body: &str| ProviderError::Http {
            url: "u".into(),
            status,
            body: body.into(),
            retry_after: None,
        };
        assert!(body(400, r#"{"error":{"code":"context_length_exceeded"}}"#).is_context_overflow());
        assert!(
            body(400, r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#)
                .is_context_overflow()
        );
        for vendor in [
            "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
            "Prompt contains 300000 tokens and 0 draft tokens, too large for model with 131072 maximum context length",
            "This model's maximum prompt length is 131072 but the request contains 200000 tokens.",
            "Please reduce the length of the messages or completion.",
            "the request exceeds the available context size, try increasing it",
            "Invalid request: Your request exceeded model token limit: 262144",
        ] {
            assert!(body(400, vendor).is_context_overflow(), "{vendor}");
        }
        assert!(body(422, "maximum context length is 8192").is_context_overflow());
        assert!(!body(400, "bad tool schema").is_context_overflow());
        assert!(!body(500, "context_length_exceeded").is_context_overflow());
        assert!(!http(429).is_context_overflow());
    }

    #[test]
    fn messages_name_the_url_and_give_a_hint() {
        let text = http(401).to_string();
        assert!(text.contains("127.0.0.1:1/v1/chat/completions"), "{text}");
        assert!(text.contains("401") && text.contains("API key"), "{text}");
    }

    #[test]
    fn clip_body_keeps_char_boundaries() {
        let long = "é".repeat(ERROR_BODY_LIMIT);
        let clipped = clip_body(&long);
        assert!(clipped.len() <= ERROR_BODY_LIMIT + '…'.len_utf8());
        assert!(clipped.ends_with('…'));
        assert_eq!(clip_body("short"), "short");
    }
}
