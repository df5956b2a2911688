//! Prompt-cache breakpoints for a Messages body.
//!
//! Anthropic caches the prompt prefix (tools, then system, then messages) up to each block
//! marked `cache_control: {"type": "ephemeral"}`, and on a later request reads the longest
//! cached prefix it finds looking back from each marked block. It allows four marks per
//! request; we place at most three:
//!
//! - on the system prompt (sent as one text block for this), so tools and system, which stay
//!   the same for the whole session, are one entry that every step and every conversation
//!   after a compaction can read; with no system prompt, on the last tool instead;
//! - on the last block of each of the last two messages, so each step writes the whole
//!   conversation so far and the next step, which repeats it and adds a little, reads it back.
//!   The second mark gives a second place to look back from when one step added many blocks
//!   (parallel tool calls), since the look-back covers only about twenty blocks.
//!
//! Thinking blocks cannot carry a mark, so a message's mark goes on its last other block.

use serde_json::{Value, json};

/// How many trailing messages get a breakpoint.
const MESSAGE_MARKS: usize = 2;

/// The marker Anthropic reads; "ephemeral" is its only cache type.
pub(crate) fn ephemeral() -> Value {
    json!({"type": "ephemeral"})
}

/// Adds the breakpoints to `body` (a Messages body built without them).
pub(super) fn mark(body: &mut Value) {
    if let Some(system) = body.get("system").and_then(Value::as_str) {
        let text = system.to_string();
        body["system"] = json!([{"type": "text", "text": text, "cache_control": ephemeral()}]);
    } else if let Some(last) = body
        .get_mut("tools")
        .and_then(Value::as_array_mut)
        .and_then(|tools| tools.last_mut())
    {
        last["cache_control"] = ephemeral();
    }
    let Some(messages) = body.get_mut("messages").and_then(Value::as_array_mut) else {
        return;
    };
    for message in messages.iter_mut().rev().take(MESSAGE_MARKS) {
        let block = message
            .get_mut("content")
            .and_then(Value::as_array_mut)
            .and_then(|blocks| blocks.iter_mut().rev().find(|b| markable(b)));
        if let Some(block) = block {
            block["cache_control"] = ephemeral();
        }
    }
}

fn markable(block: &Value) -> bool {
    !matches!(
        block.get("type").and_then(Value::as_str),
        Some("thinking" | "redacted_thinking")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(body: &Value) -> usize {
        body.to_string().matches("cache_control").count()
    }

    #[test]
    fn system_and_the_last_block_of_the_last_two_messages_are_marked() {
        let mut body = json!({
            "system": "sys",
            "tools": [{"name": "read"}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "go"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "reading"},
                    {"type": "tool_use", "id": "t1", "name": "read", "input": {}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "x"},
                ]},
            ],
        });
        mark(&mut body);
        assert_eq!(
            body["system"],
            json!([{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}])
        );
        assert!(body["tools"][0].get("cache_control").is_none());
        assert!(
            body["messages"][0]["content"][0]
                .get("cache_control")
                .is_none()
        );
        assert!(
            body["messages"][1]["content"][0]
                .get("cache_control")
                .is_none()
        );
        assert_eq!(
            body["messages"][1]["content"][1]["cache_control"],
            ephemeral()
        );
        assert_eq!(
            body["messages"][2]["content"][0]["cache_control"],
            ephemeral()
        );
        assert_eq!(marks(&body), 3);
    }

    #[test]
    fn without_a_system_prompt_the_last_tool_is_marked_and_thinking_is_skipped() {
        let mut body = json!({
            "tools": [{"name": "read"}, {"name": "glob"}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "go"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "ok"},
                    {"type": "thinking", "thinking": "hm", "signature": "s"},
                ]},
            ],
        });
        mark(&mut body);
        assert!(body.get("system").is_none());
        assert_eq!(body["tools"][1]["cache_control"], ephemeral());
        assert_eq!(
            body["messages"][1]["content"][0]["cache_control"],
            ephemeral()
        );
        assert!(
            body["messages"][1]["content"][1]
                .get("cache_control")
                .is_none()
        );
        assert_eq!(marks(&body), 3);
    }

    #[test]
    fn a_bare_body_gets_no_marks() {
        let mut body = json!({"messages": [{"role": "user", "content": [
            {"type": "thinking", "thinking": "only", "signature": "s"},
        ]}]});
        mark(&mut body);
        assert_eq!(marks(&body), 0);
    }
}
