//! The diff budget (`limits.diff`) end to end: a run whose edits add up past the budget has the
//! offending call undone byte for byte, and the model is told the budget and the total.

use serde_json::json;
use strata_agent::session::RunOutcome;
use strata_testkit::TestInstance;
use strata_testkit::model_server::{ModelServer, Turn};

use crate::loop_support::*;

/// Mixed line endings, no final newline, a stray byte: restored exactly, not re-encoded.
const ORIGINAL: &[u8] = b"one\r\ntwo\r\nthree\n\xfffour";

#[tokio::test]
async fn a_call_over_the_budget_is_undone_byte_for_byte() {
    TestInstance::builder()
        .file("a.txt", "alpha\nbeta\n")
        .file("raw.txt", ORIGINAL)
        .config(json!({
            "limits": {"diff": {"lines": 4, "files": 2}},
            "tools": {"read_before_edit": false}
        }))
        .run(|t| async move {
            let write = |id: &str, path: &str, content: &str| {
                Turn::tool_call(
                    id,
                    "write",
                    &json!({"filePath": path, "content": content}).to_string(),
                )
            };
            let edit = |id: &str, path: &str, old: &str, new: &str| {
                Turn::tool_call(
                    id,
                    "edit",
                    &json!({"filePath": path, "oldString": old, "newString": new}).to_string(),
                )
            };
            let server = ModelServer::start(vec![
                // 2 changed lines (one removed, one added): within the budget.
                edit("e1", "a.txt", "beta", "BETA"),
                // A new file of 3 lines: 5 in all, over 4. Undone: the file is removed.
                write("w1", "new.txt", "x\ny\nz\n"),
                // 1 line removed and 3 added in raw.txt: 6 in all. Undone to the exact bytes.
                edit("e2", "raw.txt", "two", "2\nb\nc"),
                // One added line in a second file: 3 lines in 2 files, within the budget.
                write("w2", "small.txt", "ok\n"),
                Turn::text("done"),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "change things").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let parts = tool_parts(&store(&t), &ran.session_id);
            let status: Vec<&str> = parts
                .iter()
                .map(|p| p["state"]["status"].as_str().unwrap())
                .collect();
            assert_eq!(status, ["completed", "error", "error", "completed"]);

            let error = parts[1]["state"]["error"].as_str().unwrap();
            assert!(
                error.contains("`limits.diff`: 4 lines, 2 files")
                    && error.contains("5 changed lines in 2 files")
                    && error.contains("now stands at 2 changed lines in 1 files"),
                "{error}"
            );
            assert!(!t.path("new.txt").exists(), "the created file is removed");

            let error = parts[2]["state"]["error"].as_str().unwrap();
            assert!(error.contains("6 changed lines in 2 files"), "{error}");
            assert_eq!(std::fs::read(t.path("raw.txt")).unwrap(), ORIGINAL);
            assert_eq!(std::fs::read(t.path("a.txt")).unwrap(), b"alpha\nBETA\n");
            assert_eq!(std::fs::read(t.path("small.txt")).unwrap(), b"ok\n");

            // The model heard why, with the numbers.
            let results = server.sent()[2].results();
            assert!(results[1].1.contains("diff budget"), "{results:?}");
        })
        .await;
}

#[tokio::test]
async fn without_limits_nothing_is_undone() {
    TestInstance::builder()
        .config(json!({"tools": {"read_before_edit": false}}))
        .run(|t| async move {
            let big: String = (0..500).map(|i| format!("line {i}\n")).collect();
            let server = ModelServer::start(vec![
                Turn::tool_call(
                    "w1",
                    "write",
                    &json!({"filePath": "big.txt", "content": big}).to_string(),
                ),
                Turn::text("done"),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "write a lot").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert_eq!(std::fs::read_to_string(t.path("big.txt")).unwrap(), big);
        })
        .await;
}
