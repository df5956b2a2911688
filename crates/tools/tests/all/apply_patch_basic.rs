//! `apply_patch` through the real wrapper: refusals before anything is read, the summary, the
//! single `edit` ask, adds, deletes, moves, and the verification failures of spec §4.3
//! (spec §4, §19 apply_patch).

use crate::edit_support::{ask_edits, assert_mentions, drain, model_error, patch, text, watch};
use serde_json::json;
use strata_services::bus::WatchKind;
use strata_testkit::{TestInstance, redacted};

async fn apply(
    t: &TestInstance,
    text: &str,
) -> Result<strata_tools::ToolResult, strata_tools::ToolError> {
    t.call("apply_patch", json!({"patchText": text})).await
}

#[tokio::test]
async fn empty_patch_text_is_refused() {
    TestInstance::builder()
        .run(|t| async move {
            for empty in ["", "  \n "] {
                let msg = model_error(apply(&t, empty).await);
                assert_mentions(&msg, &["patchText"]);
            }
        })
        .await;
}

#[tokio::test]
async fn text_without_markers_is_a_parse_error() {
    TestInstance::builder()
        .run(|t| async move {
            let msg = model_error(apply(&t, "invalid patch").await);
            assert_mentions(&msg, &["malformed", "*** Begin Patch"]);
            redacted(&t).bind(|| insta::assert_snapshot!("apply_patch_parse_error", msg));
        })
        .await;
}

#[tokio::test]
async fn unknown_section_header_is_a_parse_error_naming_the_line() {
    TestInstance::builder()
        .run(|t| async move {
            let msg = model_error(apply(&t, &patch(&["*** Frobnicate File: foo"])).await);
            assert_mentions(&msg, &["malformed", "Line 2", "*** Frobnicate File: foo"]);
            assert!(!t.path("foo").exists());
        })
        .await;
}

#[tokio::test]
async fn only_markers_is_an_empty_patch() {
    TestInstance::builder()
        .run(|t| async move {
            let msg = model_error(apply(&t, "*** Begin Patch\n*** End Patch").await);
            assert!(msg.contains("empty"), "{msg}");
            assert!(
                msg.contains("nothing was changed") || msg.contains("nothing"),
                "{msg}"
            );
        })
        .await;
}

#[tokio::test]
async fn add_delete_update_in_one_patch() {
    TestInstance::builder()
        .config(ask_edits())
        .file("delete.txt", "obsolete\n")
        .file("modify.txt", "line1\nline2\n")
        .run(|t| async move {
            let mut events = watch(&t);
            let text_of = patch(&[
                "*** Add File: nested/new.txt",
                "+created",
                "*** Delete File: delete.txt",
                "*** Update File: modify.txt",
                "@@",
                "-line2",
                "+changed",
            ]);
            let r = apply(&t, &text_of).await.unwrap();
            let lines: Vec<&str> = r.output.lines().collect();
            assert_eq!(
                lines[1..],
                ["A nested/new.txt", "D delete.txt", "M modify.txt"],
                "{}",
                r.output
            );
            assert!(!r.output.contains('\\'));
            assert_eq!(r.title, r.output);
            assert!(r.metadata["diff"].as_str().unwrap().contains("Index:"));
            assert_eq!(r.metadata["diagnostics"], json!({}));
            assert_eq!(text(&t, "nested/new.txt"), "created\n");
            assert_eq!(text(&t, "modify.txt"), "line1\nchanged\n");
            assert!(!t.path("delete.txt").exists());

            let asks = t.asked_for("edit");
            assert_eq!(asks.len(), 1, "one ask for the whole patch: {asks:?}");
            let ask = &asks[0];
            assert_eq!(ask.patterns, ["nested/new.txt", "delete.txt", "modify.txt"]);
            assert_eq!(ask.always, ["*"]);
            assert_eq!(
                ask.metadata["filepath"],
                "nested/new.txt, delete.txt, modify.txt"
            );
            let files = ask.metadata["files"].as_array().unwrap();
            let types: Vec<&str> = files.iter().map(|f| f["type"].as_str().unwrap()).collect();
            assert_eq!(types, ["add", "delete", "update"]);
            assert_eq!(
                files[0]["filePath"],
                t.path("nested/new.txt").to_str().unwrap()
            );
            assert_eq!(files[0]["relativePath"], "nested/new.txt");
            assert_eq!(files[0]["additions"], 1);
            assert_eq!(files[1]["deletions"], 1);
            assert_eq!(
                (&files[2]["additions"], &files[2]["deletions"]),
                (&json!(1), &json!(1))
            );
            // The ask's diff is every file diff, each followed by a newline.
            let each: String = files
                .iter()
                .map(|f| format!("{}\n", f["patch"].as_str().unwrap()))
                .collect();
            assert_eq!(ask.metadata["diff"], each);
            assert_eq!(r.metadata["diff"], each);
            assert_eq!(r.metadata["files"], ask.metadata["files"]);

            let seen = drain(&mut events);
            for expected in [
                (t.path("nested/new.txt"), WatchKind::Add),
                (t.path("delete.txt"), WatchKind::Unlink),
                (t.path("modify.txt"), WatchKind::Change),
            ] {
                assert!(seen.contains(&expected), "{expected:?} in {seen:?}");
            }
            redacted(&t).bind(|| insta::assert_snapshot!("apply_patch_summary", r.output));
        })
        .await;
}

#[tokio::test]
async fn update_with_move_is_asked_as_a_move() {
    TestInstance::builder()
        .config(ask_edits())
        .file("src/old.py", "print('a')\n")
        .run(|t| async move {
            let mut events = watch(&t);
            let r = apply(
                &t,
                &patch(&[
                    "*** Update File: src/old.py",
                    "*** Move to: lib/fresh/new.py",
                    "@@",
                    "-print('a')",
                    "+print('b')",
                ]),
            )
            .await
            .unwrap();
            assert!(
                r.output.lines().any(|l| l == "M lib/fresh/new.py"),
                "{}",
                r.output
            );
            assert!(!t.path("src/old.py").exists());
            assert_eq!(text(&t, "lib/fresh/new.py"), "print('b')\n");
            let asks = t.asked_for("edit");
            assert_eq!(asks.len(), 1);
            assert_eq!(asks[0].patterns, ["src/old.py"], "patterns name the source");
            let f = &asks[0].metadata["files"][0];
            assert_eq!(f["type"], "move");
            assert_eq!(f["filePath"], t.path("src/old.py").to_str().unwrap());
            assert_eq!(f["relativePath"], "lib/fresh/new.py");
            assert_eq!(f["movePath"], t.path("lib/fresh/new.py").to_str().unwrap());
            let p = f["patch"].as_str().unwrap();
            assert!(
                p.contains("-print('a')") && p.contains("+print('b')"),
                "{p}"
            );
            let seen = drain(&mut events);
            assert!(
                seen.contains(&(t.path("src/old.py"), WatchKind::Unlink)),
                "{seen:?}"
            );
            assert!(
                seen.contains(&(t.path("lib/fresh/new.py"), WatchKind::Add)),
                "{seen:?}"
            );
        })
        .await;
}

#[tokio::test]
async fn move_onto_an_existing_file_overwrites_it() {
    TestInstance::builder()
        .file("from.txt", "source\n")
        .file("to.txt", "destination\n")
        .run(|t| async move {
            apply(
                &t,
                &patch(&[
                    "*** Update File: from.txt",
                    "*** Move to: to.txt",
                    "-source",
                    "+moved",
                ]),
            )
            .await
            .unwrap();
            assert!(!t.path("from.txt").exists());
            assert_eq!(text(&t, "to.txt"), "moved\n");
        })
        .await;
}

#[tokio::test]
async fn add_onto_an_existing_file_overwrites_it() {
    TestInstance::builder()
        .file("exists.txt", "old content\n")
        .run(|t| async move {
            let r = apply(&t, &patch(&["*** Add File: exists.txt", "+new content"]))
                .await
                .unwrap();
            assert_eq!(text(&t, "exists.txt"), "new content\n");
            assert!(
                r.output.lines().any(|l| l == "A exists.txt"),
                "{}",
                r.output
            );
        })
        .await;
}

#[tokio::test]
async fn update_of_a_missing_file_fails() {
    TestInstance::builder()
        .run(|t| async move {
            let msg =
                model_error(apply(&t, &patch(&["*** Update File: ghost.txt", "-a", "+b"])).await);
            assert_mentions(&msg, &[t.path("ghost.txt").to_str().unwrap()]);
            assert!(!t.path("ghost.txt").exists());
        })
        .await;
}

#[tokio::test]
async fn delete_of_a_missing_file_fails() {
    TestInstance::builder()
        .run(|t| async move {
            let msg = model_error(apply(&t, &patch(&["*** Delete File: ghost.txt"])).await);
            assert_mentions(&msg, &[t.path("ghost.txt").to_str().unwrap()]);
        })
        .await;
}

#[tokio::test]
async fn delete_of_a_directory_fails_and_keeps_it() {
    TestInstance::builder()
        .file("adir/inside.txt", "x")
        .run(|t| async move {
            let msg = model_error(apply(&t, &patch(&["*** Delete File: adir"])).await);
            assert_mentions(&msg, &[t.path("adir").to_str().unwrap(), "directory"]);
            assert!(t.path("adir").is_dir());
            assert_eq!(text(&t, "adir/inside.txt"), "x");
        })
        .await;
}

#[tokio::test]
async fn old_lines_not_in_the_file_fail_and_change_nothing() {
    TestInstance::builder()
        .file("keep.txt", "alpha\nbeta\n")
        .run(|t| async move {
            let msg = model_error(
                apply(
                    &t,
                    &patch(&["*** Update File: keep.txt", "@@", "-nowhere", "+x"]),
                )
                .await,
            );
            let first = msg.lines().next().unwrap();
            assert_mentions(first, &[t.path("keep.txt").to_str().unwrap()]);
            assert!(msg.lines().skip(1).any(|l| l == "nowhere"), "{msg}");
            assert_eq!(text(&t, "keep.txt"), "alpha\nbeta\n");
        })
        .await;
}

#[tokio::test]
async fn missing_context_line_fails() {
    TestInstance::builder()
        .file("keep.txt", "alpha\nbeta\n")
        .run(|t| async move {
            let msg = model_error(
                apply(
                    &t,
                    &patch(&["*** Update File: keep.txt", "@@ fn missing", "-beta", "+x"]),
                )
                .await,
            );
            assert_mentions(&msg, &[t.path("keep.txt").to_str().unwrap(), "fn missing"]);
            assert_eq!(text(&t, "keep.txt"), "alpha\nbeta\n");
        })
        .await;
}

#[tokio::test]
async fn add_then_failing_update_writes_nothing() {
    TestInstance::builder()
        .run(|t| async move {
            model_error(
                apply(
                    &t,
                    &patch(&[
                        "*** Add File: added.txt",
                        "+hello",
                        "*** Update File: missing.txt",
                        "-a",
                        "+b",
                    ]),
                )
                .await,
            );
            assert!(!t.path("added.txt").exists());
        })
        .await;
}

#[tokio::test]
async fn later_sections_see_earlier_results() {
    TestInstance::builder()
        .run(|t| async move {
            apply(
                &t,
                &patch(&[
                    "*** Add File: chain.txt",
                    "+one",
                    "*** Update File: chain.txt",
                    "-one",
                    "+two",
                ]),
            )
            .await
            .unwrap();
            assert_eq!(text(&t, "chain.txt"), "two\n");
        })
        .await;
}

#[tokio::test]
async fn a_patch_refreshes_read_records() {
    // apply_patch is not checked for a prior read, but what it writes counts as seen.
    TestInstance::builder()
        .file("seen.txt", "a\n")
        .run(|t| async move {
            apply(&t, &patch(&["*** Update File: seen.txt", "-a", "+b"]))
                .await
                .unwrap();
            t.call(
                "edit",
                json!({"filePath": "seen.txt", "oldString": "b", "newString": "c"}),
            )
            .await
            .unwrap();
            assert_eq!(text(&t, "seen.txt"), "c\n");
        })
        .await;
}

#[tokio::test]
async fn section_outside_the_project_asks_external_directory() {
    TestInstance::builder()
        .run(|t| async move {
            let outside = t.dir().parent().unwrap().join("elsewhere");
            std::fs::create_dir_all(&outside).unwrap();
            let target = outside.join("far.txt");
            apply(
                &t,
                &patch(&[&format!("*** Add File: {}", target.display()), "+far"]),
            )
            .await
            .unwrap();
            let asks = t.asked_for("external_directory");
            assert_eq!(asks.len(), 1, "{asks:?}");
            assert_eq!(asks[0].patterns, [format!("{}/*", outside.display())]);
            assert_eq!(std::fs::read_to_string(&target).unwrap(), "far\n");
        })
        .await;
}
