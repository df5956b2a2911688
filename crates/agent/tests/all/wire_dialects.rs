//! Vendor behaviours no recording in the corpus shows, written as small synthetic streams in
//! the vendors' shapes and served verbatim through the loop: a second Anthropic message
//! starting inside the first, Anthropic `error` events, a Moonshot-style thinking model whose
//! reasoning must go back with its tool calls, and Gemini's thought signatures on calls.

use serde_json::{Value, json};
use strata_agent::session::{RunOptions, RunOutcome};
use strata_testkit::TestInstance;
use strata_testkit::model_server::{ModelServer, Recording, Turn};

use crate::loop_support::*;

fn statuses(t: &TestInstance, session_id: &str) -> Vec<Value> {
    store(t)
        .events_since(session_id, 0)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == "session.status")
        .map(|e| e.data["status"].clone())
        .collect()
}

const START: &str = r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-x","usage":{"input_tokens":9,"output_tokens":1}}}"#;

#[tokio::test]
async fn a_message_started_inside_another_is_retried_and_the_cut_ones_call_never_runs() {
    TestInstance::builder()
        .run(|t| async move {
            let broken = Recording::new([
                START,
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Making it."}}"#,
                r#"{"type":"content_block_stop","index":0}"#,
                r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_cut","name":"bash","input":{}}}"#,
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"command\":\"touch made.txt\",\"description\":\"make a file\"}"}}"#,
                r#"{"type":"content_block_stop","index":1}"#,
                r#"{"type":"message_start","message":{"id":"msg_2","type":"message","role":"assistant","content":[],"model":"claude-x","usage":{"input_tokens":9,"output_tokens":1}}}"#,
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Other."}}"#,
                r#"{"type":"content_block_stop","index":0}"#,
                r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}"#,
                r#"{"type":"message_stop"}"#,
            ]);
            let server =
                ModelServer::start(vec![Turn::Recorded(broken), Turn::text("Nothing made.")]);
            let ran = run(&t, &anthropic_runner(&t, &server, options()), "make a file").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert_eq!(ran.report.text, "Nothing made.");
            assert!(!t.path("made.txt").exists(), "the cut message's command ran");
            let store = store(&t);
            let tools = tool_parts(&store, &ran.session_id);
            assert_eq!(tools.len(), 1, "{tools:#?}");
            assert_eq!(tools[0]["callID"], "toolu_cut");
            assert_eq!(tools[0]["state"]["status"], "error");
            let messages = store.messages(&ran.session_id).unwrap();
            let cut = &messages[1].0.data;
            assert_eq!(cut["error"]["name"], "StreamInterruptedError", "{cut}");
            assert_eq!(cut["retried"], true);
            assert!(cut["error"]["data"].to_string().contains("msg_2"), "{cut}");
            let sent = server.sent();
            assert_eq!(sent.len(), 2);
            assert!(sent[1].calls().is_empty(), "the retry does not send the cut call back");
            let kinds: Vec<Value> = statuses(&t, &ran.session_id)
                .into_iter()
                .map(|s| s["type"].clone())
                .collect();
            assert_eq!(kinds, [json!("busy"), json!("retry"), json!("idle")]);
            assert_log_consistent(&store, &ran);
        })
        .await;
}

#[tokio::test]
async fn an_overloaded_error_event_is_retried_after_a_wait() {
    TestInstance::builder()
        .run(|t| async move {
            let overloaded = Recording::new([
                START,
                r#"{"type":"ping"}"#,
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            ]);
            let server =
                ModelServer::start(vec![Turn::Recorded(overloaded), Turn::text("recovered")]);
            let ran = run(&t, &anthropic_runner(&t, &server, options()), "hi").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert_eq!(ran.report.text, "recovered");
            assert_eq!(server.requests().len(), 2);
            let retry = statuses(&t, &ran.session_id)
                .into_iter()
                .find(|s| s["type"] == "retry")
                .expect("a retry status");
            assert_eq!(retry["attempt"], 1);
            assert_eq!(retry["waitMs"], 10, "one retry delay of the test's options");
            let message = retry["message"].as_str().unwrap();
            assert!(message.contains("overloaded_error") && message.contains("Overloaded"));
        })
        .await;
}

#[tokio::test]
async fn any_other_error_event_ends_the_run_with_the_vendors_message() {
    TestInstance::builder()
        .run(|t| async move {
            let refused = Recording::new([
                START,
                r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages.1: tool_use ids must be unique"}}"#,
            ]);
            let server = ModelServer::start(vec![Turn::Recorded(refused), Turn::text("unused")]);
            let ran = run(&t, &anthropic_runner(&t, &server, options()), "hi").await;
            let RunOutcome::Failed { error } = &ran.report.outcome else {
                panic!("expected a failure, got {:?}", ran.report.outcome);
            };
            assert!(
                error.contains("invalid_request_error")
                    && error.contains("messages.1: tool_use ids must be unique"),
                "{error}"
            );
            assert_eq!(server.requests().len(), 1, "not retried");
            assert_log_consistent(&store(&t), &ran);
        })
        .await;
}

/// One chunk of a Moonshot-style chat-completions stream, with `choice` as its only choice.
fn kimi(choice: Value) -> String {
    json!({"id": "chatcmpl-kimi-1", "object": "chat.completion.chunk", "created": 1,
        "model": "kimi-k2-thinking", "choices": [choice]})
    .to_string()
}

#[tokio::test]
async fn interleaved_reasoning_goes_back_on_the_assistant_message_with_its_calls() {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .run(|t| async move {
            let thinking = Recording::new([
                kimi(json!({"index": 0, "delta": {"role": "assistant", "content": "", "reasoning_content": "The user wants a.txt; "}})),
                kimi(json!({"index": 0, "delta": {"reasoning_content": "read it first."}})),
                kimi(json!({"index": 0, "delta": {"content": "Reading."}})),
                kimi(json!({"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "functions.read:0", "type": "function", "function": {"name": "read", "arguments": "{\"filePath\":\"a.txt\"}"}}]}})),
                kimi(json!({"index": 0, "delta": {}, "finish_reason": "tool_calls",
                    "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150, "cached_tokens": 100, "prompt_tokens_details": {"cached_tokens": 100}}})),
            ]);
            let server = ModelServer::start(vec![Turn::Recorded(thinking), Turn::text("alpha")]);
            let opts = RunOptions {
                interleaved: Some("reasoning_content".into()),
                ..options()
            };
            let ran = run(&t, &runner(&t, &server, MODEL, opts), "what is in a.txt?").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let second = &server.requests()[1];
            let assistant = second["messages"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["role"] == "assistant")
                .expect("the assistant message");
            assert_eq!(
                assistant["reasoning_content"],
                "The user wants a.txt; read it first."
            );
            assert_eq!(assistant["content"], "Reading.");
            assert_eq!(assistant["tool_calls"][0]["id"], "functions.read:0");
            let store = store(&t);
            let messages = store.messages(&ran.session_id).unwrap();
            let finish = messages[1].1.iter().find(|p| p.kind == "step-finish").unwrap();
            assert_eq!(finish.data["tokens"]["input"], 20, "{}", finish.data);
            assert_eq!(finish.data["tokens"]["cache"]["read"], 100);
            assert_log_consistent(&store, &ran);
        })
        .await;
}

/// A chunk of Gemini's OpenAI-compatible endpoint.
fn gemini(choice: Value) -> String {
    json!({"id": "gem-1", "object": "chat.completion.chunk", "model": "gemini-3-pro-preview", "choices": [choice]})
        .to_string()
}

#[tokio::test]
async fn geminis_thought_signature_goes_back_with_its_call() {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .run(|t| async move {
            let extra = json!({"google": {"thought_signature": "CsYBAY8a...sig"}});
            let call = Recording::new([
                gemini(
                    json!({"index": 0, "delta": {"role": "assistant", "tool_calls": [{
                        "index": 0, "id": "call_g1", "type": "function",
                        "function": {"name": "read", "arguments": "{\"filePath\":\"a.txt\"}"},
                        "extra_content": extra,
                    }]}}),
                ),
                gemini(json!({"index": 0, "delta": {}, "finish_reason": "tool_calls"})),
            ]);
            let server = ModelServer::start(vec![Turn::Recorded(call), Turn::text("alpha")]);
            let ran = run(
                &t,
                &runner(&t, &server, MODEL, options()),
                "what is in a.txt?",
            )
            .await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let second = &server.requests()[1];
            let assistant = second["messages"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["role"] == "assistant")
                .expect("the assistant message");
            assert_eq!(assistant["tool_calls"][0]["id"], "call_g1");
            assert_eq!(assistant["tool_calls"][0]["extra_content"], extra);
            let store = store(&t);
            let tools = tool_parts(&store, &ran.session_id);
            assert_eq!(tools[0]["metadata"]["provider"], extra, "{tools:#?}");
            assert_eq!(tools[0]["state"]["status"], "completed");
            assert_log_consistent(&store, &ran);
        })
        .await;
}
