//! `edit` through the real wrapper: creating files, exact and tolerant replacements, the
//! refusals of spec §3.5, BOM and CRLF handling, events and metadata (spec §3, §19 edit).

use crate::edit_support::{
    ask_edits, assert_mentions, bytes, drain, model_error, read_first, text, watch,
};
use serde_json::json;
use strata_services::bus::WatchKind;
use strata_testkit::{TestInstance, redacted};

#[tokio::test]
async fn empty_old_string_creates_a_missing_file() {
    TestInstance::builder()
        .config(ask_edits())
        .run(|t| async move {
            let mut events = watch(&t);
            let r = t
                .call(
                    "edit",
                    json!({"filePath": "fresh.txt", "oldString": "", "newString": "hello there\n"}),
                )
                .await
                .unwrap();
            assert_eq!(text(&t, "fresh.txt"), "hello there\n");
            assert_eq!(r.title, "fresh.txt");
            let diff = r.metadata["diff"].as_str().unwrap();
            assert!(diff.contains("+hello there"), "{diff}");
            assert!(diff.contains("@@ -0,0 +1,1 @@"), "{diff}");
            assert_eq!(r.metadata["filediff"]["additions"], 1);
            assert_eq!(r.metadata["filediff"]["deletions"], 0);
            // The new file is announced as added.
            let path = t.path("fresh.txt");
            let seen = drain(&mut events);
            assert!(seen.contains(&(path.clone(), WatchKind::Add)), "{seen:?}");
            // One `edit` ask for the worktree-relative path, with the diff.
            let asks = t.asked_for("edit");
            assert_eq!(asks.len(), 1, "{asks:?}");
            assert_eq!(asks[0].patterns, ["fresh.txt"]);
            assert_eq!(asks[0].always, ["*"]);
            assert_eq!(asks[0].metadata["filepath"], path.to_str().unwrap());
            assert!(
                asks[0].metadata["diff"]
                    .as_str()
                    .unwrap()
                    .contains("+hello there")
            );
        })
        .await;
}

#[tokio::test]
async fn empty_old_string_creates_missing_parent_directories() {
    TestInstance::builder()
        .run(|t| async move {
            t.call(
                "edit",
                json!({"filePath": "deep/er/new.txt", "oldString": "", "newString": "x"}),
            )
            .await
            .unwrap();
            assert!(t.path("deep/er").is_dir());
            assert_eq!(text(&t, "deep/er/new.txt"), "x");
        })
        .await;
}

#[tokio::test]
async fn empty_old_string_on_an_existing_file_is_refused() {
    TestInstance::builder()
        .file("here.txt", "kept\n")
        .run(|t| async move {
            read_first(&t, "here.txt").await;
            let msg = model_error(
                t.call(
                    "edit",
                    json!({"filePath": "here.txt", "oldString": "", "newString": "other"}),
                )
                .await,
            );
            assert_mentions(
                &msg,
                &[t.path("here.txt").to_str().unwrap(), "oldString", "write"],
            );
            assert_eq!(text(&t, "here.txt"), "kept\n");
        })
        .await;
}

#[tokio::test]
async fn exact_replacement_changes_the_file_and_reports_a_change() {
    TestInstance::builder()
        .file("file.txt", "old content here\n")
        .run(|t| async move {
            read_first(&t, "file.txt").await;
            let mut events = watch(&t);
            let r = t
                .call(
                    "edit",
                    json!({"filePath": "file.txt", "oldString": "old content",
                           "newString": "new content"}),
                )
                .await
                .unwrap();
            assert_eq!(text(&t, "file.txt"), "new content here\n");
            assert!(r.output.to_lowercase().contains("edit"), "{}", r.output);
            assert_eq!(r.metadata["truncated"], false);
            let seen = drain(&mut events);
            assert_eq!(seen, [(t.path("file.txt"), WatchKind::Change)]);
            // filediff names the file and counts the change.
            let fd = &r.metadata["filediff"];
            assert_eq!(fd["file"], t.path("file.txt").to_str().unwrap());
            assert!(fd["additions"].as_u64().unwrap() > 0);
            assert_eq!(fd["deletions"], 1);
            assert_eq!(fd["patch"], r.metadata["diff"]);
            assert_eq!(r.metadata["diagnostics"], json!({}));
        })
        .await;
}

#[tokio::test]
async fn success_output_and_diff_snapshot() {
    TestInstance::builder()
        .file("src/app.py", "def main():\n    print('hi')\n    return 0\n")
        .run(|t| async move {
            read_first(&t, "src/app.py").await;
            let r = t
                .call(
                    "edit",
                    json!({"filePath": "src/app.py", "oldString": "    print('hi')",
                           "newString": "    print('hello')\n    print('world')"}),
                )
                .await
                .unwrap();
            let shown = format!(
                "title: {}\noutput: {}\nadditions: {} deletions: {}\n\n{}",
                r.title,
                r.output,
                r.metadata["filediff"]["additions"],
                r.metadata["filediff"]["deletions"],
                r.metadata["diff"].as_str().unwrap()
            );
            redacted(&t).bind(|| insta::assert_snapshot!("edit_success", shown));
        })
        .await;
}

#[tokio::test]
async fn bom_file_keeps_its_bom_and_the_diff_hides_it() {
    TestInstance::builder()
        .file("Program.cs", "\u{FEFF}using System;\nclass Test {}\n")
        .run(|t| async move {
            read_first(&t, "Program.cs").await;
            let r = t
                .call(
                    "edit",
                    json!({"filePath": "Program.cs", "oldString": "using System;",
                           "newString": "using Up;"}),
                )
                .await
                .unwrap();
            let diff = r.metadata["diff"].as_str().unwrap();
            assert!(diff.contains("-using System;"), "{diff}");
            assert!(diff.contains("+using Up;"), "{diff}");
            assert!(!diff.contains('\u{FEFF}'), "no BOM in the diff: {diff:?}");
            let b = bytes(&t, "Program.cs");
            assert!(b.starts_with(&[0xEF, 0xBB, 0xBF]), "BOM kept: {b:?}");
            assert_eq!(text(&t, "Program.cs"), "\u{FEFF}using Up;\nclass Test {}\n");
        })
        .await;
}

#[tokio::test]
async fn missing_file_is_not_found() {
    TestInstance::builder()
        .run(|t| async move {
            let msg = model_error(
                t.call(
                    "edit",
                    json!({"filePath": "nope.txt", "oldString": "a", "newString": "b"}),
                )
                .await,
            );
            assert_mentions(
                &msg,
                &[t.path("nope.txt").to_str().unwrap(), "does not exist"],
            );
            assert!(!t.path("nope.txt").exists());
        })
        .await;
}

#[tokio::test]
async fn identical_strings_are_refused_before_the_file_is_touched() {
    TestInstance::builder()
        .file("same.txt", "same\n")
        .run(|t| async move {
            // Not read first: the refusal comes before the read-before-edit check.
            for (old, new) in [("same", "same"), ("", "")] {
                let msg = model_error(
                    t.call(
                        "edit",
                        json!({"filePath": "same.txt", "oldString": old, "newString": new}),
                    )
                    .await,
                );
                assert_mentions(&msg, &["oldString", "newString"]);
                assert_eq!(text(&t, "same.txt"), "same\n");
            }
        })
        .await;
}

#[tokio::test]
async fn empty_file_path_is_refused() {
    TestInstance::builder()
        .run(|t| async move {
            let msg = model_error(
                t.call(
                    "edit",
                    json!({"filePath": "", "oldString": "a", "newString": "b"}),
                )
                .await,
            );
            assert_mentions(&msg, &["filePath"]);
        })
        .await;
}

#[tokio::test]
async fn absent_old_string_is_not_found_and_snapshot() {
    TestInstance::builder()
        .file("code.txt", "alpha\nbeta\n")
        .run(|t| async move {
            read_first(&t, "code.txt").await;
            let msg = model_error(
                t.call(
                    "edit",
                    json!({"filePath": "code.txt", "oldString": "gamma", "newString": "delta"}),
                )
                .await,
            );
            assert_mentions(&msg, &["oldString"]);
            assert_eq!(text(&t, "code.txt"), "alpha\nbeta\n");
            redacted(&t).bind(|| insta::assert_snapshot!("edit_not_found", msg));
        })
        .await;
}

#[tokio::test]
async fn block_anchor_refuses_a_much_larger_block() {
    let function = "function test() {\n  const a = 1;\n  const b = 2;\n  const c = 3;\n  \
                    return a + b + c;\n}\n";
    TestInstance::builder()
        .file("fn.js", function)
        .run(|t| async move {
            read_first(&t, "fn.js").await;
            let msg = model_error(
                t.call(
                    "edit",
                    json!({"filePath": "fn.js",
                           "oldString": "function test() {\n  return 42;\n}",
                           "newString": "function test() {\n  return 0;\n}"}),
                )
                .await,
            );
            assert_mentions(&msg, &["oldString", "not found"]);
            assert_eq!(text(&t, "fn.js"), function);
        })
        .await;
}

#[tokio::test]
async fn block_with_an_unrelated_middle_line_is_not_found() {
    let content = "function a() {\n  return computeSomethingElaborate(1, 2);\n}\n";
    TestInstance::builder()
        .file("a.js", content)
        .run(|t| async move {
            read_first(&t, "a.js").await;
            let msg = model_error(
                t.call(
                    "edit",
                    json!({"filePath": "a.js",
                           "oldString": "function a() {\n  zzz;\n}",
                           "newString": "function a() {\n  yyy;\n}"}),
                )
                .await,
            );
            assert_mentions(&msg, &["oldString", "not found"]);
            assert_eq!(text(&t, "a.js"), content);
        })
        .await;
}

#[tokio::test]
async fn several_matches_without_replace_all_are_refused() {
    TestInstance::builder()
        .file("dup.txt", "foo bar foo baz foo")
        .run(|t| async move {
            read_first(&t, "dup.txt").await;
            let msg = model_error(
                t.call(
                    "edit",
                    json!({"filePath": "dup.txt", "oldString": "foo", "newString": "qux"}),
                )
                .await,
            );
            assert_mentions(&msg, &["oldString", "replaceAll"]);
            assert_eq!(text(&t, "dup.txt"), "foo bar foo baz foo");
        })
        .await;
}

#[tokio::test]
async fn replace_all_changes_every_occurrence() {
    TestInstance::builder()
        .file("dup.txt", "foo bar foo baz foo")
        .run(|t| async move {
            read_first(&t, "dup.txt").await;
            t.call(
                "edit",
                json!({"filePath": "dup.txt", "oldString": "foo", "newString": "qux",
                       "replaceAll": true}),
            )
            .await
            .unwrap();
            assert_eq!(text(&t, "dup.txt"), "qux bar qux baz qux");
        })
        .await;
}

#[tokio::test]
async fn multi_line_replacement() {
    TestInstance::builder()
        .file("m.txt", "line1\nline2\nline3")
        .run(|t| async move {
            read_first(&t, "m.txt").await;
            t.call(
                "edit",
                json!({"filePath": "m.txt", "oldString": "line2",
                       "newString": "new line 2\nextra line"}),
            )
            .await
            .unwrap();
            assert_eq!(text(&t, "m.txt"), "line1\nnew line 2\nextra line\nline3");
        })
        .await;
}

#[tokio::test]
async fn crlf_file_stays_crlf() {
    TestInstance::builder()
        .file("w.txt", "line1\r\nold\r\nline3")
        .run(|t| async move {
            read_first(&t, "w.txt").await;
            t.call(
                "edit",
                json!({"filePath": "w.txt", "oldString": "old", "newString": "new"}),
            )
            .await
            .unwrap();
            assert_eq!(text(&t, "w.txt"), "line1\r\nnew\r\nline3");
        })
        .await;
}

#[tokio::test]
async fn directory_is_refused() {
    TestInstance::builder()
        .file("adir/inner.txt", "x")
        .run(|t| async move {
            let msg = model_error(
                t.call(
                    "edit",
                    json!({"filePath": "adir", "oldString": "a", "newString": "b"}),
                )
                .await,
            );
            assert_mentions(&msg, &[t.path("adir").to_str().unwrap(), "directory"]);
        })
        .await;
}

#[tokio::test]
async fn tolerant_match_inserts_new_string_as_given() {
    // The line-trimmed replacer matches the unindented `oldString`; `newString` is not
    // re-indented (spec §3.2).
    TestInstance::builder()
        .file("i.py", "def f():\n    x = 1\n    y = 2\n")
        .run(|t| async move {
            read_first(&t, "i.py").await;
            t.call(
                "edit",
                json!({"filePath": "i.py", "oldString": "x = 1\ny = 2",
                       "newString": "z = 3"}),
            )
            .await
            .unwrap();
            assert_eq!(text(&t, "i.py"), "def f():\nz = 3\n");
        })
        .await;
}

#[tokio::test]
async fn concurrent_edits_to_one_file_both_survive() {
    let content = "section one: alpha\nfiller\nfiller\nsection two: beta\n";
    TestInstance::builder()
        .file("shared.txt", content)
        .run(|t| async move {
            read_first(&t, "shared.txt").await;
            let a = t.call(
                "edit",
                json!({"filePath": "shared.txt", "oldString": "alpha", "newString": "ALPHA"}),
            );
            let b = t.call(
                "edit",
                json!({"filePath": "shared.txt", "oldString": "beta", "newString": "BETA"}),
            );
            let (a, b) = tokio::join!(a, b);
            a.unwrap();
            b.unwrap();
            assert_eq!(
                text(&t, "shared.txt"),
                "section one: ALPHA\nfiller\nfiller\nsection two: BETA\n"
            );
        })
        .await;
}

#[tokio::test]
async fn a_rejected_ask_changes_nothing() {
    TestInstance::builder()
        .config(ask_edits())
        .file("keep.txt", "original\n")
        .run(|t| async move {
            read_first(&t, "keep.txt").await;
            t.reply_mode(strata_testkit::ReplyMode::Reject(None));
            let err = t
                .call(
                    "edit",
                    json!({"filePath": "keep.txt", "oldString": "original", "newString": "x"}),
                )
                .await
                .unwrap_err();
            assert!(err.stops_turn(), "{err:?}");
            assert_eq!(text(&t, "keep.txt"), "original\n");
        })
        .await;
}

#[tokio::test]
async fn running_metadata_streams_the_diff() {
    TestInstance::builder()
        .config(json!({"tools": {"read_before_edit": false}}))
        .file("s.txt", "before\n")
        .run(|t| async move {
            let (tx, mut rx) =
                tokio::sync::mpsc::unbounded_channel::<strata_tools::contract::MetadataUpdate>();
            let cx = t.cx().metadata_sink(tx).build();
            let r = t
                .call_with(
                    "edit",
                    json!({"filePath": "s.txt", "oldString": "before", "newString": "after"}),
                    cx,
                )
                .await
                .unwrap();
            let update = rx.try_recv().expect("one running-metadata update");
            assert_eq!(update.call_id, "call_test");
            assert_eq!(update.metadata["diff"], r.metadata["diff"]);
            assert_eq!(update.metadata["filediff"], r.metadata["filediff"]);
            assert_eq!(update.metadata["diagnostics"], json!({}));
        })
        .await;
}
