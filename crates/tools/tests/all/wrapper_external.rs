//! The external-directory check shared by `read`, `glob` and `grep`: where "inside" ends, the
//! one canonical `‹dir›/*` glob, lexical normalisation and always-approvals (spec §0.3, §0.4,
//! §19 wrapper, truncation, external directory).

use crate::wrapper_support::{root, write_outside};
use serde_json::json;
use strata_testkit::{ReplyMode, TestInstance};

#[tokio::test]
async fn a_name_starting_with_dots_inside_is_inside() {
    TestInstance::builder()
        .file("..foo/x.txt", "dots\n")
        .file("...bar", "more dots\n")
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "..foo/x.txt"}))
                .await
                .unwrap();
            assert!(r.output.contains("dots"));
            t.call("read", json!({"filePath": "...bar"})).await.unwrap();
            t.call("grep", json!({"pattern": "dots", "path": "..foo"}))
                .await
                .unwrap();
            assert!(t.asked().is_empty(), "{:?}", t.asked());
        })
        .await;
}

#[tokio::test]
async fn a_sibling_sharing_the_project_name_prefix_is_outside() {
    TestInstance::builder()
        .run(|t| async move {
            // `‹root›/project-other` starts with the project's path as a string, but is not in it.
            let file = write_outside(&t, "project-other/y.txt", "sibling\n");
            t.call("read", json!({"filePath": file.to_str().unwrap()}))
                .await
                .unwrap();
            let asks = t.asked_for("external_directory");
            assert_eq!(asks.len(), 1);
            let dir = root(&t).join("project-other");
            assert_eq!(asks[0].patterns, [format!("{}/*", dir.display())]);
        })
        .await;
}

#[tokio::test]
async fn dot_dot_segments_are_normalised_into_one_canonical_glob() {
    TestInstance::builder()
        .file("src/keep.txt", "")
        .run(|t| async move {
            write_outside(&t, "outside/z.txt", "zed\n");
            let spelled = format!("{}/src/../../outside/./z.txt", t.dir().display());
            let r = t.call("read", json!({"filePath": spelled})).await.unwrap();
            assert!(r.output.contains("1: zed"));
            let outer = root(&t).join("outside");
            assert!(
                r.output
                    .contains(&format!("<path>{}</path>", outer.join("z.txt").display())),
                "{}",
                r.output
            );
            let asks = t.asked_for("external_directory");
            assert_eq!(asks.len(), 1);
            let glob = format!("{}/*", outer.display());
            assert_eq!(asks[0].patterns, [glob.as_str()]);
            assert_eq!(asks[0].always, [glob]);
            assert_eq!(
                asks[0].metadata["filepath"],
                outer.join("z.txt").to_str().unwrap()
            );
        })
        .await;
}

#[tokio::test]
async fn a_trailing_slash_on_a_directory_gives_the_same_glob() {
    TestInstance::builder()
        .run(|t| async move {
            write_outside(&t, "outside/d/a.txt", "");
            let dir = root(&t).join("outside/d");
            t.call(
                "glob",
                json!({"pattern": "*", "path": format!("{}/", dir.display())}),
            )
            .await
            .unwrap();
            let asks = t.asked_for("external_directory");
            assert_eq!(asks.len(), 1);
            assert_eq!(asks[0].patterns, [format!("{}/*", dir.display())]);
        })
        .await;
}

#[tokio::test]
async fn an_always_approval_covers_later_calls_of_every_tool() {
    TestInstance::builder()
        .run(|t| async move {
            let file = write_outside(&t, "outside/w.txt", "needle\n");
            let dir = root(&t).join("outside");
            t.reply_mode(ReplyMode::Always);
            t.call("read", json!({"filePath": file.to_str().unwrap()}))
                .await
                .unwrap();
            assert_eq!(t.asked_for("external_directory").len(), 1);
            t.reply_mode(ReplyMode::Reject(None));
            t.call(
                "grep",
                json!({"pattern": "needle", "path": dir.to_str().unwrap()}),
            )
            .await
            .unwrap();
            t.call(
                "glob",
                json!({"pattern": "*.txt", "path": dir.to_str().unwrap()}),
            )
            .await
            .unwrap();
            assert_eq!(
                t.asked_for("external_directory").len(),
                1,
                "the approval of `{}/*` answers the later asks",
                dir.display()
            );
        })
        .await;
}

#[tokio::test]
async fn a_configured_deny_refuses_without_asking() {
    TestInstance::builder()
        .config(json!({"permission": {"external_directory": "deny"}}))
        .run(|t| async move {
            let file = write_outside(&t, "outside/v.txt", "x\n");
            let err = t
                .call("read", json!({"filePath": file.to_str().unwrap()}))
                .await
                .unwrap_err();
            assert!(
                matches!(err, strata_tools::ToolError::Permission(_)),
                "{err:?}"
            );
            assert!(err.stops_turn());
            assert!(t.asked().is_empty());
            // The project itself stays readable.
            t.call("glob", json!({"pattern": "*"})).await.unwrap();
        })
        .await;
}
