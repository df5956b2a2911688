//! Compaction in the loop: a scripted 30-step session runs far past a tiny context window (a
//! catalogue entry from the config), and a provider's context-overflow answer compacts and
//! retries. What later requests carry is asserted; nothing leaves the store.

use crate::loop_support::*;
use serde_json::{Value, json};
use strata_agent::session::compact::PRUNED_OUTPUT;
use strata_agent::session::{RunOptions, RunOutcome, export};
use strata_testkit::TestInstance;
use strata_testkit::model_server::{ModelServer, Turn};

/// The window of the tiny model: 3000 tokens, 400 of them kept for the answer.
const CONTEXT: u64 = 3000;
const BYTES_PER_TOKEN: usize = 4;

fn tiny_model() -> Value {
    json!({"provider": {"openai": {"models": {"scripted-model": {
        "limit": {"context": CONTEXT, "output": 400},
    }}}}})
}

fn resume_prefix() -> &'static str {
    "The earlier part of this conversation was replaced by the summary below"
}

/// The estimated tokens of a request's messages, as the server counts them.
fn size(request: &Value) -> u64 {
    (request["messages"].to_string().len() / BYTES_PER_TOKEN) as u64
}

fn first_user_text(request: &Value) -> String {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn a_thirty_step_session_runs_past_a_tiny_window_by_compacting() {
    // Each file read adds about 700 tokens: the session needs about 20k tokens in all.
    let mut builder = TestInstance::builder().config(tiny_model());
    for i in 1..30 {
        builder = builder.file(format!("f{i}.txt"), format!("line {i}\n").repeat(300));
    }
    builder
        .run(|t| async move {
            let mut script: Vec<Turn> = (1..30)
                .map(|i| {
                    Turn::tool_call(
                        &format!("c{i}"),
                        "read",
                        &format!(r#"{{"filePath":"f{i}.txt"}}"#),
                    )
                })
                .collect();
            script.push(Turn::text("All 29 files read."));
            let server = ModelServer::start(script);
            server.count_input_tokens(BYTES_PER_TOKEN);
            server.answer_when(
                summary_needle(),
                Turn::text("SUMMARY: the user wants every file read; keep going."),
            );
            let opts = RunOptions {
                max_steps: 40,
                ..options()
            };
            let ran = run(&t, &runner(&t, &server, MODEL, opts), "read every file").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert_eq!(ran.report.steps, 30);
            assert_eq!(ran.report.text, "All 29 files read.");

            let requests = server.requests();
            let (summaries, steps): (Vec<&Value>, Vec<&Value>) = requests
                .iter()
                .partition(|r| r.to_string().contains(summary_needle()));
            assert_eq!(steps.len(), 30);
            assert!(summaries.len() >= 4, "{} compactions", summaries.len());

            // Requests stay near the window instead of growing to the whole session.
            let largest = steps.iter().map(|r| size(r)).max().unwrap();
            eprintln!(
                "compaction: {} summaries over 30 steps; largest step request {largest} tokens \
                 (window {CONTEXT}); the first request was {} tokens",
                summaries.len(),
                size(steps[0]),
            );
            assert!(largest < CONTEXT, "a request of {largest} tokens");
            // After the first compaction every request starts from a summary and carries only
            // the calls made since the last one.
            let first_compacted = steps
                .iter()
                .position(|r| first_user_text(r).starts_with(resume_prefix()))
                .expect("a request that starts from a summary");
            for r in &steps[first_compacted..] {
                let text = first_user_text(r);
                assert!(text.starts_with(resume_prefix()), "{text}");
                assert!(
                    text.contains("SUMMARY: the user wants every file read"),
                    "{text}"
                );
                // Then the user's request, verbatim, then the steps since the summary.
                assert_eq!(r["messages"][2]["role"], "user");
                assert_eq!(r["messages"][2]["content"], "read every file");
                let rest = &r["messages"].as_array().unwrap()[3..];
                assert!(rest.iter().all(|m| m["role"] != "user"), "{rest:?}");
            }
            let last = steps.last().unwrap().to_string();
            assert!(!last.contains("\"c1\""), "early calls are not sent again");
            assert!(last.contains("\"c29\""));
            // Old large outputs were pruned before they were summarised.
            assert!(
                summaries
                    .iter()
                    .any(|r| r.to_string().contains(PRUNED_OUTPUT)),
                "a summary request with pruned outputs"
            );

            // Nothing was deleted: the export has every call with its whole output.
            let store = store(&t);
            let exported = export(&store, &ran.session_id).unwrap();
            let tools: Vec<&Value> = exported["messages"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|m| m["parts"].as_array().unwrap())
                .filter(|p| p["type"] == "tool")
                .collect();
            assert_eq!(tools.len(), 29);
            for (i, part) in tools.iter().enumerate() {
                let output = part["state"]["output"].as_str().unwrap();
                assert!(output.contains(&format!("line {}", i + 1)), "{output}");
            }
            assert!(
                tools
                    .iter()
                    .any(|p| p["state"]["time"]["compacted"].is_i64())
            );
            let compactions: Vec<&Value> = exported["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["info"]["summary"] == true)
                .flat_map(|m| m["parts"].as_array().unwrap())
                .collect();
            assert_eq!(compactions.len(), summaries.len());
            assert!(compactions.iter().all(|p| p["type"] == "compaction"
                && p["auto"] == true
                && p["summary"].as_str().unwrap().starts_with("SUMMARY:")));
            assert_log_consistent(&store, &ran);
        })
        .await;
}

#[tokio::test]
async fn a_context_overflow_answer_compacts_and_sends_the_step_again() {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::tool_call("c1", "read", r#"{"filePath":"a.txt"}"#),
                context_overflow(),
                Turn::text("It says alpha."),
            ]);
            server.answer_when(summary_needle(), Turn::text("SUMMARY: a.txt was read."));
            let ran = run(&t, &runner(&t, &server, MODEL, options()), "read a.txt").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert_eq!(ran.report.text, "It says alpha.");
            let requests = server.requests();
            assert_eq!(requests.len(), 4, "step, refused step, summary, step again");
            assert!(requests[2].to_string().contains(summary_needle()));
            let text = first_user_text(&requests[3]);
            assert!(text.starts_with(resume_prefix()) && text.contains("SUMMARY: a.txt was read."));
            let compaction = store(&t)
                .messages(&ran.session_id)
                .unwrap()
                .into_iter()
                .flat_map(|(_, parts)| parts)
                .find(|p| p.kind == "compaction")
                .unwrap();
            assert_eq!(compaction.data["overflow"], true);
            assert_sent("compaction_after_overflow", &t, &server);
        })
        .await;
}

#[tokio::test]
async fn a_second_overflow_after_compacting_fails_the_run() {
    TestInstance::builder()
        .run(|t| async move {
            let overflow = r#"{"error":{"message":"prompt is too long","type":"invalid_request_error"}}"#;
            let server = ModelServer::start(vec![
                Turn::Status(400, overflow.into()),
                Turn::Status(400, overflow.into()),
            ]);
            server.answer_when(summary_needle(), Turn::text("SUMMARY: nothing yet."));
            let ran = run(&t, &runner(&t, &server, MODEL, options()), "hi").await;
            assert!(
                matches!(&ran.report.outcome, RunOutcome::Failed { error } if error.contains("prompt is too long")),
                "{:?}",
                ran.report.outcome
            );
            assert_eq!(server.requests().len(), 3);
        })
        .await;
}

#[tokio::test]
async fn the_configs_small_model_writes_the_summary() {
    TestInstance::builder()
        .config(json!({"small_model": "openai/small-one"}))
        .run(|t| async move {
            let server = ModelServer::start(vec![
                context_overflow(),
                Turn::text("SUMMARY: nothing yet."),
                Turn::text("Done."),
            ]);
            // Both models are `openai/…`: the small one reaches the same server.
            let url = server.url();
            let env = |name: &str| (name == "OPENAI_BASE_URL").then(|| url.clone());
            let config = t.get::<strata_services::config::Config>();
            let opts = RunOptions {
                small_model: strata_agent::session::small_model::resolve(
                    &config,
                    &strata_agent::provider::Resolver::new(&config.provider).with_env(env),
                ),
                ..options()
            };
            assert!(opts.small_model.is_some());
            let ran = run(&t, &runner(&t, &server, MODEL, opts), "hi").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let models: Vec<Value> = server
                .requests()
                .iter()
                .map(|r| r["model"].clone())
                .collect();
            assert_eq!(models, ["scripted-model", "small-one", "scripted-model"]);
            assert!(server.requests()[1].to_string().contains(summary_needle()));
            let summary = store(&t)
                .messages(&ran.session_id)
                .unwrap()
                .into_iter()
                .find(|(m, _)| m.data["summary"] == true)
                .unwrap();
            assert_eq!(summary.0.data["modelID"], "small-one");
        })
        .await;
}
