//! The loop decides parallelism from each call's own effects (spec §0.7, §7.5): a `bash`
//! command the scan proves read-only runs beside a `read`; one that writes runs alone, after
//! the calls before it. The commands block on a FIFO that only the test writes, so the order
//! is observed, not timed.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::loop_streaming::{part, run_watching, status};
use crate::loop_support::*;
use strata_agent::session::RunOutcome;
use strata_agent::store::Store;
use strata_testkit::model_server::{ModelServer, Turn, call};
use strata_testkit::{TestInstance, poll_with_timeout};

/// Makes a FIFO at `path` with the real `mkfifo`.
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("run mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Writes `text` into the FIFO, which lets the `cat` reading it finish.
async fn release(fifo: PathBuf, text: &'static str) {
    tokio::task::spawn_blocking(move || {
        let mut f = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
        f.write_all(text.as_bytes()).unwrap();
    })
    .await
    .unwrap();
}

/// (start, end) of a completed call.
fn time(store: &Store, sid: &str, id: &str) -> (i64, i64) {
    let p = part(store, sid, id).unwrap();
    assert_eq!(p["state"]["status"], "completed", "{p}");
    let t = &p["state"]["time"];
    (t["start"].as_i64().unwrap(), t["end"].as_i64().unwrap())
}

async fn wait_status(store: &Store, sid: &str, id: &str, want: &str) {
    poll_with_timeout(&format!("{id} to be {want}"), LIMIT, || {
        let now = status(store, sid, id);
        async move { (now.as_deref() == Some(want)).then_some(()) }
    })
    .await;
}

#[tokio::test]
async fn a_read_only_bash_call_runs_beside_a_read() {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .run(|t| async move {
            let fifo = t.path("wait.fifo");
            mkfifo(&fifo);
            let server = ModelServer::start(vec![
                Turn::ToolCalls(vec![
                    call("c1", "bash", r#"{"command":"cat wait.fifo | head -1"}"#),
                    call("c2", "read", r#"{"filePath":"a.txt"}"#),
                ]),
                Turn::text("done"),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let ran = run_watching(&t, &runner, "look", |store, sid| async move {
                // c1 blocks until the FIFO is written: c2 can only finish now if it runs
                // beside it.
                wait_status(&store, &sid, "c2", "completed").await;
                assert_eq!(status(&store, &sid, "c1").as_deref(), Some("running"));
                release(fifo, "released\n").await;
            })
            .await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let store = store(&t);
            let (c1, c2) = (
                time(&store, &ran.session_id, "c1"),
                time(&store, &ran.session_id, "c2"),
            );
            assert!(
                c2.0 <= c1.1 && c2.1 <= c1.1,
                "c2 {c2:?} ran inside c1 {c1:?}"
            );
            let results = server.sent()[1].results();
            assert_eq!(results[0].0, "c1", "results keep the model's order");
            assert!(results[0].1.contains("released"), "{:?}", results[0]);
            assert!(results[1].1.contains("alpha"), "{:?}", results[1]);
            assert_log_consistent(&store, &ran);
        })
        .await;
}

#[tokio::test]
async fn a_writing_bash_call_waits_for_the_calls_before_it() {
    TestInstance::builder()
        .run(|t| async move {
            let fifo = t.path("wait.fifo");
            mkfifo(&fifo);
            let made = t.path("made.txt");
            let server = ModelServer::start(vec![
                Turn::ToolCalls(vec![
                    call("c1", "bash", r#"{"command":"cat wait.fifo"}"#),
                    call("c2", "bash", r#"{"command":"touch made.txt"}"#),
                ]),
                Turn::text("done"),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let made_seen = made.clone();
            let ran = run_watching(&t, &runner, "go", |store, sid| async move {
                wait_status(&store, &sid, "c1", "running").await;
                let c2 = status(&store, &sid, "c2");
                assert!(matches!(c2.as_deref(), None | Some("pending")), "{c2:?}");
                assert!(!made_seen.exists(), "the writing call must wait for c1");
                release(fifo, "go\n").await;
            })
            .await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert!(made.exists());
            let store = store(&t);
            let (c1, c2) = (
                time(&store, &ran.session_id, "c1"),
                time(&store, &ran.session_id, "c2"),
            );
            assert!(
                c2.0 >= c1.1,
                "the writing call {c2:?} started after c1 {c1:?} ended"
            );
            assert_log_consistent(&store, &ran);
        })
        .await;
}
