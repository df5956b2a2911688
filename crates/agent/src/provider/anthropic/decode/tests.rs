//! Tests of the Messages decoder: small inline streams, one rule each.

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
            arguments: "{\"filePath\": \"a.txt\"}".into(),
            meta: None,
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

/// A stream of the given chunks, each framed with its own `type` as the event name.
fn chunks(lines: &[&str]) -> String {
    lines
        .iter()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            format!("event: {}\ndata: {line}\n\n", v["type"].as_str().unwrap())
        })
        .collect()
}

const START: &str = r#"{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":5,"output_tokens":1}}}"#;
const STOP: &str = r#"{"type":"message_stop"}"#;

fn ready_calls(events: &[StreamEvent]) -> Vec<ToolCall> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallReady(c) => Some(c.clone()),
            _ => None,
        })
        .collect()
}

fn text_of(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn server_side_blocks_are_not_calls_and_the_text_around_them_is_kept() {
    let body = chunks(&[
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Searching. "}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"query\": \"rust\"}"}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        r#"{"type":"content_block_start","index":2,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}}"#,
        r#"{"type":"content_block_stop","index":2}"#,
        r#"{"type":"content_block_start","index":3,"content_block":{"type":"mcp_tool_use","id":"mcptoolu_1","name":"echo","server_name":"s","input":{}}}"#,
        r#"{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{}"}}"#,
        r#"{"type":"content_block_stop","index":3}"#,
        r#"{"type":"content_block_start","index":4,"content_block":{"type":"mcp_tool_result","tool_use_id":"mcptoolu_1","is_error":false,"content":[]}}"#,
        r#"{"type":"content_block_stop","index":4}"#,
        r#"{"type":"content_block_start","index":5,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"content_block_delta","index":5,"delta":{"type":"citations_delta","citation":{"type":"web_search_result_location"}}}"#,
        r#"{"type":"content_block_delta","index":5,"delta":{"type":"text_delta","text":"Found it."}}"#,
        r#"{"type":"content_block_stop","index":5}"#,
        r#"{"type":"content_block_start","index":6,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}"#,
        r#"{"type":"content_block_delta","index":6,"delta":{"type":"input_json_delta","partial_json":"{\"filePath\":\"a\"}"}}"#,
        r#"{"type":"content_block_stop","index":6}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}"#,
        STOP,
    ]);
    let (events, err) = decode(&body);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(text_of(&events), "Searching. Found it.");
    let started: Vec<&StreamEvent> = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::ToolCallStarted { .. }))
        .collect();
    assert_eq!(started.len(), 1, "{events:?}");
    assert_eq!(
        ready_calls(&events),
        vec![ToolCall {
            id: "toolu_1".into(),
            name: "read".into(),
            arguments: "{\"filePath\":\"a\"}".into(),
            meta: None,
        }]
    );
}

#[test]
fn a_tool_use_without_arguments_gets_an_empty_object() {
    let body = chunks(&[
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_2","name":"todoread","input":{}}}"#,
        r#"{"type":"ping"}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":4}}"#,
        STOP,
    ]);
    let (events, err) = decode(&body);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(ready_calls(&events)[0].arguments, "{}");
}

#[test]
fn the_final_usage_replaces_the_starts_cache_counts_included() {
    let body = chunks(&[
        r#"{"type":"message_start","message":{"id":"m","usage":{"input_tokens":2,"cache_creation_input_tokens":3068,"cache_read_input_tokens":0,"output_tokens":69}}}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":6,"cache_creation_input_tokens":3337,"cache_read_input_tokens":6289,"output_tokens":198}}"#,
        STOP,
    ]);
    let (events, err) = decode(&body);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        events.last(),
        Some(&StreamEvent::Finish {
            reason: FinishReason::Stop,
            usage: Some(Usage {
                input_tokens: 6,
                output_tokens: 198,
                reasoning_tokens: 0,
                cache_read_tokens: 6289,
                cache_write_tokens: 3337,
            })
        })
    );
}

#[test]
fn a_repeated_message_start_is_ignored() {
    let body = chunks(&[
        START,
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}"#,
        STOP,
    ]);
    let (events, err) = decode(&body);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        events,
        vec![
            StreamEvent::TextDelta("Hello".into()),
            StreamEvent::Finish {
                reason: FinishReason::Stop,
                usage: Some(Usage::new(5, 3))
            },
        ]
    );
}

#[test]
fn another_messages_start_while_one_is_open_interrupts_the_stream() {
    let body = chunks(&[
        START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_a","name":"bash","input":{}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"command\":\"ls\"}"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_b","name":"read","input":{}}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"file"}}"#,
        r#"{"type":"message_start","message":{"id":"msg_2","usage":{"input_tokens":5,"output_tokens":1}}}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}"#,
        STOP,
    ]);
    let (events, err) = decode(&body);
    assert_eq!(ready_calls(&events).len(), 1, "the first call was complete");
    let err = err.expect("an error");
    assert!(err.retryable(), "{err}");
    assert_eq!(err.interrupted_call_ids(), ["toolu_b".to_string()]);
    let text = err.to_string();
    assert!(text.contains("msg_2") && text.contains("msg_1"), "{text}");
}

#[test]
fn an_error_event_that_is_not_transient_carries_the_vendors_message() {
    let body = chunks(&[
        START,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"tools.0: name is too long"}}"#,
    ]);
    let err = decode(&body).1.expect("an error");
    assert!(!err.retryable(), "{err}");
    assert!(
        err.to_string().contains("tools.0: name is too long"),
        "{err}"
    );
}
