//! Effects judged per call (spec §0.7, §7.5): a `bash` command the scan proves read-only has
//! read-only effects and opens no undo point; any other command keeps the tool's effects and
//! gets one.

use serde_json::json;
use strata_registry::ToolRegistry;
use strata_services::instance::InstanceInfo;
use strata_services::snapshot::Snapshots;
use strata_testkit::TestInstance;
use strata_tools::Effects;

#[tokio::test]
async fn a_read_only_command_is_judged_read_only_and_others_keep_the_tools_effects() {
    TestInstance::builder()
        .run(|t| async move {
            let registry = t.get::<ToolRegistry>();
            let bash = registry.get("bash").unwrap();
            let of = |args: serde_json::Value| bash.effects_for(&args);
            assert_eq!(
                of(json!({"command": "git status && ls src"})),
                Effects::READ_ONLY
            );
            assert!(of(json!({"command": "ls"})).concurrency_safe);
            for writing in [
                json!({"command": "rm -rf build"}),
                json!({"command": "ls > listing.txt"}),
                // Arguments that do not decode keep the declared effects.
                json!({"command": 7}),
                json!({}),
            ] {
                assert_eq!(of(writing.clone()), bash.effects, "{writing}");
            }
            assert!(!bash.effects.concurrency_safe && bash.effects.destructive);
            // Other tools keep their declared effects whatever the input.
            let read = registry.get("read").unwrap();
            assert_eq!(
                read.effects_for(&json!({"filePath": "x"})),
                Effects::READ_ONLY
            );
            let edit = registry.get("edit").unwrap();
            assert_eq!(edit.effects_for(&json!({"filePath": "x"})), Effects::WRITES);
        })
        .await;
}

#[tokio::test]
async fn a_read_only_command_opens_no_undo_point() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .run(|t| async move {
            let snapshots = t.get::<Snapshots>();
            snapshots.set_enabled(true);
            let worktree = t.get::<InstanceInfo>().worktree.clone();
            let r = t
                .call("bash", json!({"command": "cat a.txt | wc -l"}))
                .await
                .unwrap();
            assert!(r.output.contains('1'), "{}", r.output);
            let marks = snapshots.marks(&worktree, "ses_test").await.unwrap();
            assert!(marks.is_empty(), "a read-only command marked {marks:?}");
            t.call("bash", json!({"command": "touch b.txt"}))
                .await
                .unwrap();
            let marks = snapshots.marks(&worktree, "ses_test").await.unwrap();
            assert_eq!(marks.len(), 1, "a writing command gets its undo point");
        })
        .await;
}
