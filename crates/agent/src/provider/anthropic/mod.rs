//! `Anthropic`: the Messages API (`POST {base}/v1/messages`, streamed), with `x-api-key` and
//! `anthropic-version` headers, tool calls as `tool_use` blocks and results as `tool_result`
//! blocks in the following user turn. Requests carry prompt-cache breakpoints unless the
//! request turns caching off ([`cache`] says where they go).

mod cache;
mod decode;

use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::{Value, json};

use super::streaming::StreamingProvider;
use super::wire::key_header;
use super::wire::{BodyFn, DecodeFn, Wire};
use super::{ChatMessage, ChatRequest, Media, ProviderError, ReasoningBlock};

/// The API version header value this implementation speaks.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// `max_tokens` is required by the Messages API; used when the request does not set it.
pub const DEFAULT_MAX_TOKENS: u32 = 8192;

/// The Messages protocol: `x-api-key` and `anthropic-version` headers, `/v1/messages` after
/// the host root.
#[derive(Debug, Clone, Copy)]
pub struct AnthropicWire;

/// A provider speaking the Anthropic Messages protocol. Its base URL is the host root, e.g.
/// `http://127.0.0.1:8080`; a trailing `/v1` is tolerated.
pub type Anthropic = StreamingProvider<AnthropicWire>;

impl Wire for AnthropicWire {
    const NAME: &'static str = "anthropic";
    const PATH: &'static str = "/v1/messages";
    const BODY: BodyFn = request_body;
    const DECODE: DecodeFn = decode::decode;

    fn base_url(trimmed: &str) -> String {
        trimmed.strip_suffix("/v1").unwrap_or(trimmed).to_string()
    }

    fn headers(api_key: Option<&str>) -> Result<HeaderMap, ProviderError> {
        let mut headers = HeaderMap::new();
        headers.insert(
            "anthropic-version",
            HeaderValue::from_static(ANTHROPIC_VERSION),
        );
        if let Some(key) = api_key {
            headers.insert("x-api-key", key_header(key, "ANTHROPIC_API_KEY")?);
        }
        Ok(headers)
    }
}

/// The JSON body of a streamed Messages request. Consecutive entries of the same role are
/// merged (tool results and the next user text share one user turn), and empty turns dropped,
/// because the API wants non-empty turns that alternate.
pub(crate) fn request_body(req: &ChatRequest) -> Value {
    let mut turns: Vec<(&str, Vec<Value>)> = Vec::new();
    for message in &req.messages {
        let (role, blocks) = message_blocks(message);
        if blocks.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    let messages: Vec<Value> = turns
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    let mut body = json!({
        "model": req.model,
        "max_tokens": req.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        "stream": true,
        "messages": messages,
    });
    if !req.system.is_empty() {
        body["system"] = json!(req.system);
    }
    if let Some(budget) = req.reasoning.budget_tokens {
        body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
    } else if let Some(t) = req.temperature {
        // Only without thinking: the API refuses a temperature beside it.
        body["temperature"] = json!(t);
    }
    if !req.tools.is_empty() {
        body["tools"] = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
            .collect();
    }
    if !req.no_cache {
        cache::mark(&mut body);
    }
    body
}

/// One history message as its Anthropic role and content blocks (possibly none).
fn message_blocks(message: &ChatMessage) -> (&'static str, Vec<Value>) {
    match message {
        ChatMessage::User { text, media } => {
            let mut blocks = text_block(text);
            blocks.extend(
                media
                    .iter()
                    .map(|m| media_block(m, &m.not_sendable_from_user())),
            );
            ("user", blocks)
        }
        ChatMessage::Assistant {
            text,
            tool_calls,
            reasoning,
        } => {
            // Thinking blocks go first, as they came, so the signed ones are accepted back.
            let mut blocks: Vec<Value> = reasoning.iter().filter_map(thinking_block).collect();
            blocks.extend(text_block(text));
            for call in tool_calls {
                // Only parsed calls reach the history; anything else becomes an empty input.
                let input = serde_json::from_str::<Value>(&call.arguments)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| json!({}));
                blocks.push(
                    json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input}),
                );
            }
            ("assistant", blocks)
        }
        ChatMessage::ToolResult {
            call_id,
            output,
            is_error,
            media,
            ..
        } => (
            "user",
            vec![
                json!({"type": "tool_result", "tool_use_id": call_id, "content": result_content(output, media), "is_error": is_error}),
            ],
        ),
    }
}

/// A tool result's content: its text alone, or, when it attached files, a list of the text
/// then an `image` or `document` block per file (other types are named in a text block).
fn result_content(output: &str, media: &[Media]) -> Value {
    if media.is_empty() {
        return json!(output);
    }
    let mut blocks = text_block(output);
    for m in media {
        let unsent = format!(
            "Attached {} ({}), which cannot be sent to this model.",
            m.label(),
            m.mime
        );
        blocks.push(media_block(m, &unsent));
    }
    Value::Array(blocks)
}

/// A file as an `image` or `document` block; a type the API cannot take as the `unsent` text.
fn media_block(m: &Media, unsent: &str) -> Value {
    let source = |data: &str| json!({"type": "base64", "media_type": m.mime, "data": data});
    match m.base64() {
        Some(data) if m.is_image() => json!({"type": "image", "source": source(data)}),
        Some(data) if m.is_pdf() => json!({"type": "document", "source": source(data)}),
        _ => json!({"type": "text", "text": unsent}),
    }
}

/// A thinking block to send back: redacted data as it came, or the text with its signature.
/// Unsigned reasoning (from another provider, or cut off) is not accepted, so it is dropped.
fn thinking_block(r: &ReasoningBlock) -> Option<Value> {
    if let Some(data) = &r.redacted {
        return Some(json!({"type": "redacted_thinking", "data": data}));
    }
    let signature = r.signature.as_ref()?;
    Some(json!({"type": "thinking", "thinking": r.text, "signature": signature}))
}

fn text_block(text: &str) -> Vec<Value> {
    if text.is_empty() {
        Vec::new()
    } else {
        vec![json!({"type": "text", "text": text})]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{Provider, ToolCall, ToolSpec};

    #[test]
    fn request_body_merges_tool_results_into_one_user_turn() {
        let call = |id: &str| ToolCall {
            id: id.into(),
            name: "read".into(),
            arguments: "{\"filePath\":\"a\"}".into(),
            meta: None,
        };
        let result = |id: &str| ChatMessage::ToolResult {
            call_id: id.into(),
            name: "read".into(),
            output: "text".into(),
            is_error: id == "t2",
            media: vec![],
        };
        let req = ChatRequest {
            model: "claude-test".into(),
            system: "sys".into(),
            messages: vec![
                ChatMessage::user("go"),
                ChatMessage::assistant("reading", vec![call("t1"), call("t2")]),
                result("t1"),
                result("t2"),
                ChatMessage::user("and then?"),
            ],
            tools: vec![ToolSpec {
                name: "read".into(),
                description: "read a file".into(),
                parameters: json!({"type": "object"}),
            }],
            max_tokens: None,
            reasoning: Default::default(),
            temperature: Some(0.2),
            ..Default::default()
        };
        let body = request_body(&req);
        assert_eq!(body["temperature"], 0.2);
        assert_eq!(body["max_tokens"], DEFAULT_MAX_TOKENS);
        assert_eq!(body["system"][0]["text"], "sys");
        assert_eq!(body["stream"], true);
        assert_eq!(
            body["tools"],
            json!([{"name": "read", "description": "read a file", "input_schema": {"type": "object"}}])
        );
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 3, "{messages:#?}");
        assert_eq!(
            messages[1]["content"][1],
            json!({"type": "tool_use", "id": "t1", "name": "read", "input": {"filePath": "a"}})
        );
        assert_eq!(messages[2]["role"], "user");
        assert_eq!(
            messages[2]["content"],
            json!([
                {"type": "tool_result", "tool_use_id": "t1", "content": "text", "is_error": false},
                {"type": "tool_result", "tool_use_id": "t2", "content": "text", "is_error": true},
                {"type": "text", "text": "and then?", "cache_control": {"type": "ephemeral"}},
            ])
        );
    }

    #[test]
    fn caching_off_sends_the_system_as_text_and_no_breakpoints() {
        let mut req = ChatRequest {
            model: "claude-test".into(),
            system: "sys".into(),
            messages: vec![ChatMessage::user("go")],
            ..Default::default()
        };
        let on = request_body(&req);
        assert_eq!(
            on["system"],
            json!([{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}])
        );
        assert_eq!(
            on["messages"][0]["content"][0]["cache_control"],
            cache::ephemeral()
        );
        req.no_cache = true;
        let off = request_body(&req);
        assert_eq!(off["system"], "sys");
        assert!(!off.to_string().contains("cache_control"), "{off}");
        assert!(off.get("prompt_cache_key").is_none());
    }

    #[test]
    fn thinking_is_requested_with_a_budget_and_signed_blocks_lead_the_assistant_turn() {
        let block = |text: &str, signature: Option<&str>, redacted: Option<&str>| ReasoningBlock {
            text: text.into(),
            signature: signature.map(str::to_string),
            redacted: redacted.map(str::to_string),
            item: None,
        };
        let req = ChatRequest {
            model: "claude-test".into(),
            system: String::new(),
            messages: vec![
                ChatMessage::user("go"),
                ChatMessage::Assistant {
                    text: "ok".into(),
                    tool_calls: vec![],
                    reasoning: vec![
                        block("plan", Some("sig"), None),
                        block("", None, Some("opaque")),
                        block("unsigned", None, None),
                    ],
                },
            ],
            tools: vec![],
            max_tokens: Some(20_000),
            reasoning: crate::provider::Reasoning {
                effort: None,
                budget_tokens: Some(4000),
            },
            temperature: Some(0.2),
            ..Default::default()
        };
        let body = request_body(&req);
        assert_eq!(
            body["thinking"],
            json!({"type": "enabled", "budget_tokens": 4000})
        );
        // Anthropic accepts no temperature beside thinking: it is left out.
        assert!(body.get("temperature").is_none(), "{body}");
        assert_eq!(body["max_tokens"], 20_000);
        assert_eq!(
            body["messages"][1]["content"],
            json!([
                {"type": "thinking", "thinking": "plan", "signature": "sig"},
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "text", "text": "ok", "cache_control": {"type": "ephemeral"}},
            ])
        );
    }

    #[test]
    fn reasoning_items_of_the_responses_api_are_not_sent_as_thinking() {
        let item = ReasoningBlock {
            text: "a summary".into(),
            signature: None,
            redacted: None,
            item: Some(crate::provider::ReasoningItem {
                id: "rs_1".into(),
                encrypted_content: "enc".into(),
            }),
        };
        let req = ChatRequest {
            model: "claude-test".into(),
            messages: vec![
                ChatMessage::user("go"),
                ChatMessage::Assistant {
                    text: "ok".into(),
                    tool_calls: vec![],
                    reasoning: vec![item],
                },
            ],
            // Breakpoints are beside the point here.
            no_cache: true,
            ..Default::default()
        };
        assert_eq!(
            request_body(&req)["messages"][1]["content"],
            json!([{"type": "text", "text": "ok"}])
        );
    }

    #[test]
    fn headers_carry_version_and_key_and_v1_suffix_is_tolerated() {
        let p = Anthropic::new("http://127.0.0.1:9/v1/", Some("k-1".into())).unwrap();
        assert_eq!(p.base_url(), "http://127.0.0.1:9");
        let h = p.headers().unwrap();
        assert_eq!(h["anthropic-version"], ANTHROPIC_VERSION);
        assert_eq!(h["x-api-key"], "k-1");
    }

    #[test]
    fn files_a_user_attached_follow_the_text_of_their_turn() {
        let req = ChatRequest {
            messages: vec![ChatMessage::User {
                text: "look".into(),
                media: vec![Media {
                    mime: "image/png".into(),
                    url: "data:image/png;base64,iVBO".into(),
                    filename: None,
                }],
            }],
            no_cache: true,
            ..Default::default()
        };
        assert_eq!(
            request_body(&req)["messages"][0]["content"][1],
            json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}})
        );
    }

    #[test]
    fn attached_files_become_image_and_document_blocks_of_the_result() {
        let media = |mime: &str, url: &str| Media {
            mime: mime.into(),
            url: url.into(),
            filename: Some("f".into()),
        };
        let content = result_content(
            "Read it.",
            &[
                media("image/png", "data:image/png;base64,iVBO"),
                media("application/pdf", "data:application/pdf;base64,JVBE"),
                media("image/png", "https://example.invalid/x.png"),
            ],
        );
        assert_eq!(
            content,
            json!([
                {"type": "text", "text": "Read it."},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"}},
                {"type": "text", "text": "Attached f (image/png), which cannot be sent to this model."},
            ])
        );
        assert_eq!(result_content("plain", &[]), json!("plain"));
    }
}
