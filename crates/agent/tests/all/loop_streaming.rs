//! Calls that start while the response still streams: a concurrency-safe call runs as soon as
//! its arguments are complete; a call that is not concurrency-safe still waits for the end of
//! the response and for the calls before it, and the calls after it wait for it.

use crate::loop_support::*;
use serde_json::Value;
use strata_agent::session::{RunOutcome, Runner, SessionTarget, open_session};
use strata_agent::store::{Store, now_ms};
use strata_testkit::TestInstance;
use strata_testkit::model_server::{Gate, ModelServer, Pause, Turn, call};
use strata_testkit::poll_with_timeout;
use tokio_util::sync::CancellationToken;

/// The stored data of the tool part for `call_id`, if it exists yet.
pub(crate) fn part(store: &Store, session_id: &str, call_id: &str) -> Option<Value> {
    tool_parts(store, session_id)
        .into_iter()
        .find(|p| p["callID"] == call_id)
}

pub(crate) fn status(store: &Store, session_id: &str, call_id: &str) -> Option<String> {
    part(store, session_id, call_id).and_then(|p| p["state"]["status"].as_str().map(Into::into))
}

/// Runs `message` while `watch` looks at the session; `watch` must open the gate.
pub(crate) async fn run_watching<W, Fut>(
    t: &TestInstance,
    runner: &Runner,
    message: &str,
    watch: W,
) -> Ran
where
    W: FnOnce(Store, String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let store = store(t);
    let session = open_session(&store, t.dir(), &SessionTarget::New).unwrap();
    let before = store
        .events_since(&session.id, 0)
        .unwrap()
        .last()
        .map_or(0, |e| e.seq);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let run = runner.run(&session.id, message, CancellationToken::new(), Some(tx));
    let (report, ()) = strata_testkit::await_with_timeout("the paced run to end", LIMIT, async {
        tokio::join!(run, watch(store.clone(), session.id.clone()))
    })
    .await;
    let mut heard = Vec::new();
    while let Ok(e) = rx.try_recv() {
        heard.push(e);
    }
    Ran {
        report: report.unwrap(),
        heard,
        session_id: session.id,
        before,
    }
}

async fn a_safe_call_completes_before_the_response_ends(anthropic: bool) {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .file("b.txt", "beta\n")
        .run(|t| async move {
            let gate = Gate::new();
            let server = ModelServer::start(vec![
                Turn::Paced {
                    calls: vec![
                        call("c1", "read", r#"{"filePath":"a.txt"}"#),
                        call("c2", "read", r#"{"filePath":"b.txt"}"#),
                    ],
                    pause: Pause::Until(gate.clone()),
                },
                Turn::text("Both read."),
            ]);
            let runner = if anthropic {
                anthropic_runner(&t, &server, options())
            } else {
                runner(&t, &server, MODEL, options())
            };
            let ran = run_watching(&t, &runner, "read both", |store, sid| async move {
                // The response is held open before c2's arguments: only a call started early
                // can be complete here.
                poll_with_timeout("c1 to complete while the response streams", LIMIT, || {
                    let done = status(&store, &sid, "c1").as_deref() == Some("completed");
                    async move { done.then_some(()) }
                })
                .await;
                let c2 = status(&store, &sid, "c2");
                assert!(matches!(c2.as_deref(), None | Some("pending")), "{c2:?}");
                gate.open();
            })
            .await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let results = server.sent()[1].results();
            let ids: Vec<&str> = results.iter().map(|r| r.0.as_str()).collect();
            assert_eq!(ids, ["c1", "c2"], "results keep the model's order");
            assert!(results[0].1.contains("alpha") && results[1].1.contains("beta"));
            assert_log_consistent(&store(&t), &ran);
        })
        .await;
}

#[tokio::test]
async fn a_safe_call_runs_while_the_openai_response_still_streams() {
    a_safe_call_completes_before_the_response_ends(false).await;
}

#[tokio::test]
async fn a_safe_call_runs_while_the_anthropic_response_still_streams() {
    a_safe_call_completes_before_the_response_ends(true).await;
}

#[tokio::test]
async fn an_unsafe_call_waits_for_the_response_and_the_calls_after_it_wait_for_it() {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .file("b.txt", "beta\n")
        .run(|t| async move {
            // Pause 0 holds the response before c1's arguments, pause 1 before c2's (by then
            // c1 is complete).
            let (before_c1, before_c2) = (Gate::new(), Gate::new());
            let server = ModelServer::start(vec![
                Turn::Paced {
                    calls: vec![
                        call("c0", "read", r#"{"filePath":"a.txt"}"#),
                        call("c1", "write", r#"{"filePath":"new.txt","content":"x\n"}"#),
                        call("c2", "read", r#"{"filePath":"b.txt"}"#),
                    ],
                    pause: Pause::Each(vec![before_c1.clone(), before_c2.clone()]),
                },
                Turn::text("Done."),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let opened = std::sync::Arc::new(std::sync::atomic::AtomicI64::new(0));
            let opened_at = opened.clone();
            let new_file = t.path("new.txt");
            let ran = run_watching(&t, &runner, "go", |store, sid| async move {
                poll_with_timeout("c0 to complete while the response streams", LIMIT, || {
                    let c0 = status(&store, &sid, "c0").as_deref() == Some("completed");
                    async move { c0.then_some(()) }
                })
                .await;
                before_c1.open();
                // c1's arguments are complete (recorded) while the response is held open.
                poll_with_timeout("c1's arguments to be complete", LIMIT, || {
                    let c1 = part(&store, &sid, "c1").is_some_and(|p| {
                        p["state"]["raw"].as_str().unwrap_or("").contains("new.txt")
                    });
                    async move { c1.then_some(()) }
                })
                .await;
                assert_eq!(status(&store, &sid, "c1").as_deref(), Some("pending"));
                assert!(!new_file.exists(), "the write must not run yet");
                opened_at.store(now_ms(), std::sync::atomic::Ordering::SeqCst);
                before_c2.open();
            })
            .await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert_eq!(std::fs::read_to_string(t.path("new.txt")).unwrap(), "x\n");
            let store = store(&t);
            let time = |id: &str| {
                let p = part(&store, &ran.session_id, id).unwrap();
                assert_eq!(p["state"]["status"], "completed", "{p}");
                let t = &p["state"]["time"];
                (t["start"].as_i64().unwrap(), t["end"].as_i64().unwrap())
            };
            let opened = opened.load(std::sync::atomic::Ordering::SeqCst);
            let (c0, c1, c2) = (time("c0"), time("c1"), time("c2"));
            assert!(c0.1 <= opened, "c0 ended before the response did");
            assert!(c1.0 >= opened, "the write started after the response ended");
            assert!(
                c1.0 >= c0.1,
                "the write started after the read before it ended"
            );
            assert!(c2.0 >= c1.1, "the read after the write waited for it");
            let ids: Vec<String> = server.sent()[1]
                .results()
                .into_iter()
                .map(|r| r.0)
                .collect();
            assert_eq!(ids, ["c0", "c1", "c2"]);
            assert_log_consistent(&store, &ran);
        })
        .await;
}

#[tokio::test]
async fn a_paced_stream_still_finishes_with_a_fixed_pause() {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::Paced {
                    calls: vec![
                        call("c1", "read", r#"{"filePath":"a.txt"}"#),
                        call("c2", "glob", r#"{"pattern":"*.txt"}"#),
                    ],
                    pause: Pause::For(std::time::Duration::from_millis(20)),
                },
                Turn::text("ok"),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "look").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert_log_consistent(&store(&t), &ran);
        })
        .await;
}
