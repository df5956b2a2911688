//! The Responses wire against the scripted model server: real HTTP on 127.0.0.1, real SSE.
//! Streams the script has no turn for (a vendor error mid-stream, an incomplete response) are
//! served verbatim as the body of a 200 answer.

use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};
use strata_agent::provider::{
    ChatMessage, FinishReason, OpenAiResponses, Provider, ProviderError, ReasoningBlock,
    StreamEvent, ToolCall, Usage,
};
use strata_testkit::model_server::{
    Gate, ModelServer, Pause, RESPONSES_CACHED_TOKENS, RESPONSES_PATH, RESPONSES_REASONING_TOKENS,
    Turn, USAGE_INPUT_TOKENS, USAGE_OUTPUT_TOKENS, call,
};
use strata_testkit::poll_with_timeout;
use tokio_util::sync::CancellationToken;

use crate::provider_streams::{all_events, request};

fn provider(server: &ModelServer) -> OpenAiResponses {
    OpenAiResponses::new(server.url(), Some("sk-test".into())).unwrap()
}

/// A 200 answer whose body is `events` as Responses SSE frames.
fn raw_stream(events: &[Value]) -> Turn {
    let body = events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect();
    Turn::Status(200, body)
}

fn text_delta(delta: &str) -> Value {
    json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": delta})
}

fn texts(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_text_turn_streams_from_the_responses_endpoint_with_cached_usage() {
    let server = ModelServer::start(vec![Turn::text("Hello from the script.")]);
    let (events, err) =
        all_events(&provider(&server), request(vec![ChatMessage::user("hi")])).await;
    assert!(err.is_none(), "{err:?}");
    assert_eq!(texts(&events), "Hello from the script.");
    assert!(
        events.len() > 3,
        "text arrives in several deltas: {events:?}"
    );
    assert_eq!(
        events.last(),
        Some(&StreamEvent::Finish {
            reason: FinishReason::Stop,
            usage: Some(Usage {
                input_tokens: USAGE_INPUT_TOKENS,
                output_tokens: USAGE_OUTPUT_TOKENS,
                reasoning_tokens: 0,
                cache_read_tokens: RESPONSES_CACHED_TOKENS,
                cache_write_tokens: 0,
            }),
        }),
        "the cached part of the input is counted apart"
    );
    let sent = &server.recorded()[0];
    assert_eq!(sent.path, RESPONSES_PATH);
    assert_eq!(sent.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(sent.body["instructions"], "You are a test.");
    assert_eq!(sent.body["store"], false);
    assert_eq!(sent.body["max_output_tokens"], 256);
    assert_eq!(sent.body["tools"][0]["name"], "read");
}

#[tokio::test]
async fn a_reasoning_item_goes_back_before_its_call_in_the_next_request() {
    let args = r#"{"filePath":"a.txt"}"#;
    let server = ModelServer::start(vec![
        Turn::reasoning(
            "Read a.txt first.",
            Some("enc-A"),
            Turn::TextAndToolCalls("Reading.".into(), vec![call("call_1", "read", args)]),
        ),
        Turn::text("It says alpha."),
    ]);
    let p = provider(&server);
    let (events, err) = all_events(&p, request(vec![ChatMessage::user("read a.txt")])).await;
    assert!(err.is_none(), "{err:?}");
    let reasoning: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ReasoningDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(reasoning, "Read a.txt first.");
    let item = events
        .iter()
        .find_map(|e| match e {
            StreamEvent::ReasoningEnd { item, .. } => item.clone(),
            _ => None,
        })
        .unwrap();
    assert_eq!(item.encrypted_content, "enc-A");
    let ready = ToolCall {
        id: "call_1".into(),
        name: "read".into(),
        arguments: args.into(),
        meta: None,
    };
    assert!(events.contains(&StreamEvent::ToolCallReady(ready.clone())));
    let Some(StreamEvent::Finish {
        reason: FinishReason::ToolCalls,
        usage: Some(usage),
    }) = events.last()
    else {
        panic!("{:?}", events.last());
    };
    assert_eq!(usage.reasoning_tokens, RESPONSES_REASONING_TOKENS);

    let history = vec![
        ChatMessage::user("read a.txt"),
        ChatMessage::Assistant {
            text: "Reading.".into(),
            tool_calls: vec![ready],
            reasoning: vec![ReasoningBlock {
                text: reasoning,
                signature: None,
                redacted: None,
                item: Some(item.clone()),
            }],
        },
        ChatMessage::ToolResult {
            call_id: "call_1".into(),
            name: "read".into(),
            output: "alpha".into(),
            is_error: false,
            media: vec![],
        },
    ];
    let (events, err) = all_events(&p, request(history)).await;
    assert!(err.is_none(), "{err:?}");
    assert_eq!(texts(&events), "It says alpha.");
    let input = server.requests()[1]["input"].clone();
    let kinds: Vec<&str> = input
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap_or("(role only)"))
        .collect();
    assert_eq!(
        kinds,
        [
            "(role only)",
            "reasoning",
            "message",
            "function_call",
            "function_call_output"
        ]
    );
    assert_eq!(
        input[1],
        json!({"type": "reasoning", "id": item.id, "encrypted_content": "enc-A",
               "summary": [{"type": "summary_text", "text": "Read a.txt first."}]})
    );
    assert_eq!(input[3]["call_id"], "call_1");
    assert_eq!(input[4]["output"], "alpha");
}

#[tokio::test]
async fn an_error_event_mid_stream_is_an_api_error_after_the_text_so_far() {
    let server = ModelServer::start(vec![raw_stream(&[
        json!({"type": "response.created", "response": {"status": "in_progress"}}),
        text_delta("Partial"),
        json!({"type": "error", "code": "server_error", "message": "The server had an error.", "param": null}),
    ])]);
    let (events, err) =
        all_events(&provider(&server), request(vec![ChatMessage::user("hi")])).await;
    assert_eq!(events, [StreamEvent::TextDelta("Partial".into())]);
    match err {
        Some(e @ ProviderError::Api { .. }) => {
            assert!(e.retryable(), "a server error may pass: {e}");
            let text = e.to_string();
            assert!(
                text.contains("server_error") && text.contains("The server had an error."),
                "{text}"
            );
            assert!(text.contains("/v1/responses"), "{text}");
        }
        other => panic!("expected Api, got {other:?}"),
    }
}

#[tokio::test]
async fn an_incomplete_response_finishes_with_length_and_its_usage() {
    let server = ModelServer::start(vec![raw_stream(&[
        text_delta("Cut at the li"),
        json!({"type": "response.incomplete", "response": {
            "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
            "usage": {"input_tokens": 50, "input_tokens_details": {"cached_tokens": 20},
                      "output_tokens": 256, "output_tokens_details": {"reasoning_tokens": 0}},
        }}),
    ])]);
    let (events, err) =
        all_events(&provider(&server), request(vec![ChatMessage::user("hi")])).await;
    assert!(err.is_none(), "{err:?}");
    assert_eq!(
        events.last(),
        Some(&StreamEvent::Finish {
            reason: FinishReason::Length,
            usage: Some(Usage {
                input_tokens: 30,
                output_tokens: 256,
                reasoning_tokens: 0,
                cache_read_tokens: 20,
                cache_write_tokens: 0,
            }),
        })
    );
}

#[tokio::test]
async fn a_cut_stream_is_interrupted_naming_the_call_that_never_became_ready() {
    let server = ModelServer::start(vec![Turn::broken_call(
        "Let me run it.",
        "call_7",
        "bash",
        r#"{"command":"cargo test"}"#,
    )]);
    let (events, err) =
        all_events(&provider(&server), request(vec![ChatMessage::user("test")])).await;
    assert!(events.contains(&StreamEvent::ToolCallStarted {
        id: "call_7".into(),
        name: "bash".into()
    }));
    assert!(
        !events.iter().any(|e| matches!(
            e,
            StreamEvent::ToolCallReady(_) | StreamEvent::Finish { .. }
        )),
        "{events:?}"
    );
    match err {
        Some(e @ ProviderError::Interrupted { .. }) => {
            assert_eq!(e.interrupted_call_ids(), ["call_7".to_string()]);
            assert!(e.retryable());
        }
        other => panic!("expected Interrupted, got {other:?}"),
    }
}

#[tokio::test]
async fn a_call_is_ready_when_its_item_is_done_while_the_response_goes_on() {
    let gate = Gate::new();
    let server = ModelServer::start(vec![Turn::Paced {
        calls: vec![
            call("call_1", "read", r#"{"filePath":"a"}"#),
            call("call_2", "read", r#"{"filePath":"b"}"#),
        ],
        pause: Pause::Until(gate.clone()),
    }]);
    let p = provider(&server);
    let mut stream = p
        .stream(
            request(vec![ChatMessage::user("go")]),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    let first_ready = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(event) = stream.next().await {
            if let StreamEvent::ToolCallReady(call) = event.unwrap() {
                return call;
            }
        }
        panic!("the stream ended with no ready call");
    })
    .await
    .unwrap();
    assert_eq!(first_ready.id, "call_1");
    assert!(!gate.is_open(), "ready before the response went on");
    gate.open();
    let mut rest = Vec::new();
    while let Some(event) = stream.next().await {
        rest.push(event.unwrap());
    }
    assert!(rest.iter().any(
        |e| matches!(e, StreamEvent::ToolCallReady(c) if c.id == "call_2" && c.arguments == r#"{"filePath":"b"}"#)
    ));
}

#[tokio::test]
async fn statuses_are_http_errors_and_cancelling_a_hang_drops_the_connection() {
    let server = ModelServer::start(vec![Turn::Status(429, "slow down".into()), Turn::Hang]);
    let p = provider(&server);
    let req = || request(vec![ChatMessage::user("hi")]);
    let err = p
        .stream(req(), CancellationToken::new())
        .await
        .err()
        .unwrap();
    assert!(
        matches!(&err, ProviderError::Http { status: 429, body, url, .. } if body == "slow down" && url.ends_with(RESPONSES_PATH)),
        "{err:?}"
    );
    let cancel = CancellationToken::new();
    let mut stream = p.stream(req(), cancel.clone()).await.unwrap();
    cancel.cancel();
    let first = tokio::time::timeout(Duration::from_secs(5), stream.next())
        .await
        .unwrap();
    assert!(
        matches!(first, Some(Err(ProviderError::Cancelled))),
        "{first:?}"
    );
    drop(stream);
    poll_with_timeout(
        "the server to see the client leave",
        Duration::from_secs(10),
        || {
            let left = server.hangs_released() == 1;
            async move { left.then_some(()) }
        },
    )
    .await;
}
