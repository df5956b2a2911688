//! The agent loop against the scripted model server: multi-step work, the tool surface and
//! schemas, call repair, invalid arguments, resuming, the step budget.

use crate::loop_support::*;
use serde_json::{Value, json};
use strata_agent::session::{RunOptions, RunOutcome, SessionTarget};
use strata_registry::ToolRegistry;
use strata_testkit::TestInstance;
use strata_testkit::model_server::{ModelServer, SentItem, SentRequest, Turn, call};
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn a_multi_step_session_reads_edits_and_answers() {
    TestInstance::builder()
        .file("notes.txt", "the old value\n")
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::TextAndToolCalls(
                    "Reading first.".into(),
                    vec![call("c1", "read", r#"{"filePath":"notes.txt"}"#)],
                ),
                Turn::tool_call(
                    "c2",
                    "edit",
                    r#"{"filePath":"notes.txt","oldString":"old","newString":"new"}"#,
                ),
                Turn::text("I replaced old with new."),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "change old to new in notes.txt").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert_eq!(ran.report.steps, 3);
            assert_eq!(ran.report.text, "I replaced old with new.");
            assert_eq!(
                std::fs::read_to_string(t.path("notes.txt")).unwrap(),
                "the new value\n"
            );

            let sent = server.sent();
            assert_eq!(sent.len(), 3);
            assert_eq!(sent[0].model, "scripted-model");
            assert_eq!(sent[0].roles(), ["system", "user"]);
            assert_eq!(
                sent[0].messages[0].items,
                [SentItem::Text("change old to new in notes.txt".into())]
            );
            let r1 = sent[1].results();
            assert_eq!(r1.len(), 1);
            assert_eq!(r1[0].0, "c1");
            assert!(r1[0].1.contains("the old value"), "{}", r1[0].1);
            // The assistant turn is sent back with its text and its call.
            let assistant = &sent[1].messages[1];
            assert_eq!(assistant.role, "assistant");
            assert_eq!(assistant.items[0], SentItem::Text("Reading first.".into()));
            assert_eq!(sent[1].calls()[0].1, "read");
            let r2 = sent[2].results();
            assert_eq!(r2.len(), 2, "the whole history is sent every step");
            assert_eq!(r2[1].0, "c2");
            assert_sent("multi_step_session", &t, &server);

            let store = store(&t);
            let tools = tool_parts(&store, &ran.session_id);
            assert_eq!(tools.len(), 2);
            for (part, name) in tools.iter().zip(["read", "edit"]) {
                assert_eq!(part["tool"], name);
                assert_eq!(part["state"]["status"], "completed", "{part}");
                let time = &part["state"]["time"];
                assert!(time["end"].as_i64() >= time["start"].as_i64());
            }
            let all = store.messages(&ran.session_id).unwrap();
            let kinds: Vec<Vec<String>> = all
                .iter()
                .map(|(_, ps)| ps.iter().map(|p| p.kind.clone()).collect())
                .collect();
            assert_eq!(
                kinds,
                vec![
                    vec!["text"],
                    vec!["step-start", "text", "tool", "step-finish"],
                    vec!["step-start", "tool", "step-finish"],
                    vec!["step-start", "text", "step-finish"],
                ]
            );
            let finish = &all[3].1[2].data;
            assert_eq!(finish["reason"], "stop");
            assert_eq!(all[1].1[3].data["reason"], "tool-calls");
            assert_eq!(all[3].0.data["finish"], "stop");
            assert_eq!(
                store.session(&ran.session_id).unwrap().title,
                "change old to new in notes.txt"
            );
            // The streamed text reached the front-end as deltas, too.
            let streamed: String = ran
                .heard
                .iter()
                .filter_map(|e| match e {
                    strata_agent::events::LoopEvent::TextDelta { delta, .. } => {
                        Some(delta.as_str())
                    }
                    _ => None,
                })
                .collect();
            assert_eq!(streamed, "Reading first.I replaced old with new.");
            assert_log_consistent(&store, &ran);
        })
        .await;
}

#[tokio::test]
async fn the_surface_and_its_schemas_are_sent_and_patch_models_get_apply_patch() {
    TestInstance::builder()
        .run(|t| async move {
            let server = ModelServer::start(vec![Turn::text("hi"), Turn::text("hi")]);
            let plain = runner(&t, &server, MODEL, options());
            run(&t, &plain, "hello").await;
            let patch = runner(&t, &server, "openai/gpt-5", options());
            run(&t, &patch, "hello").await;
            let requests = server.requests();
            let sent = server.sent();
            let registry = t.get::<ToolRegistry>();
            let ids: Vec<String> = plain
                .surface()
                .unwrap()
                .iter()
                .map(|t| t.id.to_string())
                .collect();
            assert_eq!(sent[0].tools, ids);
            assert!(
                !ids.contains(&"invalid".to_string()),
                "invalid is never advertised"
            );
            assert!(ids.contains(&"read".to_string()) && ids.contains(&"grep".to_string()));
            // The schemas and descriptions go out exactly as registered.
            for tool in requests[0]["tools"].as_array().unwrap() {
                let name = tool["function"]["name"].as_str().unwrap();
                let registered = registry.get(name).unwrap();
                assert_eq!(tool["function"]["parameters"], *registered.schema, "{name}");
                assert_eq!(
                    tool["function"]["description"],
                    registered.description.as_str()
                );
            }
            let gpt5 = &sent[1].tools;
            assert!(!gpt5.contains(&"edit".to_string()) && !gpt5.contains(&"write".to_string()));
            if registry.get("apply_patch").is_some() {
                assert!(gpt5.contains(&"apply_patch".to_string()));
                assert!(!ids.contains(&"apply_patch".to_string()));
            }
        })
        .await;
}

#[tokio::test]
async fn an_unknown_tool_goes_to_invalid_with_the_available_tools() {
    TestInstance::builder()
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::ToolCalls(vec![
                    call("c1", "frobnicate", r#"{"x":1}"#),
                    call("c2", "GLOB", r#"{"pattern":"*.md"}"#),
                ]),
                Turn::text("ok"),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "do it").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let store = store(&t);
            let tools = tool_parts(&store, &ran.session_id);
            assert_eq!(tools[0]["tool"], "invalid");
            assert_eq!(tools[0]["state"]["status"], "completed");
            assert_eq!(tools[0]["state"]["input"]["tool"], "frobnicate");
            // A wrongly cased name is repaired to the real tool.
            assert_eq!(tools[1]["tool"], "glob");
            assert_eq!(tools[1]["state"]["status"], "completed");
            let sent = &server.sent()[1];
            let results = sent.results();
            let answer = &results[0].1;
            assert!(answer.contains("frobnicate"), "{answer}");
            for id in runner.surface().unwrap().iter().map(|t| t.id) {
                assert!(answer.contains(id), "the answer lists `{id}`: {answer}");
            }
            assert_eq!(sent.calls()[0].1, "invalid");
            assert_log_consistent(&store, &ran);
        })
        .await;
}

#[tokio::test]
async fn invalid_arguments_are_an_error_the_model_can_fix() {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::tool_call("c1", "read", r#"{"path":"a.txt"}"#),
                Turn::tool_call("c2", "read", r#"{"filePath":"a.txt"}"#),
                Turn::text("alpha it is"),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "read a.txt").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let store = store(&t);
            let tools = tool_parts(&store, &ran.session_id);
            assert_eq!(tools[0]["state"]["status"], "error");
            let error = tools[0]["state"]["error"].as_str().unwrap();
            assert!(error.contains("filePath"), "{error}");
            assert_eq!(tools[1]["state"]["status"], "completed");
            let results = server.sent()[1].results();
            assert_eq!(results[0].1, error, "the model sees the error");
            assert_log_consistent(&store, &ran);
        })
        .await;
}

#[tokio::test]
async fn continue_resumes_the_last_session_of_the_directory() {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::tool_call("c1", "read", r#"{"filePath":"a.txt"}"#),
                Turn::text("It says alpha."),
                Turn::text("You asked about a.txt."),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let first = run(&t, &runner, "what is in a.txt?").await;
            let second = run_in(
                &t,
                &runner,
                SessionTarget::Continue,
                "what did I ask?",
                CancellationToken::new(),
            )
            .await;
            assert_eq!(second.session_id, first.session_id);
            assert_eq!(second.report.outcome, RunOutcome::Completed);
            let sent = &server.sent()[2];
            assert_eq!(
                sent.roles(),
                ["system", "user", "assistant", "tool", "assistant", "user"]
            );
            let text = |i: usize| sent.messages[i].items.clone();
            assert_eq!(text(0), [SentItem::Text("what is in a.txt?".into())]);
            assert_eq!(text(3), [SentItem::Text("It says alpha.".into())]);
            assert_eq!(text(4), [SentItem::Text("what did I ask?".into())]);
            assert_sent("continued_session", &t, &server);
            let store = store(&t);
            assert_log_consistent(&store, &second);
            // By id, the same session is found; a missing id is an error naming it.
            let by_id = strata_agent::session::open_session(
                &store,
                t.dir(),
                &SessionTarget::Id(first.session_id.clone()),
            )
            .unwrap();
            assert_eq!(by_id.id, first.session_id);
            let missing = strata_agent::session::open_session(
                &store,
                t.dir(),
                &SessionTarget::Id("ses_nope".into()),
            )
            .unwrap_err()
            .to_string();
            assert!(missing.contains("ses_nope"), "{missing}");
        })
        .await;
}

#[tokio::test]
async fn continue_without_a_session_says_so() {
    TestInstance::builder()
        .run(|t| async move {
            let store = store(&t);
            let err =
                strata_agent::session::open_session(&store, t.dir(), &SessionTarget::Continue)
                    .unwrap_err()
                    .to_string();
            assert!(err.contains("no earlier session"), "{err}");
        })
        .await;
}

#[tokio::test]
async fn the_step_budget_ends_the_run() {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::tool_call("c1", "glob", r#"{"pattern":"*.txt"}"#),
                Turn::tool_call("c2", "grep", r#"{"pattern":"alpha"}"#),
            ]);
            let opts = RunOptions {
                max_steps: 2,
                ..options()
            };
            let runner = runner(&t, &server, MODEL, opts);
            let ran = run(&t, &runner, "search").await;
            assert_eq!(ran.report.outcome, RunOutcome::StepLimit { steps: 2 });
            assert_eq!(server.requests().len(), 2);
            let store = store(&t);
            let errors: Vec<Value> = store
                .events_since(&ran.session_id, 0)
                .unwrap()
                .into_iter()
                .filter(|e| e.kind == "session.error")
                .map(|e| e.data)
                .collect();
            assert_eq!(errors.len(), 1);
            assert_eq!(errors[0]["error"]["name"], "StepLimitError");
            assert_log_consistent(&store, &ran);
        })
        .await;
}

#[tokio::test]
async fn edits_need_a_read_first_unless_the_config_turns_the_check_off() {
    for (config, expected) in [
        (json!({}), "the old value\n"),
        (
            json!({"tools": {"read_before_edit": false}}),
            "the new value\n",
        ),
    ] {
        TestInstance::builder()
            .file("notes.txt", "the old value\n")
            .config(config)
            .run(|t| async move {
                let server = ModelServer::start(vec![
                    Turn::tool_call(
                        "c1",
                        "edit",
                        r#"{"filePath":"notes.txt","oldString":"old","newString":"new"}"#,
                    ),
                    Turn::text("done"),
                ]);
                let runner = runner(&t, &server, MODEL, options());
                let ran = run(&t, &runner, "edit without reading").await;
                assert_eq!(ran.report.outcome, RunOutcome::Completed);
                assert_eq!(
                    std::fs::read_to_string(t.path("notes.txt")).unwrap(),
                    expected
                );
                assert_log_consistent(&store(&t), &ran);
            })
            .await;
    }
}

/// A tiny file that `read` recognises as PNG by its signature.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDRnot-a-real-image";

fn png_data_url() -> String {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(PNG);
    format!("data:image/png;base64,{b64}")
}

/// A session whose model reads `pixel.png` over either protocol; `check` gets the request that
/// carried the read's result.
async fn image_session(anthropic: bool, check: impl FnOnce(&SentRequest) + Send + 'static) {
    TestInstance::builder()
        .file("pixel.png", PNG)
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::tool_call("c1", "read", r#"{"filePath":"pixel.png"}"#),
                Turn::text("A single pixel."),
            ]);
            let runner = if anthropic {
                anthropic_runner(&t, &server, options())
            } else {
                runner(&t, &server, MODEL, options())
            };
            let ran = run(&t, &runner, "what is in pixel.png?").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert_log_consistent(&store(&t), &ran);
            let name = if anthropic {
                "image_read_anthropic"
            } else {
                "image_read_openai"
            };
            assert_sent(name, &t, &server);
            check(&server.sent()[1]);
        })
        .await;
}

#[tokio::test]
async fn an_image_read_by_a_tool_is_sent_to_an_openai_model_after_the_results() {
    image_session(false, |sent| {
        assert_eq!(
            sent.roles(),
            ["system", "user", "assistant", "tool", "user"]
        );
        assert_eq!(
            sent.messages[3].items,
            [
                SentItem::Text("Attached by tool call c1: pixel.png".into()),
                SentItem::Media {
                    kind: "image".into(),
                    source: png_data_url(),
                },
            ]
        );
    })
    .await;
}

#[tokio::test]
async fn an_image_read_by_a_tool_is_a_block_of_its_anthropic_tool_result() {
    image_session(true, |sent| {
        // The user turn after the call holds its result, then the image as a block of it.
        let items = &sent.messages[2].items;
        assert!(
            matches!(&items[0], SentItem::Result { call_id, .. } if call_id == "c1"),
            "{sent}"
        );
        assert_eq!(
            items[1],
            SentItem::Media {
                kind: "image".into(),
                source: png_data_url(),
            }
        );
    })
    .await;
}
