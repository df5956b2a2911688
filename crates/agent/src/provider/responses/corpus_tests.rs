//! The real Responses streams recorded by a third party (`tests/wire-corpus/responses__*`, see
//! its NOTICE) decode without error into what each recording holds. Every expectation is read
//! from the recording itself: its deltas concatenated, its finished items, its usage.

use serde_json::Value;

use crate::provider::http::decode_all;
use crate::provider::{ProviderError, ReasoningItem, ResponsesWire, StreamEvent, ToolCall};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/wire-corpus");

/// The recording's chunks, up to its first `response.completed` (as a replay serves it).
fn chunks(name: &str) -> Vec<Value> {
    let path = format!("{CORPUS}/responses__{name}.chunks.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let chunk: Value = serde_json::from_str(line).unwrap();
        let last = chunk["type"] == "response.completed";
        out.push(chunk);
        if last {
            break;
        }
    }
    out
}

/// Serves the chunks as the API does and decodes them.
fn replay(chunks: &[Value]) -> (Vec<StreamEvent>, Option<ProviderError>) {
    let body: String = chunks
        .iter()
        .map(|c| format!("event: {}\ndata: {c}\n\n", c["type"].as_str().unwrap()))
        .collect();
    decode_all::<ResponsesWire>("http://127.0.0.1:1/v1/responses", &body)
}

/// The deltas of events of `kind`, joined per group (`group` names a delta's group), the
/// groups joined by a blank line.
fn joined(chunks: &[Value], kind: &str, group: impl Fn(&Value) -> String) -> String {
    let mut groups: Vec<(String, String)> = Vec::new();
    for c in chunks.iter().filter(|c| c["type"] == kind) {
        let key = group(c);
        let delta = c["delta"].as_str().unwrap();
        match groups.last_mut() {
            Some((last, text)) if *last == key => text.push_str(delta),
            _ => groups.push((key, delta.to_string())),
        }
    }
    let texts: Vec<String> = groups.into_iter().map(|(_, t)| t).collect();
    texts.join("\n\n")
}

fn finished_items<'a>(chunks: &'a [Value], kind: &str) -> Vec<&'a Value> {
    chunks
        .iter()
        .filter(|c| c["type"] == "response.output_item.done" && c["item"]["type"] == kind)
        .map(|c| &c["item"])
        .collect()
}

fn decoded_text(events: &[StreamEvent], reasoning: bool) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta(t) if !reasoning => Some(t.as_str()),
            StreamEvent::ReasoningDelta(t) if reasoning => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// Checks a recording that ends with `response.completed`: text, reasoning, reasoning items,
/// calls and usage as the recording holds them.
fn check_completed(name: &str) {
    let chunks = chunks(name);
    let (events, err) = replay(&chunks);
    assert!(err.is_none(), "{name}: {err:?}");

    let text = joined(&chunks, "response.output_text.delta", |c| {
        c["item_id"].to_string()
    });
    assert_eq!(decoded_text(&events, false), text, "{name}: text");
    let reasoning = joined(&chunks, "response.reasoning_summary_text.delta", |c| {
        format!("{}/{}", c["item_id"], c["summary_index"])
    });
    assert_eq!(decoded_text(&events, true), reasoning, "{name}: reasoning");

    let items: Vec<ReasoningItem> = finished_items(&chunks, "reasoning")
        .into_iter()
        .map(|i| ReasoningItem {
            id: i["id"].as_str().unwrap().into(),
            encrypted_content: i["encrypted_content"].as_str().unwrap().into(),
        })
        .collect();
    let decoded_items: Vec<ReasoningItem> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ReasoningEnd { item, .. } => item.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(decoded_items, items, "{name}: reasoning items");

    let calls: Vec<ToolCall> = finished_items(&chunks, "function_call")
        .into_iter()
        .map(|i| ToolCall {
            id: i["call_id"].as_str().unwrap().into(),
            name: i["name"].as_str().unwrap().into(),
            arguments: i["arguments"].as_str().unwrap().into(),
            meta: None,
        })
        .collect();
    let ready: Vec<ToolCall> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallReady(c) => Some(c.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(ready, calls, "{name}: calls");

    let usage = &chunks.last().unwrap()["response"]["usage"];
    let count = |p: &str| usage.pointer(p).and_then(Value::as_u64).unwrap();
    let Some(StreamEvent::Finish {
        usage: Some(got), ..
    }) = events.last()
    else {
        panic!("{name}: no finish with usage: {:?}", events.last());
    };
    let cached = count("/input_tokens_details/cached_tokens");
    assert_eq!(
        got.input_tokens + got.cache_read_tokens,
        count("/input_tokens")
    );
    assert_eq!(got.cache_read_tokens, cached, "{name}");
    assert_eq!(got.output_tokens, count("/output_tokens"), "{name}");
    assert_eq!(
        got.reasoning_tokens,
        count("/output_tokens_details/reasoning_tokens"),
        "{name}"
    );
}

#[test]
fn a_recorded_function_call_decodes_to_the_call_it_holds() {
    check_completed("openai-client-tool-search.2");
}

#[test]
fn a_recorded_commentary_and_answer_decode_to_their_text_and_cached_usage() {
    check_completed("openai-phase.1");
}

#[test]
fn a_recorded_reasoning_item_keeps_its_encrypted_content_for_the_next_request() {
    check_completed("openai-reasoning-encrypted-content.1");
}

#[test]
fn a_recorded_plain_answer_decodes_to_its_text() {
    check_completed("openai-shell-container-multiturn.1");
}

#[test]
fn a_recorded_error_event_is_an_api_error_with_the_vendors_code() {
    let chunks = chunks("openai-error.1");
    let (_, err) = replay(&chunks);
    let error = &chunks.iter().find(|c| c["type"] == "error").unwrap()["error"];
    match err {
        Some(e @ ProviderError::Api { .. }) => {
            let ProviderError::Api { kind, message, .. } = &e else {
                unreachable!()
            };
            assert_eq!(kind, error["code"].as_str().unwrap());
            assert_eq!(message, error["message"].as_str().unwrap());
            assert!(!e.retryable(), "a spent quota does not come back on retry");
        }
        other => panic!("expected Api, got {other:?}"),
    }
}
