//! The agent loop when things go wrong or need the user: parallel calls waiting on
//! permission, broken streams and retries, cancellation, refusals, the doom-loop guard.

use crate::loop_support::*;
use serde_json::{Value, json};
use strata_agent::session::{RunOptions, RunOutcome, SessionTarget};
use strata_services::permission::{Permission, Reply};
use strata_testkit::model_server::{ModelServer, Turn, call};
use strata_testkit::{ReplyMode, TestInstance, poll_with_timeout};
use tokio_util::sync::CancellationToken;

fn errors(store: &strata_agent::store::Store, sid: &str) -> Vec<Value> {
    store
        .events_since(sid, 0)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == "session.error")
        .map(|e| e.data["error"].clone())
        .collect()
}

#[tokio::test]
async fn concurrency_safe_calls_run_in_parallel() {
    TestInstance::builder()
        .file(".env", "A=1\n")
        .file("b.env", "B=2\n")
        .run(|t| async move {
            t.reply_mode(ReplyMode::Manual);
            let server = ModelServer::start(vec![
                Turn::ToolCalls(vec![
                    call("c1", "read", r#"{"filePath":".env"}"#),
                    call("c2", "read", r#"{"filePath":"b.env"}"#),
                    call("c3", "glob", r#"{"pattern":"*.env"}"#),
                ]),
                Turn::text("both read"),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let answer = async {
                // Both reads wait for permission at the same time: they run in parallel.
                let asks = t.wait_for_asks("read", 2, LIMIT).await;
                let permission = t.get::<Permission>();
                assert_eq!(permission.pending().len(), 2);
                for ask in asks {
                    permission.reply(&ask.id, Reply::Once).unwrap();
                }
            };
            let (ran, ()) = tokio::join!(run(&t, &runner, "read the env files"), answer);
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let store = store(&t);
            let tools = tool_parts(&store, &ran.session_id);
            assert!(
                tools.iter().all(|p| p["state"]["status"] == "completed"),
                "{tools:?}"
            );
            let results = server.sent()[1].results();
            let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
            assert_eq!(ids, ["c1", "c2", "c3"], "results keep the model's order");
            assert_log_consistent(&store, &ran);
        })
        .await;
}

#[tokio::test]
async fn the_wait_before_a_retry_runs_on_the_clock() {
    let start = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_800_000_000);
    TestInstance::builder()
        .manual_clock(start)
        .run(|t| async move {
            let server =
                ModelServer::start(vec![Turn::Status(503, "busy".into()), Turn::text("ok")]);
            let opts = RunOptions {
                retry_delay: std::time::Duration::from_secs(30),
                ..options()
            };
            let runner = runner(&t, &server, MODEL, opts);
            // The output cleanup already sleeps on this clock (first run after a minute).
            let baseline = poll_with_timeout("the cleanup timer", LIMIT, || {
                let n = t.clock().pending_sleepers();
                async move { (n >= 1).then_some(n) }
            })
            .await;
            let t2 = t.clone();
            let running = tokio::spawn(async move { run(&t2, &runner, "hello").await });
            // The run sleeps on the test clock: nothing more reaches the model until it moves.
            poll_with_timeout("the retry to wait on the clock", LIMIT, || {
                let waiting = t.clock().pending_sleepers() > baseline;
                async move { waiting.then_some(()) }
            })
            .await;
            assert_eq!(server.requests().len(), 1);
            t.clock().advance(std::time::Duration::from_secs(30));
            let ran = running.await.unwrap();
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert_eq!(server.requests().len(), 2);
        })
        .await;
}

#[tokio::test]
async fn a_rate_limited_request_waits_as_long_as_the_server_asks() {
    let start = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_800_000_000);
    TestInstance::builder()
        .manual_clock(start)
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::RateLimited {
                    retry_after_secs: 20,
                },
                Turn::text("ok"),
            ]);
            let opts = RunOptions {
                retry_delay: std::time::Duration::from_secs(1),
                ..options()
            };
            let runner = runner(&t, &server, MODEL, opts);
            let t2 = t.clone();
            let running = tokio::spawn(async move { run(&t2, &runner, "hello").await });
            // The retry status names the wait, and the run sleeps that long on the test clock.
            let waits = poll_with_timeout("the retry status", LIMIT, || {
                let store = store(&t);
                async move {
                    let sessions = store.list_sessions(None).ok()?;
                    let id = &sessions.first()?.id;
                    store
                        .events_since(id, 0)
                        .ok()?
                        .into_iter()
                        .find(|e| e.data["status"]["type"] == "retry")
                        .map(|e| e.data["status"]["waitMs"].clone())
                }
            })
            .await;
            assert_eq!(waits, json!(20_000));
            assert_eq!(server.requests().len(), 1);
            t.clock().advance(std::time::Duration::from_secs(20));
            let ran = running.await.unwrap();
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert_eq!(server.requests().len(), 2);
        })
        .await;
}

#[tokio::test]
async fn a_broken_stream_fails_its_calls_and_the_step_is_retried() {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::broken_call("Let me ", "c1", "read", r#"{"filePath":"a.txt"}"#),
                Turn::tool_call("c2", "read", r#"{"filePath":"a.txt"}"#),
                Turn::text("alpha"),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "read a.txt").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert_eq!(ran.report.steps, 2, "a retry is not a new step");
            let store = store(&t);
            let tools = tool_parts(&store, &ran.session_id);
            assert_eq!(tools[0]["callID"], "c1");
            assert_eq!(tools[0]["state"]["status"], "error");
            assert!(
                tools[0]["state"]["metadata"]["raw"]
                    .as_str()
                    .unwrap()
                    .starts_with("{\"file")
            );
            assert_eq!(tools[1]["state"]["status"], "completed");
            let messages = store.messages(&ran.session_id).unwrap();
            let broken = &messages[1].0.data;
            assert_eq!(broken["error"]["name"], "StreamInterruptedError");
            assert_eq!(broken["retried"], true);
            // The partial text was kept in its part, but the retry does not send it.
            assert_eq!(messages[1].1[1].data["text"], "Let me ");
            let retry = &server.sent()[1];
            assert_eq!(retry.roles(), ["system", "user"], "{retry}");
            let statuses: Vec<Value> = store
                .events_since(&ran.session_id, 0)
                .unwrap()
                .into_iter()
                .filter(|e| e.kind == "session.status")
                .map(|e| e.data["status"]["type"].clone())
                .collect();
            assert_eq!(statuses, [json!("busy"), json!("retry"), json!("idle")]);
            assert_log_consistent(&store, &ran);
        })
        .await;
}

#[tokio::test]
async fn without_retries_left_a_failure_ends_the_run_with_an_error_event() {
    TestInstance::builder()
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::Status(503, r#"{"error":{"message":"busy"}}"#.into()),
                Turn::Status(503, r#"{"error":{"message":"still busy"}}"#.into()),
            ]);
            let opts = RunOptions {
                max_retries: 1,
                ..options()
            };
            let runner = runner(&t, &server, MODEL, opts);
            let ran = run(&t, &runner, "hi").await;
            let RunOutcome::Failed { error } = &ran.report.outcome else {
                panic!("{:?}", ran.report.outcome);
            };
            assert!(
                error.contains("503") && error.contains("still busy"),
                "{error}"
            );
            assert_eq!(server.requests().len(), 2);
            let store = store(&t);
            let errs = errors(&store, &ran.session_id);
            assert_eq!(errs.len(), 1);
            assert_eq!(errs[0]["name"], "APIError");
            assert_log_consistent(&store, &ran);
        })
        .await;
}

#[tokio::test]
async fn cancelling_marks_the_running_tool_and_withdraws_its_ask() {
    TestInstance::builder()
        .file(".env", "A=1\n")
        .run(|t| async move {
            t.reply_mode(ReplyMode::Manual);
            let server = ModelServer::start(vec![Turn::tool_call(
                "c1",
                "read",
                r#"{"filePath":".env"}"#,
            )]);
            let runner = runner(&t, &server, MODEL, options());
            let cancel = CancellationToken::new();
            let press_ctrl_c = async {
                t.wait_for_asks("read", 1, LIMIT).await;
                cancel.cancel();
            };
            let (ran, ()) = tokio::join!(
                run_in(&t, &runner, SessionTarget::New, "read .env", cancel.clone()),
                press_ctrl_c
            );
            assert_eq!(ran.report.outcome, RunOutcome::Cancelled);
            assert!(
                t.get::<Permission>().pending().is_empty(),
                "the ask is withdrawn"
            );
            let store = store(&t);
            let tools = tool_parts(&store, &ran.session_id);
            assert_eq!(tools[0]["state"]["status"], "error");
            assert_eq!(tools[0]["state"]["metadata"]["cancelled"], true);
            let errs = errors(&store, &ran.session_id);
            assert_eq!(errs[0]["name"], "MessageAbortedError");
            assert_log_consistent(&store, &ran);
        })
        .await;
}

#[tokio::test]
async fn a_cancelled_command_keeps_what_it_printed() {
    TestInstance::builder()
        .run(|t| async move {
            let server = ModelServer::start(vec![Turn::tool_call(
                "c1",
                "bash",
                r#"{"command":"echo before && sleep 30"}"#,
            )]);
            let runner = runner(&t, &server, MODEL, options());
            let cancel = CancellationToken::new();
            let store = store(&t);
            let press_ctrl_c = async {
                poll_with_timeout("`before` in the running part", LIMIT, || {
                    let printed = store
                        .list_sessions(None)
                        .unwrap()
                        .first()
                        .map(|s| tool_parts(&store, &s.id))
                        .unwrap_or_default()
                        .iter()
                        .any(|p| p["state"]["metadata"]["output"].as_str() == Some("before\n"));
                    async move { printed.then_some(()) }
                })
                .await;
                cancel.cancel();
            };
            let (ran, ()) = tokio::join!(
                run_in(&t, &runner, SessionTarget::New, "run it", cancel.clone()),
                press_ctrl_c
            );
            assert_eq!(ran.report.outcome, RunOutcome::Cancelled);
            let tools = tool_parts(&store, &ran.session_id);
            let output = tools[0]["state"]["output"].as_str().unwrap_or_default();
            assert!(output.starts_with("before"), "{}", tools[0]);
            assert!(output.contains("aborted"), "{}", tools[0]);
            assert_log_consistent(&store, &ran);
        })
        .await;
}

#[tokio::test]
async fn cancelling_while_the_model_streams_drops_the_request() {
    TestInstance::builder()
        .run(|t| async move {
            let server = ModelServer::start(vec![Turn::Hang]);
            let runner = runner(&t, &server, MODEL, options());
            let cancel = CancellationToken::new();
            let press_ctrl_c = async {
                poll_with_timeout("the model request", LIMIT, || {
                    let n = server.requests().len();
                    async move { (n == 1).then_some(()) }
                })
                .await;
                cancel.cancel();
            };
            let (ran, ()) = tokio::join!(
                run_in(&t, &runner, SessionTarget::New, "hi", cancel.clone()),
                press_ctrl_c
            );
            assert_eq!(ran.report.outcome, RunOutcome::Cancelled);
            poll_with_timeout("the connection to close", LIMIT, || {
                let n = server.hangs_released();
                async move { (n == 1).then_some(()) }
            })
            .await;
            let store = store(&t);
            let messages = store.messages(&ran.session_id).unwrap();
            assert_eq!(messages[1].0.data["error"]["name"], "MessageAbortedError");
            assert_log_consistent(&store, &ran);
        })
        .await;
}

#[tokio::test]
async fn a_rule_that_denies_stops_the_turn() {
    TestInstance::builder()
        .file("secret.txt", "s3cret\n")
        .config(json!({"permission": {"read": {"*secret*": "deny"}}}))
        .run(|t| async move {
            let server = ModelServer::start(vec![Turn::tool_call(
                "c1",
                "read",
                r#"{"filePath":"secret.txt"}"#,
            )]);
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "read the secret").await;
            let RunOutcome::Stopped { reason } = &ran.report.outcome else {
                panic!("{:?}", ran.report.outcome);
            };
            assert!(reason.contains("secret"), "{reason}");
            assert_eq!(server.requests().len(), 1, "no step after a denial");
            assert!(t.asked().is_empty(), "a deny rule asks no one");
            let store = store(&t);
            assert_eq!(
                tool_parts(&store, &ran.session_id)[0]["state"]["status"],
                "error"
            );
            assert_log_consistent(&store, &ran);
        })
        .await;
}

#[tokio::test]
async fn a_rejection_with_feedback_goes_back_to_the_model() {
    TestInstance::builder()
        .file(".env", "A=1\n")
        .run(|t| async move {
            t.reply_mode(ReplyMode::Reject(Some("read README.md instead".into())));
            let server = ModelServer::start(vec![
                Turn::tool_call("c1", "read", r#"{"filePath":".env"}"#),
                Turn::text("ok, I will not"),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "read .env").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let results = server.sent()[1].results();
            assert!(
                results[0].1.contains("read README.md instead"),
                "{}",
                results[0].1
            );
            assert_log_consistent(&store(&t), &ran);
        })
        .await;
}

#[tokio::test]
async fn the_fourth_identical_call_asks_doom_loop_permission() {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .run(|t| async move {
            t.reply_mode(ReplyMode::Reject(None));
            let same = || Turn::tool_call("c", "glob", r#"{"pattern":"*.txt"}"#);
            let server = ModelServer::start(vec![same(), same(), same(), same()]);
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "find txt files").await;
            assert!(
                matches!(ran.report.outcome, RunOutcome::Stopped { .. }),
                "{:?}",
                ran.report.outcome
            );
            let asks = t.asked_for("doom_loop");
            assert_eq!(asks.len(), 1, "only the fourth call asks");
            assert_eq!(asks[0].patterns, ["glob"]);
            assert_eq!(asks[0].metadata["input"], json!({"pattern": "*.txt"}));
            let store = store(&t);
            let statuses: Vec<Value> = tool_parts(&store, &ran.session_id)
                .iter()
                .map(|p| p["state"]["status"].clone())
                .collect();
            assert_eq!(statuses, ["completed", "completed", "completed", "error"]);
            assert_log_consistent(&store, &ran);
        })
        .await;
}
