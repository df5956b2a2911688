//! How `apply_patch` locates and applies chunks, end to end: several chunks, insertions,
//! end-of-file anchoring, `@@` context, tolerant matching, BOM, CRLF and heredoc wrappers
//! (spec §4.1, §4.2, §19 apply_patch).

use crate::edit_support::{bytes, model_error, patch, text};
use serde_json::json;
use strata_testkit::TestInstance;

/// Applies `patch_text` to a project holding `name` = `content`; returns the new content.
async fn update(name: &str, content: &str, patch_text: String) -> String {
    let mut out = String::new();
    let result = &mut out;
    TestInstance::builder()
        .file(name, content)
        .run(|t| async move {
            t.call("apply_patch", json!({"patchText": patch_text}))
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            *result = text(&t, name);
        })
        .await;
    out
}

/// Applies `patch_text` expecting a refusal; returns the message and checks `name` kept
/// `content`.
async fn refused(name: &str, content: &str, patch_text: String) -> String {
    let mut out = String::new();
    let result = &mut out;
    TestInstance::builder()
        .file(name, content)
        .run(|t| async move {
            *result = model_error(
                t.call("apply_patch", json!({"patchText": patch_text}))
                    .await,
            );
            assert_eq!(text(&t, name), content, "the file is unchanged");
        })
        .await;
    out
}

#[tokio::test]
async fn two_chunks_in_one_file() {
    let got = update(
        "multi.txt",
        "line1\nline2\nline3\nline4\n",
        patch(&[
            "*** Update File: multi.txt",
            "@@",
            "-line2",
            "+changed2",
            "@@",
            "-line4",
            "+changed4",
        ]),
    )
    .await;
    assert_eq!(got, "line1\nchanged2\nline3\nchanged4\n");
}

#[tokio::test]
async fn insert_only_chunk_between_context_lines() {
    let got = update(
        "ins.txt",
        "alpha\nomega\n",
        patch(&[
            "*** Update File: ins.txt",
            "@@",
            " alpha",
            "+beta",
            " omega",
        ]),
    )
    .await;
    assert_eq!(got, "alpha\nbeta\nomega\n");
}

#[tokio::test]
async fn file_without_final_newline_gets_one() {
    let got = update(
        "nonl.txt",
        "first line\nsecond",
        patch(&["*** Update File: nonl.txt", "@@", "-second", "+second line"]),
    )
    .await;
    assert_eq!(got, "first line\nsecond line\n");
}

#[tokio::test]
async fn end_of_file_chunk() {
    let got = update(
        "tail.txt",
        "alpha\nlast\n",
        patch(&[
            "*** Update File: tail.txt",
            "@@",
            "-last",
            "+end",
            "*** End of File",
        ]),
    )
    .await;
    assert_eq!(got, "alpha\nend\n");
}

#[tokio::test]
async fn end_of_file_chunk_picks_the_last_occurrence() {
    let got = update(
        "twice.txt",
        "marker\nmiddle\nmarker\n",
        patch(&[
            "*** Update File: twice.txt",
            "@@",
            "-marker",
            "+replaced",
            "*** End of File",
        ]),
    )
    .await;
    assert_eq!(got, "marker\nmiddle\nreplaced\n");
}

#[tokio::test]
async fn second_block_after_an_empty_line_without_its_own_header_fails() {
    let content = "line1\nline2\nline3\nline4\n";
    refused(
        "blocks.txt",
        content,
        patch(&[
            "*** Update File: blocks.txt",
            "@@",
            "-line2",
            "+changed2",
            "",
            "-line4",
            "+changed4",
        ]),
    )
    .await;
}

#[tokio::test]
async fn context_header_selects_the_later_occurrence() {
    let got = update(
        "fns.py",
        "def a():\n    x=10\ndef b():\n    x=10\n",
        patch(&[
            "*** Update File: fns.py",
            "@@ def b():",
            "-    x=10",
            "+    x=11",
        ]),
    )
    .await;
    assert_eq!(got, "def a():\n    x=10\ndef b():\n    x=11\n");
}

#[tokio::test]
async fn heredoc_wrappers_are_accepted() {
    for (open, close) in [
        ("cat <<'EOF'", "EOF"),
        ("<<EOF", "EOF"),
        ("<<\"END\"", "END"),
    ] {
        let body = patch(&["*** Update File: h.txt", "-old", "+new"]);
        let got = update("h.txt", "old\n", format!("{open}\n{body}\n{close}")).await;
        assert_eq!(got, "new\n", "{open}");
    }
}

#[tokio::test]
async fn trailing_whitespace_differences_are_tolerated() {
    let got = update(
        "ws.txt",
        "keep\nvalue = 1   \nend\n",
        patch(&["*** Update File: ws.txt", "@@", "-value = 1", "+value = 2"]),
    )
    .await;
    assert_eq!(got, "keep\nvalue = 2\nend\n");
}

#[tokio::test]
async fn leading_whitespace_differences_are_tolerated() {
    let got = update(
        "lead.txt",
        "keep\n        value = 1\nend\n",
        patch(&[
            "*** Update File: lead.txt",
            "@@",
            "-value = 1",
            "+value = 2",
        ]),
    )
    .await;
    assert_eq!(got, "keep\nvalue = 2\nend\n");
}

#[tokio::test]
async fn unicode_punctuation_matches_ascii() {
    let got = update(
        "uni.txt",
        "before\nHe said \u{201C}hi\u{201D} \u{2014} it\u{2019}s fine\u{2026}\nafter\n",
        patch(&[
            "*** Update File: uni.txt",
            "@@",
            "-He said \"hi\" - it's fine...",
            "+replaced",
        ]),
    )
    .await;
    assert_eq!(got, "before\nreplaced\nafter\n");
}

#[tokio::test]
async fn bom_file_keeps_its_bom_and_its_diff_hides_it() {
    TestInstance::builder()
        .config(crate::edit_support::ask_edits())
        .file("Program.cs", "\u{FEFF}using System;\nclass A {}\n")
        .run(|t| async move {
            let r = t
                .call(
                    "apply_patch",
                    json!({"patchText": patch(&[
                        "*** Update File: Program.cs",
                        "@@",
                        "-class A {}",
                        "+class B {}",
                    ])}),
                )
                .await
                .unwrap();
            let b = bytes(&t, "Program.cs");
            assert_eq!(b, "\u{FEFF}using System;\nclass B {}\n".as_bytes());
            let asks = t.asked_for("edit");
            assert_eq!(asks.len(), 1);
            for diff in [
                r.metadata["diff"].as_str().unwrap(),
                asks[0].metadata["diff"].as_str().unwrap(),
                asks[0].metadata["files"][0]["patch"].as_str().unwrap(),
            ] {
                assert!(!diff.contains('\u{FEFF}'), "{diff:?}");
                assert!(!diff.contains("-using System;"), "{diff}");
                assert!(!diff.contains("+using System;"), "{diff}");
                assert!(
                    diff.contains("-class A {}") && diff.contains("+class B {}"),
                    "{diff}"
                );
            }
            assert_eq!(asks[0].metadata["files"][0]["additions"], 1);
            assert_eq!(asks[0].metadata["files"][0]["deletions"], 1);
        })
        .await;
}

#[tokio::test]
async fn crlf_file_gets_crlf_on_inserted_lines() {
    let got = update(
        "win.txt",
        "one\r\ntwo\r\nthree\r\n",
        patch(&[
            "*** Update File: win.txt",
            "@@",
            " one",
            "-two",
            "+two a",
            "+two b",
            " three",
        ]),
    )
    .await;
    assert_eq!(got, "one\r\ntwo a\r\ntwo b\r\nthree\r\n");
}

#[tokio::test]
async fn add_with_blank_lines_and_no_lines() {
    TestInstance::builder()
        .run(|t| async move {
            t.call(
                "apply_patch",
                json!({"patchText": patch(&[
                    "*** Add File: blank.txt",
                    "+a",
                    "",
                    "+b",
                    "*** Add File: nothing.txt",
                ])}),
            )
            .await
            .unwrap();
            assert_eq!(text(&t, "blank.txt"), "a\n\nb\n");
            assert_eq!(text(&t, "nothing.txt"), "");
        })
        .await;
}
