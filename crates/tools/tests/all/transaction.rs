//! `transaction` (spec §20) on real files in a test instance: every edit applied and the check
//! passed; an edit that does not match; a write that fails midway; a check that fails, times
//! out or writes files of its own, or whose write outside the project the sandbox refuses;
//! refused permissions; the diff budget.

use serde_json::{Value, json};
use strata_registry::ToolRegistry;
use strata_services::process::sandbox::Support;
use strata_testkit::{ReplyMode, TestInstance, redacted};

use crate::edit_support::{bytes, mode, model_error, read_first, set_mode, temp_leftovers};

/// A file with CRLF endings, one with a BOM, one without a final newline: restored exactly.
const CRLF: &[u8] = b"one\r\ntwo\r\n";
const BOM: &[u8] = "\u{FEFF}using A;\nusing B;\n".as_bytes();
const NO_NL: &[u8] = b"first\nlast line";

fn edit(path: &str, old: &str, new: &str) -> Value {
    json!({"filePath": path, "oldString": old, "newString": new})
}

fn files() -> strata_testkit::TestInstanceBuilder {
    TestInstance::builder()
        .file("crlf.txt", CRLF)
        .file("bom.cs", BOM)
        .file("nonl.txt", NO_NL)
}

async fn read_all(t: &TestInstance) {
    for f in ["crlf.txt", "bom.cs", "nonl.txt"] {
        read_first(t, f).await;
    }
}

/// Asserts the three fixture files hold their original bytes, and `nonl.txt` mode 0751.
fn assert_untouched(t: &TestInstance) {
    assert_eq!(bytes(t, "crlf.txt"), CRLF);
    assert_eq!(bytes(t, "bom.cs"), BOM);
    assert_eq!(bytes(t, "nonl.txt"), NO_NL);
    assert_eq!(mode(&t.path("nonl.txt")), 0o751, "mode bits are kept");
    assert_eq!(temp_leftovers(t.dir()), Vec::<String>::new());
}

/// Three edits over the fixtures and a created file.
fn three_edits() -> Vec<Value> {
    vec![
        edit("crlf.txt", "two", "TWO"),
        edit("bom.cs", "using B;", "using C;"),
        edit("nonl.txt", "last line", "final line"),
        edit("made/deep/new.txt", "", "created\n"),
    ]
}

#[tokio::test]
async fn every_edit_applies_and_the_check_passes() {
    files()
        .config(json!({"permission": {"edit": "ask", "bash": "ask"}, "sandbox": {"auto_allow": false}}))
        .run(|t| async move {
            read_all(&t).await;
            set_mode(&t.path("nonl.txt"), 0o751);
            let mut edits = three_edits();
            // A second edit of a file sees the first one.
            edits.push(edit("crlf.txt", "TWO", "2"));
            let r = t
                .call(
                    "transaction",
                    json!({"edits": edits, "check": "grep -q 'final line' nonl.txt && echo checked"}),
                )
                .await
                .unwrap();
            assert_eq!(bytes(&t, "crlf.txt"), b"one\r\n2\r\n");
            assert_eq!(bytes(&t, "bom.cs"), "\u{FEFF}using A;\nusing C;\n".as_bytes());
            assert_eq!(bytes(&t, "nonl.txt"), b"first\nfinal line");
            assert_eq!(mode(&t.path("nonl.txt")), 0o751);
            assert_eq!(bytes(&t, "made/deep/new.txt"), b"created\n");
            assert!(
                r.output.starts_with(
                    "The transaction applied 5 edits to 4 files:\nM crlf.txt\nM bom.cs\nM \
                     nonl.txt\nA made/deep/new.txt\n\nThe check `grep -q 'final line' \
                     nonl.txt && echo checked` passed."
                ),
                "{}",
                r.output
            );
            assert!(r.output.contains("checked"), "{}", r.output);
            assert_eq!(r.metadata["check"]["exit"], 0);
            assert_eq!(r.metadata["files"].as_array().unwrap().len(), 4);
            // One ask, with the diff of every file.
            let asks = t.asked_for("edit");
            assert_eq!(asks.len(), 1, "{asks:?}");
            let diff = asks[0].metadata["diff"].as_str().unwrap();
            for f in ["crlf.txt", "bom.cs", "nonl.txt", "new.txt"] {
                assert!(diff.contains(f), "{f} missing from the diff: {diff}");
            }
            assert_eq!(t.asked_for("bash").len(), 1, "the check is asked too");
        })
        .await;
}

#[tokio::test]
async fn an_edit_that_does_not_match_writes_nothing() {
    files()
        .config(json!({"permission": {"edit": "ask"}}))
        .run(|t| async move {
            read_all(&t).await;
            set_mode(&t.path("nonl.txt"), 0o751);
            let mut edits = three_edits();
            edits[2] = edit("nonl.txt", "no such text", "x");
            let msg = model_error(
                t.call("transaction", json!({"edits": edits, "check": "touch ran"}))
                    .await,
            );
            assert!(msg.starts_with("Edit 3 of 4 (`edits[2]`, "), "{msg}");
            redacted(&t).bind(|| insta::assert_snapshot!("transaction_edit_not_found", msg));
            assert!(msg.contains("was not found"), "{msg}");
            assert!(msg.ends_with("Nothing was written."), "{msg}");
            assert_untouched(&t);
            assert!(!t.path("made").exists());
            assert!(!t.path("ran").exists(), "the check did not run");
            assert!(t.asked().is_empty(), "nothing was asked");
        })
        .await;
}

#[tokio::test]
async fn a_write_that_fails_restores_the_earlier_files_byte_for_byte() {
    files()
        .file("ro.txt", "read only\n")
        .run(|t| async move {
            read_all(&t).await;
            read_first(&t, "ro.txt").await;
            set_mode(&t.path("nonl.txt"), 0o751);
            // Root ignores modes, but the atomic write refuses a file without write bits.
            set_mode(&t.path("ro.txt"), 0o444);
            let mut edits = three_edits();
            edits.push(edit("ro.txt", "read only", "written"));
            let msg = model_error(
                t.call("transaction", json!({"edits": edits, "check": "touch ran"}))
                    .await,
            );
            assert!(msg.starts_with("The edits could not be written: "), "{msg}");
            assert!(msg.contains("ro.txt"), "{msg}");
            assert!(msg.contains("put back byte for byte"), "{msg}");
            assert_untouched(&t);
            assert!(
                !t.path("made").exists(),
                "created files and folders are removed"
            );
            assert_eq!(bytes(&t, "ro.txt"), b"read only\n");
            assert!(!t.path("ran").exists(), "the check did not run");
            // The files were put back as the session read them: a new edit needs no new read.
            t.call("edit", edit("crlf.txt", "one", "ONE"))
                .await
                .unwrap();
        })
        .await;
}

#[tokio::test]
async fn a_failing_check_restores_every_file_and_reports_its_output() {
    files()
        .run(|t| async move {
            read_all(&t).await;
            set_mode(&t.path("nonl.txt"), 0o751);
            let msg = model_error(
                t.call(
                    "transaction",
                    json!({"edits": three_edits(),
                           "check": "echo 'error: the build broke' >&2; exit 3"}),
                )
                .await,
            );
            assert!(
                msg.starts_with(
                    "The check `echo 'error: the build broke' >&2; exit 3` exited with code 3, \
                     so the transaction was rolled back. Every edited file was put back byte \
                     for byte"
                ),
                "{msg}"
            );
            assert!(msg.contains("error: the build broke"), "{msg}");
            redacted(&t).bind(|| insta::assert_snapshot!("transaction_check_failed", msg));
            assert_untouched(&t);
            assert!(
                !t.path("made").exists(),
                "the created file and its folders are gone"
            );
        })
        .await;
}

#[tokio::test]
async fn a_check_that_runs_out_of_time_restores_every_file() {
    files()
        .run(|t| async move {
            read_all(&t).await;
            set_mode(&t.path("nonl.txt"), 0o751);
            let msg = model_error(
                t.call(
                    "transaction",
                    json!({"edits": three_edits(), "check": "echo started; sleep 30",
                           "timeout": 300}),
                )
                .await,
            );
            assert!(
                msg.contains("ran past its time limit of 300 ms and was stopped"),
                "{msg}"
            );
            assert!(msg.contains("started"), "the output so far is shown: {msg}");
            assert_untouched(&t);
            assert!(!t.path("made").exists());
        })
        .await;
}

#[tokio::test]
async fn files_the_check_writes_are_kept_unless_they_were_edited() {
    files()
        .run(|t| async move {
            read_all(&t).await;
            set_mode(&t.path("nonl.txt"), 0o751);
            // The check fills a build folder, overwrites an edited file, then fails.
            let check = "mkdir -p build && echo artefact > build/out.o && echo clobbered > \
                         crlf.txt && exit 1";
            let msg = model_error(
                t.call(
                    "transaction",
                    json!({"edits": three_edits(), "check": check}),
                )
                .await,
            );
            assert!(
                msg.contains(
                    "Files that the check itself created or changed (a build folder, for \
                     example) were left as the check left them, unless they were among the \
                     edited files."
                ),
                "{msg}"
            );
            assert_eq!(
                bytes(&t, "build/out.o"),
                b"artefact\n",
                "the check's file is kept"
            );
            assert_untouched(&t);
        })
        .await;
}

/// The check runs on the bash tool's path, sandbox included: a check that writes outside the
/// project is refused by the sandbox, which fails the check and rolls the edits back.
#[tokio::test]
async fn the_sandbox_confines_the_check_and_its_refused_write_rolls_back() {
    let support = Support::probe();
    if !support.enforceable() {
        println!("skipped: {}", support.missing_reason());
        return;
    }
    let outside = tempfile::Builder::new()
        .prefix("transaction-outside-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let target = std::fs::canonicalize(outside.path())
        .unwrap()
        .join("escaped.txt");
    files()
        .config(json!({"permission": {"external_directory": "allow"}}))
        .run(|t| async move {
            read_all(&t).await;
            set_mode(&t.path("nonl.txt"), 0o751);
            let check = format!("echo escaped > {}", target.display());
            let msg = model_error(
                t.call(
                    "transaction",
                    json!({"edits": three_edits(), "check": check}),
                )
                .await,
            );
            assert!(!target.exists(), "the sandbox let the check write: {msg}");
            assert!(msg.contains("so the transaction was rolled back"), "{msg}");
            let hint = msg.lines().find(|l| l.starts_with("sandbox:"));
            assert!(
                hint.is_some_and(|h| h.contains(&target.display().to_string())),
                "the refused path is named: {msg}"
            );
            assert_untouched(&t);
            assert!(!t.path("made").exists());
        })
        .await;
}

#[tokio::test]
async fn a_refused_edit_ask_writes_nothing_and_runs_no_check() {
    files()
        .config(json!({"permission": {"edit": "ask"}}))
        .run(|t| async move {
            read_all(&t).await;
            set_mode(&t.path("nonl.txt"), 0o751);
            t.reply_mode(ReplyMode::Reject(None));
            let r = t
                .call(
                    "transaction",
                    json!({"edits": three_edits(), "check": "touch ran"}),
                )
                .await;
            assert!(r.is_err());
            assert_untouched(&t);
            assert!(!t.path("made").exists());
            assert!(!t.path("ran").exists());
            assert_eq!(t.asked_for("edit").len(), 1);
        })
        .await;
}

#[tokio::test]
async fn a_denied_check_writes_nothing() {
    files()
        .config(json!({"permission": {"bash": "deny"}}))
        .run(|t| async move {
            read_all(&t).await;
            set_mode(&t.path("nonl.txt"), 0o751);
            let r = t
                .call(
                    "transaction",
                    json!({"edits": three_edits(), "check": "touch ran"}),
                )
                .await;
            assert!(
                matches!(r, Err(strata_tools::ToolError::Permission(_))),
                "{r:?}"
            );
            assert_untouched(&t);
            assert!(!t.path("made").exists());
            assert!(!t.path("ran").exists());
        })
        .await;
}

#[tokio::test]
async fn without_a_check_the_edits_stand_and_bash_is_not_asked() {
    files()
        .config(json!({"permission": {"bash": "ask"}}))
        .run(|t| async move {
            read_all(&t).await;
            let r = t
                .call(
                    "transaction",
                    json!({"edits": [edit("crlf.txt", "one", "1")]}),
                )
                .await
                .unwrap();
            assert_eq!(
                r.output,
                "The transaction applied 1 edit to 1 file:\nM crlf.txt"
            );
            assert_eq!(bytes(&t, "crlf.txt"), b"1\r\ntwo\r\n");
            assert!(t.asked_for("bash").is_empty());
            assert!(r.metadata.get("check").is_none());
        })
        .await;
}

#[tokio::test]
async fn bad_calls_are_refused_before_anything_is_read() {
    files()
        .run(|t| async move {
            let cases = [
                (json!({"edits": []}), "`edits` is empty"),
                (
                    json!({"edits": [edit("", "a", "b")]}),
                    "`edits[0].filePath` is missing",
                ),
                (
                    json!({"edits": [edit("crlf.txt", "a", "a")]}),
                    "In `edits[0]`, `oldString` and `newString` are the same",
                ),
                (
                    json!({"edits": [edit("crlf.txt", "one", "1")], "check": "  "}),
                    "`check` is empty",
                ),
                (
                    json!({"edits": [edit("crlf.txt", "one", "1")], "timeout": 5}),
                    "no `check` was given",
                ),
            ];
            for (args, want) in cases {
                let msg = model_error(t.call("transaction", args).await);
                assert!(msg.contains(want), "{want}: {msg}");
            }
            // The read-before-edit rule of `edit` holds.
            let msg = model_error(
                t.call(
                    "transaction",
                    json!({"edits": [edit("crlf.txt", "one", "1")]}),
                )
                .await,
            );
            assert!(msg.contains("crlf.txt"), "{msg}");
            assert_eq!(bytes(&t, "crlf.txt"), CRLF);
        })
        .await;
}

#[tokio::test]
async fn the_diff_budget_counts_the_whole_transaction_as_one_change() {
    // Each edit changes 2 lines; the budget allows 4. Three edits as one call go over and are
    // undone together; two stay within it.
    TestInstance::builder()
        .file("a.txt", "a\n")
        .file("b.txt", "b\n")
        .file("c.txt", "c\n")
        .config(json!({"limits": {"diff": {"lines": 4}},
                       "tools": {"read_before_edit": false}}))
        .run(|t| async move {
            let msg = model_error(
                t.call(
                    "transaction",
                    json!({"edits": [edit("a.txt", "a", "A"), edit("b.txt", "b", "B"),
                                     edit("c.txt", "c", "C")]}),
                )
                .await,
            );
            assert!(msg.contains("`limits.diff`"), "{msg}");
            assert!(msg.contains("6 changed lines in 3 files"), "{msg}");
            for (f, text) in [("a.txt", "a\n"), ("b.txt", "b\n"), ("c.txt", "c\n")] {
                assert_eq!(bytes(&t, f), text.as_bytes(), "{f} is undone with the rest");
            }
            t.call(
                "transaction",
                json!({"edits": [edit("a.txt", "a", "A"), edit("b.txt", "b", "B")]}),
            )
            .await
            .unwrap();
            assert_eq!(bytes(&t, "a.txt"), b"A\n");
            assert_eq!(bytes(&t, "b.txt"), b"B\n");
        })
        .await;
}

#[tokio::test]
async fn the_schema_takes_edits_in_the_shape_of_edit() {
    TestInstance::builder()
        .run(|t| async move {
            let registry = t.get::<ToolRegistry>();
            let tool = registry.get("transaction").unwrap();
            let schema = (*tool.schema).clone();
            assert_eq!(schema["required"], json!(["edits"]));
            let item = &schema["properties"]["edits"]["items"];
            assert_eq!(
                item["required"],
                json!(["filePath", "oldString", "newString"])
            );
            let edit = registry.get("edit").unwrap();
            assert_eq!(
                item["properties"], edit.schema["properties"],
                "the same edit shape"
            );
            assert_eq!(tool.permission, "edit");
            assert!(tool.effects.destructive && !tool.effects.concurrency_safe);
            let pretty = serde_json::to_string_pretty(&schema).unwrap();
            insta::assert_snapshot!("schema_transaction", pretty);
        })
        .await;
}
