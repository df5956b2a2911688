//! `edit`, `write` and `apply_patch` on paths outside the project (spec §0.4): each asks
//! `external_directory` for the directory it would change, and a refused ask changes nothing.

use std::path::{Path, PathBuf};

use crate::edit_support::{patch, read_first, text};
use serde_json::json;
use strata_testkit::{ReplyMode, TestInstance};

/// A directory beside the project (outside it) holding `name` with `content`.
fn outside(t: &TestInstance, name: &str, content: Option<&str>) -> (PathBuf, PathBuf) {
    let dir = t.dir().parent().unwrap().join("elsewhere");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    if let Some(c) = content {
        std::fs::write(&file, c).unwrap();
    }
    (dir, file)
}

/// The patterns of every `external_directory` ask so far, one list per ask.
fn external_asks(t: &TestInstance) -> Vec<Vec<String>> {
    t.asked_for("external_directory")
        .into_iter()
        .map(|a| a.patterns)
        .collect()
}

fn glob(dir: &Path) -> String {
    format!("{}/*", dir.display())
}

#[tokio::test]
async fn edit_outside_asks_for_the_files_directory() {
    TestInstance::builder()
        .run(|t| async move {
            let (dir, file) = outside(&t, "far.txt", Some("far away\n"));
            let path = file.to_str().unwrap();
            read_first(&t, path).await;
            t.call(
                "edit",
                json!({"filePath": path, "oldString": "away", "newString": "near"}),
            )
            .await
            .unwrap();
            assert_eq!(std::fs::read_to_string(&file).unwrap(), "far near\n");
            // One ask from `read`, one from `edit`.
            assert_eq!(external_asks(&t), vec![vec![glob(&dir)]; 2]);
        })
        .await;
}

#[tokio::test]
async fn edit_outside_refused_changes_nothing() {
    TestInstance::builder()
        .run(|t| async move {
            let (_, file) = outside(&t, "far.txt", Some("far away\n"));
            let path = file.to_str().unwrap();
            read_first(&t, path).await;
            t.reply_mode(ReplyMode::Reject(None));
            let err = t
                .call(
                    "edit",
                    json!({"filePath": path, "oldString": "away", "newString": "near"}),
                )
                .await
                .unwrap_err();
            assert!(err.stops_turn(), "{err:?}");
            assert_eq!(std::fs::read_to_string(&file).unwrap(), "far away\n");
        })
        .await;
}

#[tokio::test]
async fn write_outside_asks_and_a_refusal_creates_nothing() {
    TestInstance::builder()
        .run(|t| async move {
            let (dir, file) = outside(&t, "new.txt", None);
            let path = file.to_str().unwrap();
            t.reply_mode(ReplyMode::Reject(None));
            let err = t
                .call("write", json!({"filePath": path, "content": "hello\n"}))
                .await
                .unwrap_err();
            assert!(err.stops_turn(), "{err:?}");
            assert!(!file.exists(), "a refused write creates no file");
            assert_eq!(external_asks(&t), vec![vec![glob(&dir)]]);

            t.reply_mode(ReplyMode::Once);
            t.call("write", json!({"filePath": path, "content": "hello\n"}))
                .await
                .unwrap();
            assert_eq!(std::fs::read_to_string(&file).unwrap(), "hello\n");
            assert_eq!(external_asks(&t).len(), 2);
        })
        .await;
}

#[tokio::test]
async fn a_move_out_of_the_project_asks_for_the_destination() {
    TestInstance::builder()
        .file("src.txt", "source\n")
        .run(|t| async move {
            let (dir, dest) = outside(&t, "moved.txt", None);
            let text_of_patch = patch(&[
                "*** Update File: src.txt",
                &format!("*** Move to: {}", dest.display()),
                "-source",
                "+moved",
            ]);
            t.reply_mode(ReplyMode::Reject(None));
            t.call("apply_patch", json!({"patchText": text_of_patch}))
                .await
                .unwrap_err();
            assert_eq!(
                text(&t, "src.txt"),
                "source\n",
                "a refused move keeps the source"
            );
            assert!(!dest.exists());
            assert_eq!(external_asks(&t), vec![vec![glob(&dir)]]);

            t.reply_mode(ReplyMode::Once);
            t.call("apply_patch", json!({"patchText": text_of_patch}))
                .await
                .unwrap();
            assert!(!t.path("src.txt").exists());
            assert_eq!(std::fs::read_to_string(&dest).unwrap(), "moved\n");
        })
        .await;
}
