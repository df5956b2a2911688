//! The data the loop stores for messages and parts, in opencode's shape: a tool part goes
//! `pending {input, raw}` → `running {input, time.start, title?, metadata?}` → `completed
//! {input, output, title, metadata, time}` or `error {input, error, metadata?, time}`.

use serde_json::{Map, Value, json};

use crate::events::error_json;
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

/// Token counts in opencode's shape (no reasoning or cache figures from our providers).
pub fn tokens(usage: Option<Usage>) -> Value {
    let u = usage.unwrap_or_default();
    json!({
        "input": u.input_tokens,
        "output": u.output_tokens,
        "reasoning": 0,
        "cache": {"read": 0, "write": 0},
    })
}

/// A user message's data.
pub fn user_message(now: i64, agent: &str) -> Value {
    json!({"time": {"created": now}, "agent": agent})
}

/// Who answers in a step: the agent and the model.
#[derive(Debug, Clone)]
pub struct ModelRef {
    /// `openai`, `anthropic`.
    pub provider_id: String,
    /// The API model id.
    pub model_id: String,
}

/// A new assistant message's data (one per step attempt).
pub fn assistant_message(now: i64, agent: &str, model: &ModelRef) -> Value {
    json!({
        "time": {"created": now},
        "agent": agent,
        "mode": agent,
        "providerID": model.provider_id,
        "modelID": model.model_id,
        "cost": 0,
        "tokens": tokens(None),
    })
}

/// Marks an assistant message finished (`finish`, tokens, `time.completed`).
pub fn finish_message(data: &mut Value, now: i64, reason: &str, usage: Option<Usage>) {
    data["time"]["completed"] = json!(now);
    data["finish"] = json!(reason);
    data["tokens"] = tokens(usage);
}

/// Marks an assistant message failed; `retried` when a later attempt replaces it, so the
/// history sent to the model leaves it out.
pub fn fail_message(data: &mut Value, now: i64, name: &str, message: &str, retried: bool) {
    data["time"]["completed"] = json!(now);
    data["error"] = error_json(name, message);
    if retried {
        data["retried"] = json!(true);
    }
}

/// A user's text part: no `time`, as in opencode, so front-ends that show finished
/// assistant text (`time.end`) do not echo the prompt.
pub fn user_text(text: &str) -> Value {
    json!({"text": text})
}

pub fn text(text: &str, start: i64, end: Option<i64>) -> Value {
    let mut time = json!({"start": start});
    if let Some(end) = end {
        time["end"] = json!(end);
    }
    json!({"text": text, "time": time})
}

pub fn step_start() -> Value {
    json!({})
}

pub fn step_finish(reason: &str, usage: Option<Usage>) -> Value {
    json!({"reason": reason, "cost": 0, "tokens": tokens(usage)})
}

fn tool(call_id: &str, tool: &str, state: Value) -> Value {
    json!({"callID": call_id, "tool": tool, "state": state})
}

/// The model started a call; its arguments are still arriving.
pub fn tool_pending(call_id: &str, name: &str, raw: &str) -> Value {
    tool(
        call_id,
        name,
        json!({"status": "pending", "input": {}, "raw": raw}),
    )
}

/// The call is running (optionally with the tool's running title and metadata).
pub fn tool_running(
    call_id: &str,
    name: &str,
    input: &Value,
    start: i64,
    title: Option<&str>,
    metadata: Option<&Map<String, Value>>,
) -> Value {
    let mut state = json!({"status": "running", "input": input, "time": {"start": start}});
    if let Some(title) = title {
        state["title"] = json!(title);
    }
    if let Some(metadata) = metadata {
        state["metadata"] = Value::Object(metadata.clone());
    }
    tool(call_id, name, state)
}

/// What a finished call produced, for [`tool_completed`].
pub struct Completed<'a> {
    pub output: &'a str,
    pub title: &'a str,
    pub metadata: &'a Map<String, Value>,
    pub attachments: Value,
}

pub fn tool_completed(
    call_id: &str,
    name: &str,
    input: &Value,
    (start, end): (i64, i64),
    done: Completed<'_>,
) -> Value {
    let mut state = json!({
        "status": "completed",
        "input": input,
        "output": done.output,
        "title": done.title,
        "metadata": done.metadata,
        "time": {"start": start, "end": end},
    });
    if done.attachments.as_array().is_some_and(|a| !a.is_empty()) {
        state["attachments"] = done.attachments;
    }
    tool(call_id, name, state)
}

pub fn tool_error(
    call_id: &str,
    name: &str,
    input: &Value,
    (start, end): (i64, i64),
    error: &str,
    metadata: Option<Map<String, Value>>,
) -> Value {
    let mut state = json!({
        "status": "error",
        "input": input,
        "error": error,
        "time": {"start": start, "end": end},
    });
    if let Some(metadata) = metadata {
        state["metadata"] = Value::Object(metadata);
    }
    tool(call_id, name, state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_states_have_opencode_fields() {
        let input = json!({"filePath": "a.txt"});
        let meta = Map::new();
        let done = tool_completed(
            "c1",
            "read",
            &input,
            (1, 2),
            Completed {
                output: "x",
                title: "a.txt",
                metadata: &meta,
                attachments: json!([]),
            },
        );
        assert_eq!(done["state"]["status"], "completed");
        assert_eq!(done["state"]["time"], json!({"start": 1, "end": 2}));
        assert!(done["state"].get("attachments").is_none());
        let failed = tool_error("c1", "read", &input, (1, 3), "boom", None);
        assert_eq!(failed["state"]["error"], "boom");
        assert_eq!(failed["callID"], "c1");
        let running = tool_running("c1", "read", &input, 1, Some("t"), None);
        assert_eq!(running["state"]["title"], "t");
        assert_eq!(finish_reason(&FinishReason::ToolCalls), "tool-calls");
    }
}
