//! `OpenAiResponses`: OpenAI's Responses API (`POST {base}/responses`, streamed), the only API
//! the codex models speak. Nothing is stored on OpenAI's side (`store: false`): every request
//! carries the whole conversation as input items, and the model's reasoning travels back as
//! the encrypted items it streamed, placed before the calls they led to.

mod decode;
mod input;

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod decode_tests;

use serde_json::{Value, json};

use super::ChatRequest;
use super::streaming::StreamingProvider;
use super::wire::{BodyFn, DecodeFn, Wire};

/// The Responses protocol: the key as a bearer token, `/responses` after the base URL.
#[derive(Debug, Clone, Copy)]
pub struct ResponsesWire;

/// A provider speaking OpenAI's Responses API. Its base URL ends before `/responses`, like
/// chat completions', e.g. `http://127.0.0.1:8080/v1`.
pub type OpenAiResponses = StreamingProvider<ResponsesWire>;

impl Wire for ResponsesWire {
    const NAME: &'static str = "openai";
    const PATH: &'static str = "/responses";
    const BODY: BodyFn = request_body;
    const DECODE: DecodeFn = decode::decode;
}

/// The JSON body of a streamed Responses request.
pub(crate) fn request_body(req: &ChatRequest) -> Value {
    let mut body = json!({
        "model": req.model,
        "input": input::items(&req.messages),
        "stream": true,
        // Nothing is kept between requests, so reasoning must come back encrypted to be sent
        // again; `previous_response_id` is never used.
        "store": false,
        "include": ["reasoning.encrypted_content"],
    });
    if !req.system.is_empty() {
        body["instructions"] = json!(req.system);
    }
    if !req.tools.is_empty() {
        body["tools"] = req
            .tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                    // Strict mode would reject our schemas' optional parameters.
                    "strict": false,
                })
            })
            .collect();
    }
    if let Some(effort) = &req.reasoning.effort {
        body["reasoning"] = json!({"effort": effort, "summary": "auto"});
    }
    if let Some(max) = req.max_tokens {
        body["max_output_tokens"] = json!(max);
    }
    if let Some(t) = req.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(key) = &req.cache_key {
        body["prompt_cache_key"] = json!(key);
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{
        ChatMessage, Media, Provider, Reasoning, ReasoningBlock, ReasoningItem, ToolCall, ToolSpec,
    };

    fn block(text: &str, item: Option<(&str, &str)>, signature: Option<&str>) -> ReasoningBlock {
        ReasoningBlock {
            text: text.into(),
            signature: signature.map(str::to_string),
            redacted: None,
            item: item.map(|(id, encrypted)| ReasoningItem {
                id: id.into(),
                encrypted_content: encrypted.into(),
            }),
        }
    }

    fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
            meta: None,
        }
    }

    fn result(id: &str, output: &str, media: Vec<Media>) -> ChatMessage {
        ChatMessage::ToolResult {
            call_id: id.into(),
            name: "read".into(),
            output: output.into(),
            is_error: false,
            media,
        }
    }

    #[test]
    fn a_whole_request_with_reasoning_items_calls_results_and_files() {
        let png = Media {
            mime: "image/png".into(),
            url: "data:image/png;base64,iVBO".into(),
            filename: Some("shot.png".into()),
        };
        let req = ChatRequest {
            model: "gpt-5-codex".into(),
            system: "Be brief.".into(),
            messages: vec![
                ChatMessage::user("Look at shot.png and a.txt."),
                ChatMessage::Assistant {
                    text: "Reading both.".into(),
                    tool_calls: vec![
                        call("call_1", "read", r#"{"filePath":"shot.png"}"#),
                        call("call_2", "read", r#"{"filePath":"a.txt"}"#),
                    ],
                    reasoning: vec![
                        block(
                            "**Reading**\n\nBoth files first.",
                            Some(("rs_1", "enc-1")),
                            None,
                        ),
                        block("", Some(("rs_2", "enc-2")), None),
                        block("from Anthropic", None, Some("sig")),
                    ],
                },
                result("call_1", "Image read.", vec![png]),
                result("call_2", "alpha", vec![]),
                ChatMessage::assistant("A picture and alpha.", vec![]),
                ChatMessage::user("Thanks."),
            ],
            tools: vec![ToolSpec {
                name: "read".into(),
                description: "Reads a file.".into(),
                parameters: json!({"type": "object", "properties": {"filePath": {"type": "string"}}}),
            }],
            max_tokens: Some(4096),
            reasoning: Reasoning {
                effort: Some("high".into()),
                budget_tokens: None,
            },
            temperature: Some(0.5),
            cache_key: Some("ses_1".into()),
            interleaved: None,
            no_cache: false,
        };
        insta::assert_json_snapshot!(request_body(&req));
    }

    #[test]
    fn unset_fields_send_nothing_and_the_key_is_a_bearer_token() {
        let req = ChatRequest {
            model: "m".into(),
            messages: vec![ChatMessage::user("hi")],
            ..Default::default()
        };
        let body = request_body(&req);
        for absent in [
            "instructions",
            "tools",
            "reasoning",
            "max_output_tokens",
            "temperature",
            "prompt_cache_key",
            "previous_response_id",
        ] {
            assert!(body.get(absent).is_none(), "{absent} in {body}");
        }
        assert_eq!(body["store"], false);
        assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
        let p = OpenAiResponses::new("http://127.0.0.1:9/v1/", Some("sk-1".into())).unwrap();
        assert_eq!(p.base_url(), "http://127.0.0.1:9/v1");
        assert_eq!(
            p.headers().unwrap()[reqwest::header::AUTHORIZATION],
            "Bearer sk-1"
        );
        let keyless = OpenAiResponses::new("http://127.0.0.1:9/v1", None).unwrap();
        assert!(keyless.headers().unwrap().is_empty());
    }
}
