//! Building the typed data the loop stores (the shapes live in `strata-protocol`): finish
//! reasons and token counts in opencode's words, and the states of a tool part as a call moves
//! `pending` → `running` → `completed` or `error`.

use serde_json::{Map, Value};
use strata_protocol::message::Tokens;
use strata_protocol::tool::{Attachment, Completed, Failed, Running, Span, Started, ToolState};
use strata_tools::ToolResult;

use crate::provider::{FinishReason, Usage};

/// The wire name of a finish reason, as in opencode's `step-finish.reason`.
pub fn finish_reason(reason: &FinishReason) -> String {
    match reason {
        FinishReason::Stop => "stop".into(),
        FinishReason::ToolCalls => "tool-calls".into(),
        FinishReason::Length => "length".into(),
        FinishReason::Other(other) => other.clone(),
    }
}

/// Token counts in opencode's shape: output without the reasoning, which is counted apart.
pub fn tokens(usage: Option<Usage>) -> Tokens {
    let u = usage.unwrap_or_default();
    let reasoning = u.reasoning_tokens.min(u.output_tokens);
    let mut t = Tokens::new(u.input_tokens, u.output_tokens - reasoning);
    t.reasoning = reasoning;
    t.cache.read = u.cache_read_tokens;
    t.cache.write = u.cache_write_tokens;
    t
}

/// Who answers in a step: the agent and the model.
#[derive(Debug, Clone)]
pub struct ModelRef {
    /// `openai`, `anthropic`.
    pub provider_id: String,
    /// The API model id.
    pub model_id: String,
}

/// The call is running (optionally with the tool's running title and metadata).
pub fn running(
    input: &Value,
    start: i64,
    title: Option<&str>,
    metadata: Option<&Map<String, Value>>,
) -> ToolState {
    ToolState::Running(Running {
        input: input.clone(),
        time: Started { start },
        title: title.map(str::to_string),
        metadata: metadata.cloned(),
    })
}

/// The call finished with the tool's result.
pub fn completed(input: &Value, (start, end): (i64, i64), result: &ToolResult) -> ToolState {
    ToolState::Completed(Completed {
        input: input.clone(),
        output: result.output.clone(),
        title: result.title.clone(),
        metadata: result.metadata.clone(),
        time: Span::new(start, end),
        attachments: result
            .attachments
            .iter()
            .map(|a| Attachment {
                kind: a.kind.clone(),
                mime: a.mime.clone(),
                url: a.url.clone(),
                filename: a.filename.clone(),
            })
            .collect(),
    })
}

/// The call failed (or never ran) with `error`, which the model is told.
pub fn failed(
    input: &Value,
    (start, end): (i64, i64),
    error: &str,
    metadata: Option<Map<String, Value>>,
) -> ToolState {
    ToolState::Error(Failed {
        input: input.clone(),
        error: error.to_string(),
        time: Span::new(start, end),
        metadata,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use strata_protocol::ToolPart;

    use super::*;

    #[test]
    fn tool_states_have_opencode_fields() {
        let input = json!({"filePath": "a.txt"});
        let result = ToolResult::new("a.txt", "x");
        let done = ToolPart::with("c1", "read", completed(&input, (1, 2), &result)).to_value();
        assert_eq!(done["state"]["status"], "completed");
        assert_eq!(done["state"]["time"], json!({"start": 1, "end": 2}));
        assert!(done["state"].get("attachments").is_none());
        let failed = ToolPart::with("c1", "read", failed(&input, (1, 3), "boom", None)).to_value();
        assert_eq!(failed["state"]["error"], "boom");
        assert_eq!(failed["callID"], "c1");
        let running = ToolPart::with("c1", "read", running(&input, 1, Some("t"), None)).to_value();
        assert_eq!(running["state"]["title"], "t");
        assert_eq!(finish_reason(&FinishReason::ToolCalls), "tool-calls");
    }
}
