//! Decoding Messages stream events into neutral events.
//!
//! `message_start` carries input usage; each content block opens with `content_block_start`
//! (`text`, `thinking`, `redacted_thinking`, or `tool_use` with id and name), grows with
//! `content_block_delta` (`text_delta`, `thinking_delta`, `signature_delta`,
//! `input_json_delta`) and closes with `content_block_stop`; `message_delta` carries the stop
//! reason and output usage; `message_stop` ends the response. `ping` is ignored and `error`
//! surfaces as [`ProviderError::Api`].

use serde_json::Value;

use crate::provider::sse::SseEvent;
use crate::provider::{DecodeState, FinishReason, ProviderError, StreamEvent, Usage};

/// Adds a usage report to the totals.
fn add_usage(state: &mut DecodeState, usage: Option<&Value>) {
    let Some(usage) = usage.filter(|u| u.is_object()) else {
        return;
    };
    let count = |k: &str| usage.get(k).and_then(Value::as_u64);
    let total = state.usage.get_or_insert_with(Usage::default);
    // Later events report running totals; a zero input count (some gateways) keeps the old.
    if let Some(input) = count("input_tokens").filter(|n| *n > 0) {
        total.input_tokens = input;
    }
    if let Some(output) = count("output_tokens") {
        total.output_tokens = output;
    }
    if let Some(read) = count("cache_read_input_tokens").filter(|n| *n > 0) {
        total.cache_read_tokens = read;
    }
    if let Some(write) = count("cache_creation_input_tokens").filter(|n| *n > 0) {
        total.cache_write_tokens = write;
    }
}

fn stop_reason(text: &str) -> FinishReason {
    match text {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "tool_use" => FinishReason::ToolCalls,
        "max_tokens" => FinishReason::Length,
        other => FinishReason::Other(other.to_string()),
    }
}

/// Handles one event of the stream.
pub(super) fn decode(
    ev: SseEvent,
    state: &mut DecodeState,
    out: &mut Vec<StreamEvent>,
) -> Result<(), ProviderError> {
    if ev.data.trim().is_empty() {
        return Ok(());
    }
    let data: Value = serde_json::from_str(&ev.data).map_err(|e| ProviderError::Decode {
        url: state.url.clone(),
        detail: format!(
            "an event is not JSON ({e}): {}",
            ev.data.chars().take(200).collect::<String>()
        ),
    })?;
    let kind = data
        .get("type")
        .and_then(Value::as_str)
        .or(ev.event.as_deref())
        .unwrap_or_default();
    let slot = data.get("index").and_then(Value::as_u64).unwrap_or(0);
    let str_of = |v: Option<&Value>, k: &str| {
        v.and_then(|v| v.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    match kind {
        "message_start" => add_usage(state, data.get("message").and_then(|m| m.get("usage"))),
        "content_block_start" => {
            let block = data.get("content_block");
            match str_of(block, "type").as_deref() {
                Some("text") => {
                    if let Some(text) = str_of(block, "text").filter(|t| !t.is_empty()) {
                        out.push(StreamEvent::TextDelta(text));
                    }
                }
                Some("thinking") => {
                    state.reasoning = Some((slot, str_of(block, "signature").unwrap_or_default()));
                    if let Some(text) = str_of(block, "thinking").filter(|t| !t.is_empty()) {
                        out.push(StreamEvent::ReasoningDelta(text));
                    }
                }
                Some("redacted_thinking") => {
                    out.push(StreamEvent::RedactedReasoning(
                        str_of(block, "data").unwrap_or_default(),
                    ));
                }
                Some("tool_use") => {
                    let id = str_of(block, "id");
                    let name = str_of(block, "name");
                    // Streamed blocks start with `input: {}`; a gateway may send it whole.
                    let input = block
                        .and_then(|b| b.get("input"))
                        .filter(|i| i.as_object().is_some_and(|o| !o.is_empty()))
                        .map(Value::to_string);
                    out.extend(state.calls.push(
                        slot,
                        id.as_deref(),
                        name.as_deref(),
                        input.as_deref(),
                    ));
                }
                _ => {}
            }
        }
        "content_block_delta" => {
            let delta = data.get("delta");
            match str_of(delta, "type").as_deref() {
                Some("text_delta") => {
                    if let Some(text) = str_of(delta, "text").filter(|t| !t.is_empty()) {
                        out.push(StreamEvent::TextDelta(text));
                    }
                }
                Some("thinking_delta") => {
                    if let Some(text) = str_of(delta, "thinking").filter(|t| !t.is_empty()) {
                        out.push(StreamEvent::ReasoningDelta(text));
                    }
                }
                Some("signature_delta") => {
                    if let (Some((_, signature)), Some(part)) =
                        (&mut state.reasoning, str_of(delta, "signature"))
                    {
                        signature.push_str(&part);
                    }
                }
                Some("input_json_delta") => {
                    let part = str_of(delta, "partial_json");
                    out.extend(state.calls.push(slot, None, None, part.as_deref()));
                }
                _ => {}
            }
        }
        "content_block_stop" => match state.reasoning.take() {
            Some((open, signature)) if open == slot => out.push(StreamEvent::ReasoningEnd {
                signature: Some(signature).filter(|s| !s.is_empty()),
                item: None,
            }),
            other => {
                state.reasoning = other;
                out.extend(state.calls.complete(slot));
            }
        },
        "message_delta" => {
            if let Some(reason) = str_of(data.get("delta"), "stop_reason") {
                state.reason = Some(stop_reason(&reason));
            }
            add_usage(state, data.get("usage"));
        }
        "message_stop" => state.done = true,
        "error" => {
            let err = data.get("error");
            return Err(ProviderError::Api {
                url: state.url.clone(),
                kind: str_of(err, "type").unwrap_or_else(|| "error".into()),
                message: str_of(err, "message").unwrap_or_else(|| data.to_string()),
            });
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::AnthropicWire;
    use crate::provider::ToolCall;
    use crate::provider::http::decode_all;

    fn decode(body: &str) -> (Vec<StreamEvent>, Option<ProviderError>) {
        decode_all::<AnthropicWire>("http://127.0.0.1:1/v1/messages", body)
    }

    fn sse(events: &[(&str, &str)]) -> String {
        events
            .iter()
            .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
            .collect()
    }

    #[test]
    fn text_and_a_tool_use_block_with_usage() {
        let body = sse(&[
            (
                "message_start",
                r#"{"type":"message_start","message":{"id":"m","usage":{"input_tokens":9,"output_tokens":1}}}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            ),
            ("ping", r#"{"type":"ping"}"#),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Reading."}}"#,
            ),
            (
                "content_block_stop",
                r#"{"type":"content_block_stop","index":0}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"filePath\": "}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"a.txt\"}"}}"#,
            ),
            (
                "content_block_stop",
                r#"{"type":"content_block_stop","index":1}"#,
            ),
            (
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":30}}"#,
            ),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ]);
        let (events, err) = decode(&body);
        assert!(err.is_none(), "{err:?}");
        assert_eq!(events[0], StreamEvent::TextDelta("Reading.".into()));
        let ready_at = events
            .iter()
            .position(|e| matches!(e, StreamEvent::ToolCallReady(_)))
            .unwrap();
        assert_eq!(
            events[ready_at],
            StreamEvent::ToolCallReady(ToolCall {
                id: "toolu_1".into(),
                name: "read".into(),
                arguments: "{\"filePath\": \"a.txt\"}".into()
            })
        );
        assert_eq!(
            events.last(),
            Some(&StreamEvent::Finish {
                reason: FinishReason::ToolCalls,
                usage: Some(Usage::new(9, 30))
            })
        );
    }

    #[test]
    fn thinking_blocks_stream_with_their_signature_and_redacted_ones_whole() {
        let body = sse(&[
            (
                "message_start",
                r#"{"type":"message_start","message":{"usage":{"input_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":20,"output_tokens":1}}}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me see."}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqSig=="}}"#,
            ),
            (
                "content_block_stop",
                r#"{"type":"content_block_stop","index":0}"#,
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"opaque"}}"#,
            ),
            (
                "content_block_stop",
                r#"{"type":"content_block_stop","index":1}"#,
            ),
            (
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":12}}"#,
            ),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ]);
        let (events, err) = decode(&body);
        assert!(err.is_none(), "{err:?}");
        assert_eq!(
            events,
            vec![
                StreamEvent::ReasoningDelta("Let me see.".into()),
                StreamEvent::ReasoningEnd {
                    signature: Some("EqSig==".into()),
                    item: None,
                },
                StreamEvent::RedactedReasoning("opaque".into()),
                StreamEvent::Finish {
                    reason: FinishReason::Stop,
                    usage: Some(Usage {
                        input_tokens: 5,
                        output_tokens: 12,
                        reasoning_tokens: 0,
                        cache_read_tokens: 100,
                        cache_write_tokens: 20,
                    })
                },
            ]
        );
    }

    #[test]
    fn cut_inside_a_tool_block_is_interrupted() {
        let body = sse(&[
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_9","name":"bash","input":{}}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"command\""}}"#,
            ),
        ]);
        let (_, err) = decode(&body);
        assert_eq!(
            err.as_ref().map(|e| e.interrupted_call_ids().to_vec()),
            Some(vec!["toolu_9".to_string()]),
            "{err:?}"
        );
    }

    #[test]
    fn an_error_event_and_stop_reasons() {
        let body = sse(&[(
            "error",
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        )]);
        match decode(&body).1 {
            Some(e @ ProviderError::Api { .. }) => assert!(e.retryable()),
            other => panic!("expected Api, got {other:?}"),
        }
        assert_eq!(stop_reason("end_turn"), FinishReason::Stop);
        assert_eq!(stop_reason("max_tokens"), FinishReason::Length);
        assert_eq!(
            stop_reason("refusal"),
            FinishReason::Other("refusal".into())
        );
    }
}
