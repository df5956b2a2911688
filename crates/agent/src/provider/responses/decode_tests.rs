//! Unit tests of the Responses decoder over hand-written event streams.

use serde_json::{Value, json};

use crate::provider::http::decode_all;
use crate::provider::{
    FinishReason, ProviderError, ReasoningItem, ResponsesWire, StreamEvent, ToolCall, Usage,
};

/// Frames `events` as the API sends them (`event:` naming each one's `type`) and decodes them.
fn decode(events: &[Value]) -> (Vec<StreamEvent>, Option<ProviderError>) {
    let body: String = events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect();
    decode_all::<ResponsesWire>("http://127.0.0.1:1/v1/responses", &body)
}

fn added(index: u64, item: Value) -> Value {
    json!({"type": "response.output_item.added", "output_index": index, "item": item})
}

fn done(index: u64, item: Value) -> Value {
    json!({"type": "response.output_item.done", "output_index": index, "item": item})
}

fn text(item: &str, delta: &str) -> Value {
    json!({"type": "response.output_text.delta", "item_id": item, "output_index": 0, "content_index": 0, "delta": delta})
}

fn args(item: &str, index: u64, delta: &str) -> Value {
    json!({"type": "response.function_call_arguments.delta", "item_id": item, "output_index": index, "delta": delta})
}

fn call_item(id: &str, call_id: &str, arguments: &str) -> Value {
    json!({"type": "function_call", "id": id, "call_id": call_id, "name": "read", "arguments": arguments})
}

fn completed(usage: Value) -> Value {
    json!({"type": "response.completed", "response": {"status": "completed", "usage": usage}})
}

fn ready(id: &str, arguments: &str) -> StreamEvent {
    StreamEvent::ToolCallReady(ToolCall {
        id: id.into(),
        name: "read".into(),
        arguments: arguments.into(),
        meta: None,
    })
}

#[test]
fn text_then_usage_less_the_cached_input() {
    let (events, err) = decode(&[
        json!({"type": "response.created", "response": {"status": "in_progress"}}),
        added(0, json!({"type": "message", "id": "msg_1", "content": []})),
        text("msg_1", "Hel"),
        text("msg_1", "lo"),
        json!({"type": "response.output_text.done", "item_id": "msg_1", "text": "Hello"}),
        completed(json!({
            "input_tokens": 100, "input_tokens_details": {"cached_tokens": 60},
            "output_tokens": 40, "output_tokens_details": {"reasoning_tokens": 30},
        })),
    ]);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        events,
        vec![
            StreamEvent::TextDelta("Hel".into()),
            StreamEvent::TextDelta("lo".into()),
            StreamEvent::Finish {
                reason: FinishReason::Stop,
                usage: Some(Usage {
                    input_tokens: 40,
                    output_tokens: 40,
                    reasoning_tokens: 30,
                    cache_read_tokens: 60,
                    cache_write_tokens: 0,
                }),
            },
        ]
    );
}

#[test]
fn a_reasoning_item_then_a_call_keyed_by_its_item_id() {
    let summary = |index: u64, delta: &str| json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0, "summary_index": index, "delta": delta});
    let (events, err) = decode(&[
        added(0, json!({"type": "reasoning", "id": "rs_1", "summary": []})),
        summary(0, "**Plan**"),
        summary(1, "Read "),
        summary(1, "it."),
        done(
            0,
            json!({"type": "reasoning", "id": "rs_1", "encrypted_content": "enc-1", "summary": []}),
        ),
        added(1, call_item("fc_1", "call_A", "")),
        args("fc_1", 1, "{\"filePath\":"),
        args("fc_1", 1, "\"a.txt\"}"),
        done(1, call_item("fc_1", "call_A", "{\"filePath\":\"a.txt\"}")),
        completed(json!({"input_tokens": 5, "output_tokens": 9})),
    ]);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        events,
        vec![
            StreamEvent::ReasoningDelta("**Plan**".into()),
            StreamEvent::ReasoningDelta("\n\nRead ".into()),
            StreamEvent::ReasoningDelta("it.".into()),
            StreamEvent::ReasoningEnd {
                signature: None,
                item: Some(ReasoningItem {
                    id: "rs_1".into(),
                    encrypted_content: "enc-1".into()
                }),
            },
            StreamEvent::ToolCallStarted {
                id: "call_A".into(),
                name: "read".into()
            },
            StreamEvent::ToolCallDelta {
                id: "call_A".into(),
                delta: "{\"filePath\":".into()
            },
            StreamEvent::ToolCallDelta {
                id: "call_A".into(),
                delta: "\"a.txt\"}".into()
            },
            ready("call_A", "{\"filePath\":\"a.txt\"}"),
            StreamEvent::Finish {
                reason: FinishReason::ToolCalls,
                usage: Some(Usage::new(5, 9)),
            },
        ]
    );
}

#[test]
fn the_item_restated_at_its_end_has_the_arguments_that_count() {
    let (events, err) = decode(&[
        added(0, call_item("fc_1", "call_A", "")),
        args("fc_1", 0, "{\"filePath\":\"b"),
        // A delta for an item never announced as a call is not a call.
        args("fc_unknown", 5, "{}"),
        done(0, call_item("fc_1", "call_A", "{\"filePath\":\"a.txt\"}")),
        // Announced only when done: the item alone is the call.
        done(1, call_item("fc_2", "call_B", "{}")),
        completed(json!({})),
    ]);
    assert!(err.is_none(), "{err:?}");
    let calls: Vec<&StreamEvent> = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::ToolCallReady(_)))
        .collect();
    assert_eq!(
        calls,
        [
            &ready("call_A", "{\"filePath\":\"a.txt\"}"),
            &ready("call_B", "{}")
        ]
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, StreamEvent::ToolCallStarted { .. }))
            .count(),
        2
    );
}

#[test]
fn a_second_message_starts_after_a_blank_line_unless_something_came_between() {
    let (events, err) = decode(&[
        text("msg_1", "Checking."),
        text("msg_2", "Found it."),
        added(2, call_item("fc_1", "call_A", "{}")),
        done(2, call_item("fc_1", "call_A", "{}")),
        text("msg_3", "Done."),
        completed(json!({})),
    ]);
    assert!(err.is_none(), "{err:?}");
    let texts: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["Checking.", "\n\nFound it.", "Done."]);
}

/// Only a call or reasoning text starts a part between two messages; after anything else
/// (a search the vendor ran, a reasoning item with nothing to show) the texts share a part and
/// need the blank line.
#[test]
fn messages_keep_their_blank_line_across_items_that_start_no_part() {
    let search = json!({"type": "web_search_call", "id": "ws_1", "status": "completed"});
    let hidden =
        json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"});
    let summary = |delta: &str| json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_2", "summary_index": 0, "delta": delta});
    let (events, err) = decode(&[
        added(0, json!({"type": "message", "id": "msg_1"})),
        text("msg_1", "Searching."),
        added(1, search.clone()),
        done(1, search),
        added(2, json!({"type": "message", "id": "msg_2"})),
        text("msg_2", "Found it."),
        added(3, hidden.clone()),
        done(3, hidden),
        text("msg_3", "Thinking done."),
        added(4, json!({"type": "reasoning", "id": "rs_2"})),
        summary("Why."),
        text("msg_4", "Answer."),
        completed(json!({})),
    ]);
    assert!(err.is_none(), "{err:?}");
    let texts: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        texts,
        [
            "Searching.",
            "\n\nFound it.",
            "\n\nThinking done.",
            "Answer."
        ]
    );
}

#[test]
fn vendor_side_items_and_unknown_events_are_not_local_calls() {
    let (events, err) = decode(&[
        added(
            0,
            json!({"type": "web_search_call", "id": "ws_1", "status": "in_progress"}),
        ),
        json!({"type": "response.web_search_call.searching", "item_id": "ws_1"}),
        done(
            0,
            json!({"type": "web_search_call", "id": "ws_1", "status": "completed"}),
        ),
        added(
            1,
            json!({"type": "shell_call", "id": "sh_1", "call_id": "call_S", "action": {}}),
        ),
        done(
            1,
            json!({"type": "shell_call", "id": "sh_1", "call_id": "call_S", "action": {}}),
        ),
        json!({"type": "response.something_new", "x": 1}),
        text("msg_1", "ok"),
        completed(Value::Null),
    ]);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        events,
        vec![
            StreamEvent::TextDelta("ok".into()),
            StreamEvent::Finish {
                reason: FinishReason::Stop,
                usage: None
            },
        ]
    );
}

#[test]
fn an_incomplete_response_says_why() {
    let incomplete = |reason: &str| {
        json!({"type": "response.incomplete", "response": {
            "status": "incomplete", "incomplete_details": {"reason": reason},
            "usage": {"input_tokens": 3, "output_tokens": 4},
        }})
    };
    let (events, err) = decode(&[text("msg_1", "Half"), incomplete("max_output_tokens")]);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        events.last(),
        Some(&StreamEvent::Finish {
            reason: FinishReason::Length,
            usage: Some(Usage::new(3, 4)),
        })
    );
    let (events, _) = decode(&[incomplete("content_filter")]);
    assert!(matches!(
        events.last(),
        Some(StreamEvent::Finish { reason: FinishReason::Other(r), .. }) if r == "content_filter"
    ));
    // Cut inside a call's arguments: the call cannot run.
    let (_, err) = decode(&[
        added(0, call_item("fc_1", "call_A", "")),
        args("fc_1", 0, "{\"file"),
        incomplete("max_output_tokens"),
    ]);
    assert_eq!(
        err.as_ref().map(|e| e.interrupted_call_ids().to_vec()),
        Some(vec!["call_A".to_string()]),
        "{err:?}"
    );
}

#[test]
fn errors_carry_the_vendors_code_and_message() {
    let api = |events: &[Value]| match decode(events).1 {
        Some(ProviderError::Api { kind, message, .. }) => (kind, message),
        other => panic!("expected Api, got {other:?}"),
    };
    assert_eq!(
        api(&[
            text("msg_1", "Hi"),
            json!({"type": "error", "code": "server_error", "message": "try again", "param": null}),
        ]),
        ("server_error".into(), "try again".into())
    );
    assert_eq!(
        api(&[
            json!({"type": "error", "error": {"type": "invalid_request_error", "code": null, "message": "bad"}})
        ]),
        ("invalid_request_error".into(), "bad".into())
    );
    assert_eq!(
        api(&[
            json!({"type": "response.failed", "response": {"status": "failed", "error": {"code": "rate_limit_exceeded", "message": "slow down"}}})
        ]),
        ("rate_limit_exceeded".into(), "slow down".into())
    );
    let (kind, message) =
        api(&[json!({"type": "response.failed", "response": {"status": "failed"}})]);
    assert_eq!(kind, "response.failed");
    assert!(message.contains("no message"), "{message}");
    let retryable = |events: &[Value]| decode(events).1.unwrap().retryable();
    assert!(retryable(&[
        json!({"type": "error", "code": "server_error", "message": "x"})
    ]));
    assert!(!retryable(&[
        json!({"type": "error", "code": "invalid_prompt", "message": "x"})
    ]));
}

#[test]
fn a_cut_stream_is_interrupted_naming_the_call_id_and_bad_json_is_a_decode_error() {
    let (events, err) = decode(&[
        text("msg_1", "Running."),
        added(1, call_item("fc_9", "call_9", "")),
        args("fc_9", 1, "{\"comm"),
    ]);
    assert_eq!(events[0], StreamEvent::TextDelta("Running.".into()));
    match err {
        Some(ProviderError::Interrupted { call_ids, url, .. }) => {
            assert_eq!(call_ids, ["call_9".to_string()]);
            assert!(url.ends_with("/responses"), "{url}");
        }
        other => panic!("expected Interrupted, got {other:?}"),
    }
    let (_, err) = decode_all::<ResponsesWire>("u", "event: x\ndata: {nope\n\n");
    assert!(matches!(err, Some(ProviderError::Decode { .. })), "{err:?}");
}

#[test]
fn a_refusal_reads_as_text_and_raw_reasoning_as_reasoning() {
    let (events, err) = decode(&[
        json!({"type": "response.reasoning_text.delta", "item_id": "rs_1", "output_index": 0, "content_index": 0, "delta": "Hmm."}),
        json!({"type": "response.refusal.delta", "item_id": "msg_1", "output_index": 1, "content_index": 0, "delta": "I can't help with that."}),
        completed(Value::Null),
    ]);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        events[..2],
        [
            StreamEvent::ReasoningDelta("Hmm.".into()),
            StreamEvent::TextDelta("I can't help with that.".into()),
        ]
    );
}
