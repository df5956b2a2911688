//! The catalogue and reasoning in the loop: priced steps, `max_tokens` and reasoning settings
//! on the wire, reasoning parts from OpenAI-compatible, Anthropic and Responses streams, and
//! Anthropic's signed thinking blocks and Responses' encrypted reasoning items sent back so the
//! next request of the turn is valid.

use crate::loop_support::*;
use serde_json::{Value, json};
use strata_agent::session::{RunOptions, RunOutcome};
use strata_testkit::TestInstance;
use strata_testkit::model_server::{
    ModelServer, Turn, USAGE_INPUT_TOKENS, USAGE_OUTPUT_TOKENS, call,
};

/// The data of every part of `kind` in the session, in order.
fn parts_of(t: &TestInstance, session_id: &str, kind: &str) -> Vec<Value> {
    store(t)
        .messages(session_id)
        .unwrap()
        .into_iter()
        .flat_map(|(_, parts)| parts)
        .filter(|p| p.kind == kind)
        .map(|p| p.data)
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[tokio::test]
async fn steps_are_priced_from_the_catalogue_and_config_entries_override_it() {
    TestInstance::builder()
        .config(
            json!({"provider": {"openai": {"models": {"scripted-model": {
                "limit": {"context": 100000, "output": 1000},
                "cost": {"input": 3.0, "output": 15.0},
            }}}}}),
        )
        .run(|t| async move {
            let server = ModelServer::start(vec![Turn::text("configured"), Turn::text("built in")]);
            let ran = run(&t, &runner(&t, &server, MODEL, options()), "hi").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let expected =
                (USAGE_INPUT_TOKENS as f64 * 3.0 + USAGE_OUTPUT_TOKENS as f64 * 15.0) / 1e6;
            let finish = &parts_of(&t, &ran.session_id, "step-finish")[0];
            assert!(
                close(finish["cost"].as_f64().unwrap(), expected),
                "{finish}"
            );
            let (message, _) = store(&t).messages(&ran.session_id).unwrap().pop().unwrap();
            assert!(close(message.data["cost"].as_f64().unwrap(), expected));
            assert!(
                server.requests()[0].get("max_tokens").is_none(),
                "OpenAI needs none"
            );
            assert_log_consistent(&store(&t), &ran);

            // A built-in entry, found from a dated id: gpt-4.1 at $2 / $8 per million.
            let ran = run(
                &t,
                &runner(&t, &server, "openai/gpt-4.1-2025-04-14", options()),
                "hi",
            )
            .await;
            let expected =
                (USAGE_INPUT_TOKENS as f64 * 2.0 + USAGE_OUTPUT_TOKENS as f64 * 8.0) / 1e6;
            let cost = parts_of(&t, &ran.session_id, "step-finish")[0]["cost"]
                .as_f64()
                .unwrap();
            assert!(cost > 0.0 && close(cost, expected), "{cost}");
        })
        .await;
}

#[tokio::test]
async fn an_uncatalogued_model_costs_nothing_and_stays_a_whole_zero() {
    TestInstance::builder()
        .run(|t| async move {
            let server = ModelServer::start(vec![Turn::text("ok")]);
            let ran = run(&t, &runner(&t, &server, MODEL, options()), "hi").await;
            let finish = &parts_of(&t, &ran.session_id, "step-finish")[0];
            assert_eq!(finish["cost"], json!(0));
            assert!(finish["cost"].is_u64() || finish["cost"].is_i64());
        })
        .await;
}

#[tokio::test]
async fn openai_reasoning_streams_into_a_reasoning_part_with_the_variants_effort() {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::reasoning(
                    "I should read the file first.",
                    None,
                    Turn::tool_call("c1", "read", r#"{"filePath":"a.txt"}"#),
                ),
                Turn::reasoning("It says alpha.", None, Turn::text("It says alpha.")),
            ]);
            let opts = RunOptions {
                variant: Some("high".into()),
                ..options()
            };
            let ran = run(&t, &runner(&t, &server, MODEL, opts), "what is in a.txt?").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert_eq!(
                ran.report.text, "It says alpha.",
                "reasoning is not the answer"
            );
            let reasoning = parts_of(&t, &ran.session_id, "reasoning");
            let texts: Vec<&str> = reasoning
                .iter()
                .map(|r| r["text"].as_str().unwrap())
                .collect();
            assert_eq!(texts, ["I should read the file first.", "It says alpha."]);
            assert!(reasoning.iter().all(|r| r["time"]["end"].is_i64()));
            let requests = server.requests();
            assert_eq!(requests[0]["reasoning_effort"], "high");
            // Chat-completions servers do not take reasoning back.
            assert!(!requests[1].to_string().contains("I should read"));
            assert_log_consistent(&store(&t), &ran);
        })
        .await;
}

#[tokio::test]
async fn anthropic_thinking_keeps_its_signature_and_the_next_request_carries_it_first() {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::reasoning(
                    "Read a.txt before answering.",
                    Some("sig-A1"),
                    Turn::Redacted {
                        data: "opaque-1".into(),
                        then: Box::new(Turn::TextAndToolCalls(
                            "Reading.".into(),
                            vec![call("toolu_1", "read", r#"{"filePath":"a.txt"}"#)],
                        )),
                    },
                ),
                Turn::reasoning("Now answer.", Some("sig-B2"), Turn::text("alpha")),
            ]);
            let opts = RunOptions {
                variant: Some("low".into()),
                ..options()
            };
            let ran = run(&t, &anthropic_runner(&t, &server, opts), "read a.txt").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);

            let reasoning = parts_of(&t, &ran.session_id, "reasoning");
            assert_eq!(reasoning.len(), 3, "{reasoning:#?}");
            assert_eq!(reasoning[0]["metadata"]["anthropic"]["signature"], "sig-A1");
            assert_eq!(reasoning[1]["metadata"]["anthropic"]["redactedData"], "opaque-1");
            assert_eq!(reasoning[2]["metadata"]["anthropic"]["signature"], "sig-B2");

            let requests = server.requests();
            assert_eq!(requests.len(), 2);
            for r in &requests {
                assert_eq!(r["thinking"], json!({"type": "enabled", "budget_tokens": 4000}));
                assert_eq!(r["max_tokens"], 8192, "an unknown model gets the default limit");
            }
            // The second request of the turn sends the signed block back, first in its turn;
            // the turn's last block carries a cache breakpoint (one of the last two messages).
            let assistant = &requests[1]["messages"][1];
            assert_eq!(assistant["role"], "assistant");
            assert_eq!(
                assistant["content"],
                json!([
                    {"type": "thinking", "thinking": "Read a.txt before answering.", "signature": "sig-A1"},
                    {"type": "redacted_thinking", "data": "opaque-1"},
                    {"type": "text", "text": "Reading."},
                    {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"filePath": "a.txt"},
                     "cache_control": {"type": "ephemeral"}},
                ])
            );
            assert_sent("anthropic_thinking_sent_back", &t, &server);
            assert_log_consistent(&store(&t), &ran);
        })
        .await;
}

#[tokio::test]
async fn responses_reasoning_items_are_kept_on_their_parts_and_replayed_before_the_calls() {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::reasoning(
                    "Read a.txt first.",
                    Some("enc-A"),
                    Turn::TextAndToolCalls(
                        "Reading.".into(),
                        vec![call("call_1", "read", r#"{"filePath":"a.txt"}"#)],
                    ),
                ),
                // No encrypted content: nothing that could be sent back.
                Turn::reasoning("It says alpha.", None, Turn::text("alpha")),
            ]);
            let opts = RunOptions {
                variant: Some("high".into()),
                ..options()
            };
            let ran = run(&t, &responses_runner(&t, &server, opts), "read a.txt").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert_eq!(ran.report.text, "alpha");

            let reasoning = parts_of(&t, &ran.session_id, "reasoning");
            assert_eq!(reasoning.len(), 2, "{reasoning:#?}");
            assert_eq!(
                reasoning[0]["metadata"],
                json!({"openai": {"itemId": "rs_scripted_1_0", "reasoningEncryptedContent": "enc-A"}})
            );
            assert!(reasoning[1].get("metadata").is_none(), "{}", reasoning[1]);

            let requests = server.requests();
            assert_eq!(requests[0]["reasoning"], json!({"effort": "high", "summary": "auto"}));
            let input = &requests[1]["input"];
            assert_eq!(
                input[1],
                json!({"type": "reasoning", "id": "rs_scripted_1_0", "encrypted_content": "enc-A",
                       "summary": [{"type": "summary_text", "text": "Read a.txt first."}]})
            );
            assert_eq!(input[2]["type"], "message");
            assert_eq!(input[3]["call_id"], "call_1");
            assert_eq!(input[4]["type"], "function_call_output");
            assert_sent("responses_reasoning_sent_back", &t, &server);
            assert_log_consistent(&store(&t), &ran);
        })
        .await;
}
