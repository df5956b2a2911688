//! Unit tests of the chat-completions decoder over hand-written streams.

use super::*;
use crate::provider::http::decode_all;
use crate::provider::{OpenAiWire, ToolCall, Usage};

/// Runs `body` through the parser and decoder as the driver would.
fn decode(body: &str) -> (Vec<StreamEvent>, Option<ProviderError>) {
    decode_all::<OpenAiWire>("http://127.0.0.1:1/v1/chat/completions", body)
}

#[test]
fn text_then_usage_then_done() {
    let body = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}\n\n",
        "data: [DONE]\n\n",
    );
    let (events, err) = decode(body);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        events,
        vec![
            StreamEvent::TextDelta("Hel".into()),
            StreamEvent::TextDelta("lo".into()),
            StreamEvent::Finish {
                reason: FinishReason::Stop,
                usage: Some(Usage::new(5, 2))
            },
        ]
    );
}

#[test]
fn reasoning_deltas_and_detailed_usage() {
    let body = concat!(
        "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"Think\"}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"reasoning\":\"ing.\"}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"content\":\"Done\"},\"finish_reason\":\"stop\"}]}\n\n",
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":40,",
        "\"prompt_tokens_details\":{\"cached_tokens\":60},\"completion_tokens_details\":{\"reasoning_tokens\":30}}}\n\n",
        "data: [DONE]\n\n",
    );
    let (events, err) = decode(body);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(events[0], StreamEvent::ReasoningDelta("Think".into()));
    assert_eq!(events[1], StreamEvent::ReasoningDelta("ing.".into()));
    assert_eq!(events[2], StreamEvent::TextDelta("Done".into()));
    assert_eq!(
        events.last(),
        Some(&StreamEvent::Finish {
            reason: FinishReason::Stop,
            usage: Some(Usage {
                input_tokens: 40,
                output_tokens: 40,
                reasoning_tokens: 30,
                cache_read_tokens: 60,
                cache_write_tokens: 0,
            })
        })
    );
}

#[test]
fn two_tool_calls_by_index_become_ready_in_order() {
    let body = concat!(
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"read\",\"arguments\":\"\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"x\\\":\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"1}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"b\",\"function\":{\"name\":\"glob\",\"arguments\":\"{}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let (events, err) = decode(body);
    assert!(err.is_none(), "{err:?}");
    let ready: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallReady(c) => Some(c.clone()),
            _ => None,
        })
        .collect();
    let call = |id: &str, name: &str, args: &str| ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.into(),
        meta: None,
    };
    assert_eq!(
        ready,
        vec![call("a", "read", "{\"x\":1}"), call("b", "glob", "{}")]
    );
    assert_eq!(
        events.last(),
        Some(&StreamEvent::Finish {
            reason: FinishReason::ToolCalls,
            usage: None
        })
    );
}

#[test]
fn a_stream_that_stops_mid_call_is_interrupted_naming_the_call() {
    let body = concat!(
        "data: {\"choices\":[{\"delta\":{\"content\":\"let me look\"}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c9\",\"function\":{\"name\":\"bash\",\"arguments\":\"{\\\"comm\"}}]}}]}\n\n",
    );
    let (events, err) = decode(body);
    assert_eq!(events[0], StreamEvent::TextDelta("let me look".into()));
    match err {
        Some(ProviderError::Interrupted { call_ids, url, .. }) => {
            assert_eq!(call_ids, vec!["c9".to_string()]);
            assert!(url.ends_with("/chat/completions"));
        }
        other => panic!("expected Interrupted, got {other:?}"),
    }
}

#[test]
fn finishing_with_broken_json_is_interrupted_and_errors_in_the_stream_surface() {
    let body = concat!(
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"edit\",\"arguments\":\"{\\\"a\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let (_, err) = decode(body);
    assert_eq!(
        err.as_ref().map(|e| e.interrupted_call_ids().to_vec()),
        Some(vec!["c1".to_string()])
    );
    let (_, err) = decode(
        "data: {\"error\":{\"message\":\"slow down\",\"type\":\"rate_limit_exceeded\"}}\n\n",
    );
    match err {
        Some(e @ ProviderError::Api { .. }) => {
            assert!(e.retryable() && e.to_string().contains("slow down"))
        }
        other => panic!("expected Api, got {other:?}"),
    }
    let (_, err) = decode("data: {not json\n\n");
    assert!(matches!(err, Some(ProviderError::Decode { .. })), "{err:?}");
}

fn ready(events: &[StreamEvent]) -> Vec<ToolCall> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallReady(c) => Some(c.clone()),
            _ => None,
        })
        .collect()
}

fn call(id: &str, name: &str, args: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.into(),
        meta: None,
    }
}

#[test]
fn typed_content_lists_carry_thinking_and_text() {
    let body = concat!(
        "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":[{\"type\":\"text\",\"text\":\"Two and\"},{\"type\":\"text\",\"text\":\" two.\"}]}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"content\":[{\"type\":\"thinking\",\"thinking\":\" Four.\"},{\"type\":\"text\",\"text\":\"4\"}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"content\":\"\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":46}}\n\n",
        "data: [DONE]\n\n",
    );
    let (events, err) = decode(body);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        events,
        vec![
            StreamEvent::ReasoningDelta("Two and two.".into()),
            StreamEvent::ReasoningDelta(" Four.".into()),
            StreamEvent::TextDelta("4".into()),
            StreamEvent::Finish {
                reason: FinishReason::Stop,
                usage: Some(Usage::new(10, 46))
            },
        ]
    );
}

#[test]
fn calls_without_an_index_are_told_apart_by_id() {
    let body = concat!(
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"a\",\"function\":{\"name\":\"read\",\"arguments\":\"{\\\"x\\\":\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"1}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"b\",\"function\":{\"name\":\"glob\",\"arguments\":\"{}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"a\",\"function\":{\"arguments\":\"\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let (events, err) = decode(body);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        ready(&events),
        vec![call("a", "read", "{\"x\":1}"), call("b", "glob", "{}")]
    );
}

#[test]
fn a_whole_call_in_the_finishing_chunk_and_a_call_without_arguments() {
    let whole = concat!(
        "data: {\"choices\":[{\"delta\":{\"content\":null,\"tool_calls\":[{\"id\":\"g1\",\"function\":{\"name\":\"read\",\"arguments\":\"{\\\"filePath\\\": \\\"a\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":124,\"completion_tokens\":22}}\n\n",
        "data: [DONE]\n\n",
    );
    let (events, err) = decode(whole);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        ready(&events),
        vec![call("g1", "read", "{\"filePath\": \"a\"}")]
    );
    let bare = concat!(
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"t1\",\"type\":\"function\",\"function\":{\"name\":\"todoread\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let (events, err) = decode(bare);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(ready(&events), vec![call("t1", "todoread", "{}")]);
}

#[test]
fn chunks_without_choices_are_skipped_but_their_usage_counts() {
    let body = concat!(
        "data: {\"choices\":[]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}],\"x_groq\":{\"usage\":{\"prompt_tokens\":45,\"completion_tokens\":662}}}\n\n",
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":1,\"total_tokens\":303,\"prompt_tokens_details\":{\"cached_tokens\":11},\"completion_tokens_details\":{\"reasoning_tokens\":290}}}\n\n",
        "data: [DONE]\n\n",
    );
    let (events, err) = decode(body);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(events[0], StreamEvent::TextDelta("hi".into()));
    assert_eq!(
        events[1],
        StreamEvent::Finish {
            reason: FinishReason::Stop,
            usage: Some(Usage {
                input_tokens: 1,
                output_tokens: 291,
                reasoning_tokens: 290,
                cache_read_tokens: 11,
                cache_write_tokens: 0,
            })
        },
        "the last report wins"
    );
}
