//! Both providers against the scripted model server: real HTTP on 127.0.0.1, real SSE.

use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{Map, Value, json};
use strata_agent::provider::{
    Anthropic, ChatMessage, ChatRequest, FinishReason, OpenAiCompatible, Provider, ProviderError,
    StreamEvent, ToolCall, ToolSpec, Usage, collect, resolve_provider,
};
use strata_testkit::model_server::{
    ModelServer, Turn, USAGE_INPUT_TOKENS, USAGE_OUTPUT_TOKENS, call,
};
use strata_testkit::poll_with_timeout;
use tokio_util::sync::CancellationToken;

#[derive(Clone, Copy, Debug)]
enum Kind {
    OpenAi,
    Anthropic,
}

const KINDS: [Kind; 2] = [Kind::OpenAi, Kind::Anthropic];

fn provider(kind: Kind, server: &ModelServer) -> Box<dyn Provider> {
    match kind {
        Kind::OpenAi => {
            Box::new(OpenAiCompatible::new(server.url(), Some("sk-test".into())).unwrap())
        }
        Kind::Anthropic => {
            Box::new(Anthropic::new(server.anthropic_url(), Some("ak-test".into())).unwrap())
        }
    }
}

pub(crate) fn request(messages: Vec<ChatMessage>) -> ChatRequest {
    ChatRequest {
        model: "scripted-model".into(),
        system: "You are a test.".into(),
        messages,
        tools: vec![ToolSpec {
            name: "read".into(),
            description: "Reads a file.".into(),
            parameters: json!({"type": "object", "properties": {"filePath": {"type": "string"}}, "required": ["filePath"]}),
        }],
        max_tokens: Some(256),
        reasoning: Default::default(),
        temperature: None,
        ..Default::default()
    }
}

pub(crate) async fn all_events(
    p: &dyn Provider,
    req: ChatRequest,
) -> (Vec<StreamEvent>, Option<ProviderError>) {
    let mut stream = p.stream(req, CancellationToken::new()).await.unwrap();
    let mut events = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(e) => events.push(e),
            Err(e) => return (events, Some(e)),
        }
    }
    (events, None)
}

#[tokio::test]
async fn text_turn_streams_deltas_and_finishes_with_usage() {
    for kind in KINDS {
        let server = ModelServer::start(vec![Turn::text("Hello from the script.")]);
        let p = provider(kind, &server);
        let (events, err) = all_events(p.as_ref(), request(vec![ChatMessage::user("hi")])).await;
        assert!(err.is_none(), "{kind:?}: {err:?}");
        let deltas = events
            .iter()
            .filter(|e| matches!(e, StreamEvent::TextDelta(_)))
            .count();
        assert!(
            deltas > 2,
            "{kind:?}: text arrives in several deltas: {events:?}"
        );
        let text: String = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text, "Hello from the script.", "{kind:?}");
        assert_eq!(
            events.last(),
            Some(&StreamEvent::Finish {
                reason: FinishReason::Stop,
                usage: Some(Usage::new(USAGE_INPUT_TOKENS, USAGE_OUTPUT_TOKENS)),
            }),
            "{kind:?}"
        );
        let sent = &server.requests()[0];
        assert_eq!(sent["stream"], true, "{kind:?}");
        assert_eq!(sent["model"], "scripted-model", "{kind:?}");
    }
}

#[tokio::test]
async fn tool_calls_accumulate_and_results_go_back_in_the_next_request() {
    let args_a = r#"{"filePath":"src/main.rs"}"#;
    let args_b = r#"{"filePath":"Cargo.toml"}"#;
    for kind in KINDS {
        let server = ModelServer::start(vec![
            Turn::TextAndToolCalls(
                "Reading two files.".into(),
                vec![call("c1", "read", args_a), call("c2", "read", args_b)],
            ),
            Turn::text("Both read."),
        ]);
        let p = provider(kind, &server);
        let (events, err) =
            all_events(p.as_ref(), request(vec![ChatMessage::user("read them")])).await;
        assert!(err.is_none(), "{kind:?}: {err:?}");
        let deltas_c1: String = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCallDelta { id, delta } if id == "c1" => Some(delta.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            deltas_c1, args_a,
            "{kind:?}: deltas add up to the arguments"
        );
        let first_ready = events
            .iter()
            .position(|e| matches!(e, StreamEvent::ToolCallReady(_)))
            .unwrap();
        let last_delta_c1 = events
            .iter()
            .rposition(|e| matches!(e, StreamEvent::ToolCallDelta { id, .. } if id == "c1"))
            .unwrap();
        assert!(
            first_ready > last_delta_c1,
            "{kind:?}: ready only after all its deltas"
        );
        let ready: Vec<ToolCall> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCallReady(c) => Some(c.clone()),
                _ => None,
            })
            .collect();
        let expect = |id: &str, args: &str| ToolCall {
            id: id.into(),
            name: "read".into(),
            arguments: args.into(),
            meta: None,
        };
        assert_eq!(
            ready,
            vec![expect("c1", args_a), expect("c2", args_b)],
            "{kind:?}"
        );
        assert!(
            matches!(
                events.last(),
                Some(StreamEvent::Finish {
                    reason: FinishReason::ToolCalls,
                    ..
                })
            ),
            "{kind:?}: {:?}",
            events.last()
        );

        // Second step: the assistant turn and both results go back to the model.
        let history = vec![
            ChatMessage::user("read them"),
            ChatMessage::assistant("Reading two files.", ready.clone()),
            ChatMessage::ToolResult {
                call_id: "c1".into(),
                name: "read".into(),
                output: "fn main() {}".into(),
                is_error: false,
                media: vec![],
            },
            ChatMessage::ToolResult {
                call_id: "c2".into(),
                name: "read".into(),
                output: "no such file".into(),
                is_error: true,
                media: vec![],
            },
        ];
        let done = collect(
            p.stream(request(history), CancellationToken::new())
                .await
                .unwrap(),
        )
        .await
        .unwrap();
        assert_eq!(done.text, "Both read.", "{kind:?}");
        let sent = server.requests();
        let schema = json!({"type": "object", "properties": {"filePath": {"type": "string"}}, "required": ["filePath"]});
        match kind {
            Kind::OpenAi => {
                assert_eq!(sent[0]["tools"][0]["function"]["parameters"], schema);
                let msgs = sent[1]["messages"].as_array().unwrap();
                assert_eq!(msgs[2]["tool_calls"][1]["function"]["arguments"], args_b);
                assert_eq!(
                    msgs[3],
                    json!({"role": "tool", "tool_call_id": "c1", "content": "fn main() {}"})
                );
                assert_eq!(msgs[4]["tool_call_id"], "c2");
            }
            Kind::Anthropic => {
                assert_eq!(sent[0]["tools"][0]["input_schema"], schema);
                let msgs = sent[1]["messages"].as_array().unwrap();
                assert_eq!(
                    msgs[1]["content"][2]["input"],
                    json!({"filePath": "Cargo.toml"})
                );
                assert_eq!(
                    msgs[2]["content"][1],
                    json!({"type": "tool_result", "tool_use_id": "c2", "content": "no such file", "is_error": true,
                           "cache_control": {"type": "ephemeral"}})
                );
            }
        }
    }
}

#[tokio::test]
async fn a_broken_stream_is_interrupted_naming_the_unfinished_call() {
    for kind in KINDS {
        let server = ModelServer::start(vec![Turn::broken_call(
            "Let me run it.",
            "c7",
            "bash",
            r#"{"command":"cargo test"}"#,
        )]);
        let p = provider(kind, &server);
        let (events, err) = all_events(p.as_ref(), request(vec![ChatMessage::user("test")])).await;
        assert!(
            events.contains(&StreamEvent::ToolCallStarted {
                id: "c7".into(),
                name: "bash".into()
            }),
            "{kind:?}: {events:?}"
        );
        assert!(
            !events.iter().any(|e| matches!(
                e,
                StreamEvent::ToolCallReady(_) | StreamEvent::Finish { .. }
            )),
            "{kind:?}"
        );
        match err {
            Some(e @ ProviderError::Interrupted { .. }) => {
                assert_eq!(e.interrupted_call_ids(), ["c7".to_string()], "{kind:?}");
                assert!(e.retryable());
                assert!(e.to_string().contains("127.0.0.1"), "{e}");
            }
            other => panic!("{kind:?}: expected Interrupted, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn error_statuses_are_typed_and_classified() {
    for kind in KINDS {
        let server = ModelServer::start(vec![
            Turn::Status(500, r#"{"error":{"message":"boom"}}"#.into()),
            Turn::Status(429, "slow down".into()),
            Turn::Status(400, "x".repeat(5000)),
        ]);
        let p = provider(kind, &server);
        let req = || request(vec![ChatMessage::user("hi")]);
        let err = p
            .stream(req(), CancellationToken::new())
            .await
            .err()
            .unwrap();
        match &err {
            ProviderError::Http {
                url, status, body, ..
            } => {
                assert_eq!(*status, 500);
                assert!(body.contains("boom"), "{body}");
                assert!(url.starts_with("http://127.0.0.1:"), "{url}");
            }
            other => panic!("{kind:?}: expected Http, got {other:?}"),
        }
        assert!(err.retryable());
        let err = p
            .stream(req(), CancellationToken::new())
            .await
            .err()
            .unwrap();
        assert!(
            matches!(&err, ProviderError::Http { status: 429, body, .. } if body == "slow down"),
            "{err:?}"
        );
        assert!(err.retryable());
        let err = p
            .stream(req(), CancellationToken::new())
            .await
            .err()
            .unwrap();
        match &err {
            ProviderError::Http {
                status: 400, body, ..
            } => assert!(body.len() < 2100, "body clipped to 2 KB"),
            other => panic!("{kind:?}: expected 400, got {other:?}"),
        }
        assert!(!err.retryable());
        // The script is used up: the server says so, and the message reaches the caller.
        let err = p
            .stream(req(), CancellationToken::new())
            .await
            .err()
            .unwrap();
        assert!(err.to_string().contains("exhausted"), "{err}");
    }
}

#[tokio::test]
async fn cancelling_a_hanging_stream_returns_promptly_and_drops_the_connection() {
    for kind in KINDS {
        let server = ModelServer::start(vec![Turn::Hang]);
        let p = provider(kind, &server);
        let cancel = CancellationToken::new();
        let mut stream = p
            .stream(request(vec![ChatMessage::user("hi")]), cancel.clone())
            .await
            .unwrap();
        let waiter = tokio::spawn(async move {
            let first = stream.next().await;
            (first, stream.next().await.is_none())
        });
        cancel.cancel();
        let started = Instant::now();
        let (first, ended) = tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .unwrap()
            .unwrap();
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(
            matches!(first, Some(Err(ProviderError::Cancelled))),
            "{kind:?}: {first:?}"
        );
        assert!(ended, "nothing follows the cancellation");
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
}

#[tokio::test]
async fn cancelling_before_the_response_headers_returns_cancelled() {
    // A listener that never accepts: the connection opens, no answer ever comes.
    let silent = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let base = format!("http://{}", silent.local_addr().unwrap());
    let p = OpenAiCompatible::new(format!("{base}/v1"), None).unwrap();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::task::yield_now().await;
        trigger.cancel();
    });
    let result = tokio::time::timeout(
        Duration::from_secs(5),
        p.stream(request(vec![ChatMessage::user("hi")]), cancel),
    )
    .await
    .unwrap();
    assert!(
        matches!(result, Err(ProviderError::Cancelled)),
        "{:?}",
        result.err()
    );
}

#[tokio::test]
async fn an_unreachable_endpoint_is_a_connect_error_naming_the_url() {
    let port = std::net::TcpListener::bind(("127.0.0.1", 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let p = Anthropic::new(format!("http://127.0.0.1:{port}"), None).unwrap();
    let err = p
        .stream(
            request(vec![ChatMessage::user("hi")]),
            CancellationToken::new(),
        )
        .await
        .err()
        .unwrap();
    match &err {
        ProviderError::Connect { url, .. } => {
            assert_eq!(url, &format!("http://127.0.0.1:{port}/v1/messages"))
        }
        other => panic!("expected Connect, got {other:?}"),
    }
    assert!(err.to_string().contains("check the base URL"), "{err}");
}

#[tokio::test]
async fn credentials_and_version_headers_are_sent() {
    let server = ModelServer::start(vec![Turn::text("a"), Turn::text("b")]);
    let openai = provider(Kind::OpenAi, &server);
    collect(
        openai
            .stream(
                request(vec![ChatMessage::user("x")]),
                CancellationToken::new(),
            )
            .await
            .unwrap(),
    )
    .await
    .unwrap();
    let anthropic = provider(Kind::Anthropic, &server);
    collect(
        anthropic
            .stream(
                request(vec![ChatMessage::user("x")]),
                CancellationToken::new(),
            )
            .await
            .unwrap(),
    )
    .await
    .unwrap();
    let recorded = server.recorded();
    assert_eq!(recorded[0].header("authorization"), Some("Bearer sk-test"));
    assert_eq!(recorded[0].body["stream_options"]["include_usage"], true);
    assert_eq!(recorded[1].header("x-api-key"), Some("ak-test"));
    assert_eq!(recorded[1].header("anthropic-version"), Some("2023-06-01"));
    // Sent as a text block carrying the system prompt's cache breakpoint.
    assert_eq!(recorded[1].body["system"][0]["text"], "You are a test.");
    assert_eq!(recorded[1].body["max_tokens"], 256);
}

#[tokio::test]
async fn resolve_provider_reaches_the_server_named_by_the_environment() {
    let server = ModelServer::start(vec![Turn::text("via env"), Turn::text("via config")]);
    let url = server.url();
    let env = move |k: &str| (k == "OPENAI_BASE_URL").then(|| url.clone());
    let (p, model) = resolve_provider("openai/local-model", env, &Map::new()).unwrap();
    let mut req = request(vec![ChatMessage::user("x")]);
    req.model = model;
    assert_eq!(
        collect(
            p.stream(req.clone(), CancellationToken::new())
                .await
                .unwrap()
        )
        .await
        .unwrap()
        .text,
        "via env"
    );
    let providers: Map<String, Value> = json!({"anthropic": {"baseURL": server.anthropic_url()}})
        .as_object()
        .cloned()
        .unwrap();
    let (p, _) = resolve_provider("anthropic/local-model", |_| None, &providers).unwrap();
    assert_eq!(
        collect(p.stream(req, CancellationToken::new()).await.unwrap())
            .await
            .unwrap()
            .text,
        "via config"
    );
    assert_eq!(server.requests()[0]["model"], "local-model");
    assert_eq!(server.recorded()[1].path, "/v1/messages");
}
