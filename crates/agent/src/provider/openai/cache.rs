//! Prompt caching on chat-completions bodies.
//!
//! Two things, both left out when the request turns caching off:
//!
//! - `prompt_cache_key` (the session id), so a vendor that caches prefixes automatically
//!   routes the steps of one session to the same cache;
//! - for Claude models reached through an OpenAI-compatible gateway (OpenRouter and others
//!   that pass Anthropic's field on), the same breakpoints the Messages wire places: a
//!   `cache_control` mark on the system message and on the last two messages, each turned
//!   into a part array whose last text part carries the mark. A message with no text content
//!   (an assistant turn of tool calls only) has nowhere to put a mark and gets none. Other
//!   models' bodies are left as they are.

use serde_json::{Value, json};

use crate::provider::ChatRequest;

/// How many trailing messages get a breakpoint.
const MESSAGE_MARKS: usize = 2;

/// Whether `model` (the API model id) names a Claude model: `anthropic/…` or `claude` in it.
pub(super) fn is_claude(model: &str) -> bool {
    let model = model.to_ascii_lowercase();
    model.starts_with("anthropic/") || model.contains("claude")
}

/// Adds the cache key and, for Claude models, the breakpoints to `body`.
pub(super) fn apply(req: &ChatRequest, body: &mut Value) {
    if req.no_cache {
        return;
    }
    if let Some(key) = &req.cache_key {
        body["prompt_cache_key"] = json!(key);
    }
    if !is_claude(&req.model) {
        return;
    }
    let Some(messages) = body.get_mut("messages").and_then(Value::as_array_mut) else {
        return;
    };
    if let Some(system) = messages.first_mut().filter(|m| m["role"] == "system") {
        mark(system);
    }
    let start = usize::from(messages.first().is_some_and(|m| m["role"] == "system"));
    for message in messages[start..].iter_mut().rev().take(MESSAGE_MARKS) {
        mark(message);
    }
}

/// Puts a mark on the message's last text part, turning string content into one part first.
fn mark(message: &mut Value) {
    let ephemeral = json!({"type": "ephemeral"});
    match message.get_mut("content") {
        Some(Value::String(text)) if !text.is_empty() => {
            let text = std::mem::take(text);
            message["content"] =
                json!([{"type": "text", "text": text, "cache_control": ephemeral}]);
        }
        Some(Value::Array(parts)) => {
            if let Some(part) = parts.iter_mut().rev().find(|p| p["type"] == "text") {
                part["cache_control"] = ephemeral;
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> Value {
        json!({"model": "m", "messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1"}]},
            {"role": "tool", "tool_call_id": "c1", "content": "out"},
        ]})
    }

    fn request(model: &str) -> ChatRequest {
        ChatRequest {
            model: model.into(),
            cache_key: Some("ses_1".into()),
            ..Default::default()
        }
    }

    #[test]
    fn claude_models_are_told_apart_by_their_id() {
        assert!(is_claude("anthropic/claude-sonnet-4"));
        assert!(is_claude("Claude-3-7-Sonnet"));
        assert!(is_claude("anthropic/some-future-model"));
        assert!(!is_claude("gpt-4.1") && !is_claude("openai/gpt-5"));
    }

    #[test]
    fn claude_bodies_get_marks_on_system_and_the_last_two_messages() {
        let mut b = body();
        apply(&request("anthropic/claude-sonnet-4"), &mut b);
        let mark = json!({"type": "ephemeral"});
        let m = &b["messages"];
        assert_eq!(
            m[0]["content"],
            json!([{"type": "text", "text": "sys", "cache_control": mark}])
        );
        assert_eq!(m[1]["content"], "go", "only the last two messages");
        assert_eq!(m[2]["content"], Value::Null, "no text to mark");
        assert_eq!(
            m[3]["content"],
            json!([{"type": "text", "text": "out", "cache_control": mark}])
        );
        assert_eq!(b["prompt_cache_key"], "ses_1");
    }

    #[test]
    fn part_arrays_get_the_mark_on_their_last_text_part() {
        let mut message = json!({"role": "user", "content": [
            {"type": "text", "text": "a"},
            {"type": "image_url", "image_url": {"url": "data:x"}},
        ]});
        mark(&mut message);
        assert_eq!(message["content"][0]["cache_control"]["type"], "ephemeral");
        assert!(message["content"][1].get("cache_control").is_none());
    }

    #[test]
    fn other_models_get_only_the_key_and_caching_off_gets_nothing() {
        let mut b = body();
        apply(&request("gpt-4.1"), &mut b);
        let mut expected = body();
        expected["prompt_cache_key"] = json!("ses_1");
        assert_eq!(b, expected);
        let mut off = request("anthropic/claude-sonnet-4");
        off.no_cache = true;
        let mut b = body();
        apply(&off, &mut b);
        assert_eq!(b, body());
    }
}
