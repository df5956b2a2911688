//! `OpenAiCompatible`: the chat-completions API (`POST {base}/chat/completions`, streamed) as
//! spoken by OpenAI and the many servers that copy it (vLLM, llama.cpp, Ollama, gateways).
//! Prompt caching (the cache key, and breakpoints for Claude models) is in [`cache`].

mod cache;
mod decode;
mod usage;

use serde_json::{Value, json};

use super::streaming::StreamingProvider;
use super::wire::{BodyFn, DecodeFn, Wire};
use super::{ChatMessage, ChatRequest, Media, ReasoningBlock, ToolCall};

/// The chat-completions protocol: the key as a bearer token, `/chat/completions` after the
/// base URL.
#[derive(Debug, Clone, Copy)]
pub struct OpenAiWire;

/// A provider speaking the OpenAI chat-completions protocol. Its base URL ends before
/// `/chat/completions`, e.g. `http://127.0.0.1:8080/v1`.
pub type OpenAiCompatible = StreamingProvider<OpenAiWire>;

impl Wire for OpenAiWire {
    const NAME: &'static str = "openai";
    const PATH: &'static str = "/chat/completions";
    const BODY: BodyFn = request_body;
    const DECODE: DecodeFn = decode::decode;
}

/// The JSON body of a streamed chat-completions request.
pub(crate) fn request_body(req: &ChatRequest) -> Value {
    let mut messages = Vec::with_capacity(req.messages.len() + 1);
    if !req.system.is_empty() {
        messages.push(json!({"role": "system", "content": req.system}));
    }
    // Tool messages carry text only, so the files they attached follow them in one user
    // message, after the last result of the turn (results must directly follow their calls).
    let mut attached: Vec<(&str, &Media)> = Vec::new();
    for message in &req.messages {
        if !matches!(message, ChatMessage::ToolResult { .. }) {
            flush_attached(&mut attached, &mut messages);
        }
        messages.push(match message {
            ChatMessage::User { text, media } => user_message(text, media),
            ChatMessage::Assistant {
                text,
                tool_calls,
                reasoning,
            } => assistant_message(req, text, tool_calls, reasoning),
            // The protocol has no error flag for tool messages; the output says what failed.
            ChatMessage::ToolResult {
                call_id,
                output,
                media,
                ..
            } => {
                attached.extend(media.iter().map(|m| (call_id.as_str(), m)));
                json!({"role": "tool", "tool_call_id": call_id, "content": output})
            }
        });
    }
    flush_attached(&mut attached, &mut messages);
    let mut body = json!({
        "model": req.model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if !req.tools.is_empty() {
        body["tools"] = req
            .tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
                })
            })
            .collect();
    }
    settings(req, &mut body);
    cache::apply(req, &mut body);
    body
}

/// The request's sampling, length and reasoning settings, when set.
fn settings(req: &ChatRequest, body: &mut Value) {
    if let Some(t) = req.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(max) = req.max_tokens {
        body["max_tokens"] = json!(max);
    }
    if let Some(effort) = &req.reasoning.effort {
        body["reasoning_effort"] = json!(effort);
    }
}

/// An assistant turn: its text, and its tool calls with the reasoning that led to them for
/// models that need it back.
fn assistant_message(
    req: &ChatRequest,
    text: &str,
    tool_calls: &[ToolCall],
    reasoning: &[ReasoningBlock],
) -> Value {
    let mut m = json!({
        "role": "assistant",
        "content": if text.is_empty() { Value::Null } else { json!(text) },
    });
    // Most servers take no reasoning back; models that think between tool calls need theirs
    // with the calls it led to (see `ChatRequest::interleaved`).
    if let Some(field) = req.interleaved.as_deref()
        && !tool_calls.is_empty()
    {
        m[field] = reasoning_back(field, reasoning);
    }
    if !tool_calls.is_empty() {
        m["tool_calls"] = tool_calls
            .iter()
            .map(|c| {
                let mut call = json!({
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                });
                if let Some(meta) = &c.meta {
                    call["extra_content"] = meta.clone();
                }
                call
            })
            .collect();
    }
    m
}

/// An assistant message's reasoning as sent back under `field`: OpenRouter's
/// `reasoning_details` list of `reasoning.text` items, else (`reasoning_content`, …) the text.
/// Sent even when empty, since servers that want it reject a tool-call message without it.
fn reasoning_back(field: &str, reasoning: &[ReasoningBlock]) -> Value {
    let texts = reasoning.iter().filter(|r| r.redacted.is_none());
    if field == "reasoning_details" {
        let items: Vec<Value> = texts
            .enumerate()
            .map(|(index, r)| {
                let mut item = json!({"type": "reasoning.text", "text": r.text, "index": index});
                if let Some(signature) = &r.signature {
                    item["signature"] = json!(signature);
                }
                item
            })
            .collect();
        return Value::Array(items);
    }
    json!(texts.map(|r| r.text.as_str()).collect::<String>())
}

/// Appends a user message holding the files tool calls attached, each introduced by a line
/// naming its call; images as `image_url` parts, PDFs as `file` parts, other types by name only.
/// A user message: its text, then the files the user attached (images as `image_url`, PDFs as
/// `file`, other types named).
fn user_message(text: &str, media: &[Media]) -> Value {
    if media.is_empty() {
        return json!({"role": "user", "content": text});
    }
    let mut content = vec![json!({"type": "text", "text": text})];
    for m in media {
        content.push(if m.is_image() {
            json!({"type": "image_url", "image_url": {"url": m.url}})
        } else if m.is_pdf() {
            json!({"type": "file", "file": {"filename": m.label(), "file_data": m.url}})
        } else {
            json!({"type": "text", "text": m.not_sendable_from_user()})
        });
    }
    json!({"role": "user", "content": content})
}

fn flush_attached(attached: &mut Vec<(&str, &Media)>, messages: &mut Vec<Value>) {
    if attached.is_empty() {
        return;
    }
    let mut content = Vec::with_capacity(attached.len() * 2);
    for (call_id, media) in attached.drain(..) {
        let label = media.label();
        if media.is_image() {
            content.push(json!({"type": "text", "text": media.attached_by(call_id)}));
            content.push(json!({"type": "image_url", "image_url": {"url": media.url}}));
        } else if media.is_pdf() {
            content.push(json!({"type": "text", "text": media.attached_by(call_id)}));
            content
                .push(json!({"type": "file", "file": {"filename": label, "file_data": media.url}}));
        } else {
            content.push(json!({"type": "text", "text": media.not_sendable(call_id)}));
        }
    }
    messages.push(json!({"role": "user", "content": content}));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::fixtures::{media, read_result};
    use crate::provider::{Provider, ToolCall, ToolSpec};

    #[test]
    fn request_body_has_system_tools_tool_calls_and_results() {
        let req = ChatRequest {
            model: "gpt-test".into(),
            system: "be brief".into(),
            messages: vec![
                ChatMessage::user("list files"),
                ChatMessage::assistant(
                    "",
                    vec![ToolCall {
                        id: "c1".into(),
                        name: "glob".into(),
                        arguments: "{\"pattern\":\"*\"}".into(),
                        meta: None,
                    }],
                ),
                ChatMessage::ToolResult {
                    call_id: "c1".into(),
                    name: "glob".into(),
                    output: "a.txt".into(),
                    is_error: false,
                    media: vec![],
                },
            ],
            tools: vec![ToolSpec {
                name: "glob".into(),
                description: "find files".into(),
                parameters: json!({"type": "object"}),
            }],
            max_tokens: Some(100),
            reasoning: Default::default(),
            temperature: Some(0.3),
            ..Default::default()
        };
        let body = request_body(&req);
        assert_eq!(
            body,
            json!({
                "model": "gpt-test",
                "messages": [
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": "list files"},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "glob", "arguments": "{\"pattern\":\"*\"}"}}
                    ]},
                    {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
                ],
                "stream": true,
                "stream_options": {"include_usage": true},
                "tools": [{"type": "function", "function": {"name": "glob", "description": "find files", "parameters": {"type": "object"}}}],
                "temperature": 0.3,
                "max_tokens": 100,
            })
        );
    }

    #[test]
    fn empty_system_and_tools_are_left_out_and_the_base_url_is_trimmed() {
        let req = ChatRequest {
            model: "m".into(),
            system: String::new(),
            messages: vec![ChatMessage::user("hi")],
            tools: vec![],
            max_tokens: None,
            reasoning: Default::default(),
            temperature: None,
            ..Default::default()
        };
        let mut req = req;
        let body = request_body(&req);
        assert_eq!(body["messages"].as_array().map(Vec::len), Some(1));
        assert!(body.get("tools").is_none() && body.get("max_tokens").is_none());
        assert!(body.get("reasoning_effort").is_none());
        req.reasoning.effort = Some("high".into());
        assert_eq!(request_body(&req)["reasoning_effort"], "high");
        let p = OpenAiCompatible::new("http://127.0.0.1:9/v1/", Some(String::new())).unwrap();
        assert_eq!(p.base_url(), "http://127.0.0.1:9/v1");
        assert!(
            p.headers().unwrap().is_empty(),
            "an empty key sends no header"
        );
    }

    #[test]
    fn attached_files_follow_the_turns_tool_messages_in_one_user_message() {
        let call = |id: &str| ToolCall {
            id: id.into(),
            name: "read".into(),
            arguments: "{}".into(),
            meta: None,
        };
        let result = |id: &str, media: Vec<Media>| read_result(id, false, media);
        let req = ChatRequest {
            model: "m".into(),
            system: String::new(),
            messages: vec![
                ChatMessage::user("look"),
                ChatMessage::assistant("", vec![call("c1"), call("c2")]),
                result("c1", vec![media("image/png", "a.png")]),
                result(
                    "c2",
                    vec![
                        media("application/pdf", "b.pdf"),
                        media("audio/wav", "c.wav"),
                    ],
                ),
                ChatMessage::user("and?"),
            ],
            tools: vec![],
            max_tokens: None,
            reasoning: Default::default(),
            temperature: None,
            ..Default::default()
        };
        let body = request_body(&req);
        let roles: Vec<&str> = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["user", "assistant", "tool", "tool", "user", "user"]);
        assert_eq!(
            body["messages"][4]["content"],
            json!([
                {"type": "text", "text": "Attached by tool call c1: a.png"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}},
                {"type": "text", "text": "Attached by tool call c2: b.pdf"},
                {"type": "file", "file": {"filename": "b.pdf", "file_data": "data:application/pdf;base64,QUJD"}},
                {"type": "text", "text": "Tool call c2 attached c.wav (audio/wav), which cannot be sent to this model."},
            ])
        );
        assert_eq!(body["messages"][5]["content"], "and?");
    }

    #[test]
    fn reasoning_goes_back_with_tool_calls_under_the_interleaved_field() {
        let block = |text: &str| ReasoningBlock {
            text: text.into(),
            signature: None,
            redacted: None,
            item: None,
        };
        let thought = ChatMessage::Assistant {
            text: String::new(),
            tool_calls: vec![ToolCall {
                id: "c1".into(),
                name: "read".into(),
                arguments: "{}".into(),
                meta: None,
            }],
            reasoning: vec![block("Read it "), block("first.")],
        };
        let answer = ChatMessage::Assistant {
            text: "done".into(),
            tool_calls: vec![],
            reasoning: vec![block("Now answer.")],
        };
        let mut req = ChatRequest {
            model: "kimi-k2-thinking".into(),
            messages: vec![ChatMessage::user("go"), thought, answer],
            ..Default::default()
        };
        let plain = request_body(&req);
        assert!(
            !plain.to_string().contains("Read it"),
            "no field, no reasoning: {plain}"
        );
        req.interleaved = Some("reasoning_content".into());
        let body = request_body(&req);
        assert_eq!(body["messages"][1]["reasoning_content"], "Read it first.");
        assert!(
            body["messages"][2].get("reasoning_content").is_none(),
            "only messages with tool calls carry it"
        );
        req.interleaved = Some("reasoning_details".into());
        let body = request_body(&req);
        assert_eq!(
            body["messages"][1]["reasoning_details"],
            json!([
                {"type": "reasoning.text", "text": "Read it ", "index": 0},
                {"type": "reasoning.text", "text": "first.", "index": 1},
            ])
        );
    }
}
