//! Configured formatters after `write`, `edit` and `apply_patch` (spec §2 step 6, §3.1 step 8,
//! §4 step 5): they run on files of their type, the BOM state is restored, the diff and the
//! FileTime record follow the formatted file, and a failing formatter fails nothing.

use crate::edit_support::{bytes, patch, read_first, text};
use serde_json::{Value, json};
use strata_testkit::{TestInstance, TestInstanceBuilder};

/// A real formatter: upper-cases `.txt` files in place (through a temp file and a rename, as
/// many formatters do).
fn upper() -> Value {
    json!({"command": ["sh", "-c", "tr a-z A-Z < \"$0\" > \"$0.fmt\" && mv \"$0.fmt\" \"$0\"", "$FILE"],
           "extensions": ["txt"]})
}

fn with(formatters: Value) -> TestInstanceBuilder {
    TestInstance::builder().config(json!({"formatter": formatters}))
}

#[tokio::test]
async fn write_formats_files_of_its_type_only() {
    with(json!({"upper": upper()}))
        .run(|t| async move {
            t.call("write", json!({"filePath": "a.txt", "content": "hello\n"}))
                .await
                .unwrap();
            assert_eq!(text(&t, "a.txt"), "HELLO\n");
            t.call("write", json!({"filePath": "b.md", "content": "hello\n"}))
                .await
                .unwrap();
            assert_eq!(text(&t, "b.md"), "hello\n");
            // The session's view is the formatted file: editing it needs no new read.
            t.call(
                "edit",
                json!({"filePath": "a.txt", "oldString": "HELLO", "newString": "bye"}),
            )
            .await
            .unwrap();
            assert_eq!(text(&t, "a.txt"), "BYE\n");
        })
        .await;
}

#[tokio::test]
async fn the_edit_diff_shows_what_the_formatter_left() {
    with(json!({"upper": upper()}))
        .file("a.txt", "ONE\n")
        .run(|t| async move {
            read_first(&t, "a.txt").await;
            let r = t
                .call(
                    "edit",
                    json!({"filePath": "a.txt", "oldString": "ONE", "newString": "two"}),
                )
                .await
                .unwrap();
            let diff = r.metadata["diff"].as_str().unwrap();
            assert!(diff.contains("+TWO") && !diff.contains("+two"), "{diff}");
            assert_eq!(r.metadata["filediff"]["patch"], diff);
        })
        .await;
}

#[tokio::test]
async fn a_bom_the_formatter_drops_is_put_back() {
    let strip =
        json!({"command": ["sed", "-i", "1s/^\\xEF\\xBB\\xBF//", "$FILE"], "extensions": ["txt"]});
    with(json!({"strip": strip}))
        .run(|t| async move {
            t.call(
                "write",
                json!({"filePath": "bom.txt", "content": "\u{FEFF}text\n"}),
            )
            .await
            .unwrap();
            assert_eq!(bytes(&t, "bom.txt"), b"\xEF\xBB\xBFtext\n");
        })
        .await;
}

#[tokio::test]
async fn apply_patch_formats_added_and_moved_files() {
    with(json!({"upper": upper()}))
        .file("old.txt", "keep\n")
        .run(|t| async move {
            let text_of_patch = patch(&[
                "*** Add File: new.txt",
                "+fresh",
                "*** Update File: old.txt",
                "*** Move to: moved.txt",
                "-keep",
                "+kept",
            ]);
            t.call("apply_patch", json!({"patchText": text_of_patch}))
                .await
                .unwrap();
            assert_eq!(text(&t, "new.txt"), "FRESH\n");
            assert_eq!(text(&t, "moved.txt"), "KEPT\n");
        })
        .await;
}

#[tokio::test]
async fn a_failing_or_disabled_formatter_leaves_the_file_as_written() {
    let failing = json!({"command": ["sh", "-c", "echo nope >&2; exit 3"], "extensions": ["txt"]});
    with(json!({"broken": failing, "upper": {"disabled": true}}))
        .run(|t| async move {
            let r = t
                .call("write", json!({"filePath": "a.txt", "content": "hello\n"}))
                .await
                .unwrap();
            assert_eq!(r.output, "Wrote the file successfully.");
            assert_eq!(text(&t, "a.txt"), "hello\n");
        })
        .await;
    with(json!(false))
        .run(|t| async move {
            t.call("write", json!({"filePath": "a.txt", "content": "hello\n"}))
                .await
                .unwrap();
            assert_eq!(text(&t, "a.txt"), "hello\n");
        })
        .await;
}
