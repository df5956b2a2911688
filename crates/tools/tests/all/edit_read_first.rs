//! Read before edit (spec §18 a) as `edit` enforces it: never read → refused, after a read →
//! applied, after an outside change → stale, and the config switch that turns it off.

use std::time::{Duration, SystemTime};

use crate::edit_support::{assert_mentions, model_error, read_first, text};
use serde_json::{Value, json};
use strata_testkit::TestInstance;
use strata_tools::ToolCx;

fn change(old: &str, new: &str) -> Value {
    json!({"filePath": "doc.txt", "oldString": old, "newString": new})
}

#[tokio::test]
async fn never_read_then_read_then_changed_outside() {
    TestInstance::builder()
        .file("doc.txt", "one\ntwo\n")
        .run(|t| async move {
            let path = t.path("doc.txt");
            let shown = path.to_str().unwrap().to_string();

            // Never read in this session → refused, unchanged.
            let msg = model_error(t.call("edit", change("one", "uno")).await);
            assert_mentions(&msg, &[&shown, "read"]);
            assert_eq!(text(&t, "doc.txt"), "one\ntwo\n");

            // After a read → applied; a second edit needs no new read.
            read_first(&t, "doc.txt").await;
            t.call("edit", change("one", "uno")).await.unwrap();
            t.call("edit", change("two", "dos")).await.unwrap();
            assert_eq!(text(&t, "doc.txt"), "uno\ndos\n");

            // Changed on disk after that → stale, unchanged.
            std::fs::write(&path, "uno\ndos\ntres\n").unwrap();
            let msg = model_error(t.call("edit", change("uno", "one")).await);
            assert_mentions(&msg, &[&shown, "read"]);
            assert!(msg.contains("modified") || msg.contains("changed"), "{msg}");
            assert_eq!(text(&t, "doc.txt"), "uno\ndos\ntres\n");

            // Reading again makes it editable again.
            read_first(&t, "doc.txt").await;
            t.call("edit", change("tres", "three")).await.unwrap();
            assert_eq!(text(&t, "doc.txt"), "uno\ndos\nthree\n");
        })
        .await;
}

#[tokio::test]
async fn a_touch_that_keeps_the_content_is_still_fresh() {
    TestInstance::builder()
        .file("doc.txt", "same\n")
        .run(|t| async move {
            read_first(&t, "doc.txt").await;
            let later = SystemTime::now() + Duration::from_secs(120);
            std::fs::File::options()
                .write(true)
                .open(t.path("doc.txt"))
                .unwrap()
                .set_modified(later)
                .unwrap();
            t.call("edit", change("same", "other")).await.unwrap();
            assert_eq!(text(&t, "doc.txt"), "other\n");
        })
        .await;
}

#[tokio::test]
async fn a_read_in_another_session_does_not_count() {
    TestInstance::builder()
        .file("doc.txt", "one\n")
        .run(|t| async move {
            let other = ToolCx::builder("ses_other")
                .permission(
                    t.get::<strata_services::permission::Permission>(),
                    t.ruleset(),
                )
                .build();
            t.call_with("read", json!({"filePath": "doc.txt"}), other)
                .await
                .unwrap();
            let msg = model_error(t.call("edit", change("one", "uno")).await);
            assert_mentions(&msg, &["read"]);
            assert_eq!(text(&t, "doc.txt"), "one\n");
        })
        .await;
}

#[tokio::test]
async fn creating_a_file_needs_no_read() {
    TestInstance::builder()
        .run(|t| async move {
            t.call(
                "edit",
                json!({"filePath": "doc.txt", "oldString": "", "newString": "new\n"}),
            )
            .await
            .unwrap();
            // Its own write counts as seen: the next edit needs no read.
            t.call("edit", change("new", "newer")).await.unwrap();
            assert_eq!(text(&t, "doc.txt"), "newer\n");
        })
        .await;
}

#[tokio::test]
async fn config_switch_turns_the_check_off() {
    TestInstance::builder()
        .config(json!({"tools": {"read_before_edit": false}}))
        .file("doc.txt", "one\n")
        .run(|t| async move {
            t.call("edit", change("one", "uno")).await.unwrap();
            assert_eq!(text(&t, "doc.txt"), "uno\n");
        })
        .await;
}
