//! The conversation as Responses input items: user messages, assistant messages, each tool
//! call as a `function_call` item and each result as a `function_call_output`, and the
//! model's earlier reasoning as the encrypted `reasoning` items it streamed.

use serde_json::{Value, json};

use crate::provider::{ChatMessage, Media, ReasoningBlock, ToolCall};

/// The `input` list for `messages`.
pub(super) fn items(messages: &[ChatMessage]) -> Vec<Value> {
    let mut items = Vec::with_capacity(messages.len());
    // Call outputs carry text only, so the files they attached follow them in one user item,
    // after the last output of the turn.
    let mut attached: Vec<(&str, &Media)> = Vec::new();
    for message in messages {
        if !matches!(message, ChatMessage::ToolResult { .. }) {
            flush_attached(&mut attached, &mut items);
        }
        match message {
            ChatMessage::User { text, media } => items.push(user(text, media)),
            ChatMessage::Assistant {
                text,
                tool_calls,
                reasoning,
            } => assistant(text, tool_calls, reasoning, &mut items),
            // The protocol has no error flag for outputs; the output says what failed.
            ChatMessage::ToolResult {
                call_id,
                output,
                media,
                ..
            } => {
                attached.extend(media.iter().map(|m| (call_id.as_str(), m)));
                items.push(json!({
                    "type": "function_call_output",
                    "call_id": call_id,
                    "output": output,
                }));
            }
        }
    }
    flush_attached(&mut attached, &mut items);
    items
}

/// An assistant turn: its reasoning items first (the API wants each followed by what it led
/// to), then its text, then its calls.
fn assistant(text: &str, calls: &[ToolCall], reasoning: &[ReasoningBlock], items: &mut Vec<Value>) {
    items.extend(reasoning.iter().filter_map(reasoning_item));
    if !text.is_empty() {
        items.push(json!({
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text}],
        }));
    }
    items.extend(calls.iter().map(|c| {
        json!({
            "type": "function_call",
            "call_id": c.id,
            "name": c.name,
            "arguments": c.arguments,
        })
    }));
}

/// A reasoning item to send back. Blocks from other vendors (Anthropic's signed thinking,
/// chat-completions reasoning) are not items of this API and are dropped.
fn reasoning_item(block: &ReasoningBlock) -> Option<Value> {
    let item = block.item.as_ref()?;
    let summary: Vec<Value> = if block.text.is_empty() {
        Vec::new()
    } else {
        vec![json!({"type": "summary_text", "text": block.text})]
    };
    Some(json!({
        "type": "reasoning",
        "id": item.id,
        "encrypted_content": item.encrypted_content,
        "summary": summary,
    }))
}

/// Appends a user item holding the files tool calls attached, each introduced by a line naming
/// its call: images as `input_image`, PDFs as `input_file`, other types by name only.
/// A user message: its text, then the files the user attached.
fn user(text: &str, media: &[Media]) -> Value {
    let mut content = vec![json!({"type": "input_text", "text": text})];
    for m in media {
        content.push(if m.is_image() {
            json!({"type": "input_image", "image_url": m.url})
        } else if m.is_pdf() {
            json!({"type": "input_file", "filename": m.label(), "file_data": m.url})
        } else {
            json!({"type": "input_text", "text": m.not_sendable_from_user()})
        });
    }
    json!({"role": "user", "content": content})
}

fn flush_attached(attached: &mut Vec<(&str, &Media)>, items: &mut Vec<Value>) {
    if attached.is_empty() {
        return;
    }
    let mut content = Vec::with_capacity(attached.len() * 2);
    for (call_id, media) in attached.drain(..) {
        let file = if media.is_image() {
            json!({"type": "input_image", "image_url": media.url})
        } else if media.is_pdf() {
            json!({"type": "input_file", "filename": media.label(), "file_data": media.url})
        } else {
            content.push(json!({"type": "input_text", "text": media.not_sendable(call_id)}));
            continue;
        };
        content.push(json!({"type": "input_text", "text": media.attached_by(call_id)}));
        content.push(file);
    }
    items.push(json!({"role": "user", "content": content}));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ReasoningItem;
    use crate::provider::fixtures::{media, read_result};

    #[test]
    fn files_a_user_attached_follow_the_text_of_their_message() {
        let got = items(&[ChatMessage::User {
            text: "look".into(),
            media: vec![media("image/png", "a.png"), media("audio/wav", "c.wav")],
        }]);
        assert_eq!(
            got[0]["content"][0],
            json!({"type": "input_text", "text": "look"})
        );
        assert_eq!(got[0]["content"][1]["type"], "input_image");
        assert!(
            got[0]["content"][2]["text"]
                .as_str()
                .unwrap()
                .contains("c.wav")
        );
    }

    #[test]
    fn files_follow_the_last_output_of_the_turn_and_odd_types_are_named() {
        let result = |id: &str, media: Vec<Media>| read_result(id, true, media);
        let got = items(&[
            result("c1", vec![media("application/pdf", "b.pdf")]),
            result("c2", vec![media("audio/wav", "c.wav")]),
        ]);
        assert_eq!(
            got,
            vec![
                json!({"type": "function_call_output", "call_id": "c1", "output": "read"}),
                json!({"type": "function_call_output", "call_id": "c2", "output": "read"}),
                json!({"role": "user", "content": [
                    {"type": "input_text", "text": "Attached by tool call c1: b.pdf"},
                    {"type": "input_file", "filename": "b.pdf", "file_data": "data:application/pdf;base64,QUJD"},
                    {"type": "input_text", "text": "Tool call c2 attached c.wav (audio/wav), which cannot be sent to this model."},
                ]}),
            ]
        );
    }

    #[test]
    fn only_reasoning_items_of_this_api_go_back_and_before_the_calls() {
        let block = |item: Option<ReasoningItem>| ReasoningBlock {
            text: String::new(),
            signature: Some("sig".into()).filter(|_| item.is_none()),
            redacted: None,
            item,
        };
        let got = items(&[ChatMessage::Assistant {
            text: String::new(),
            tool_calls: vec![ToolCall {
                id: "call_1".into(),
                name: "glob".into(),
                arguments: "{}".into(),
                meta: None,
            }],
            reasoning: vec![
                block(None),
                block(Some(ReasoningItem {
                    id: "rs_1".into(),
                    encrypted_content: "enc".into(),
                })),
            ],
        }]);
        assert_eq!(
            got,
            vec![
                json!({"type": "reasoning", "id": "rs_1", "encrypted_content": "enc", "summary": []}),
                json!({"type": "function_call", "call_id": "call_1", "name": "glob", "arguments": "{}"}),
            ],
            "no empty assistant message, no foreign block"
        );
    }
}
