//! `apply_patch` is all or nothing (spec §4.3 step 4, §18 d, e): a section that verifies but
//! fails to write puts every earlier change back; a rejected ask writes nothing.

use crate::edit_support::{
    ask_edits, assert_mentions, mode, model_error, patch, set_mode, temp_leftovers, text,
};
use serde_json::json;
use strata_testkit::{ReplyMode, TestInstance};

#[tokio::test]
async fn a_failing_later_add_restores_the_earlier_update() {
    // `blocker` is a file, so `blocker/x.txt` passes verification (nothing is there) but its
    // parent directory cannot be created at write time.
    TestInstance::builder()
        .file("a.txt", "one\ntwo\n")
        .file("blocker", "i am a file\n")
        .run(|t| async move {
            let msg = model_error(
                t.call(
                    "apply_patch",
                    json!({"patchText": patch(&[
                        "*** Update File: a.txt",
                        "-two",
                        "+TWO",
                        "*** Add File: blocker/x.txt",
                        "+x",
                    ])}),
                )
                .await,
            );
            assert!(msg.contains("could not be written"), "{msg}");
            assert!(msg.contains("nothing was changed"), "{msg}");
            assert_eq!(text(&t, "a.txt"), "one\ntwo\n");
            assert_eq!(text(&t, "blocker"), "i am a file\n");
            assert_eq!(temp_leftovers(t.dir()), Vec::<String>::new());
        })
        .await;
}

#[tokio::test]
async fn a_failing_later_update_restores_adds_deletes_updates_and_moves() {
    TestInstance::builder()
        .file("gone.txt", "deleted content\n")
        .file("edit.txt", "before\n")
        .file("m.txt", "moving\n")
        .file("ro.txt", "read only\n")
        .run(|t| async move {
            // Root ignores file modes, but the atomic write refuses a file without write bits.
            set_mode(&t.path("ro.txt"), 0o444);
            let msg = model_error(
                t.call(
                    "apply_patch",
                    json!({"patchText": patch(&[
                        "*** Add File: fresh/dir/new.txt",
                        "+new",
                        "*** Delete File: gone.txt",
                        "*** Update File: edit.txt",
                        "-before",
                        "+after",
                        "*** Update File: m.txt",
                        "*** Move to: moved/m2.txt",
                        "-moving",
                        "+moved",
                        "*** Update File: ro.txt",
                        "-read only",
                        "+written",
                    ])}),
                )
                .await,
            );
            assert_mentions(
                &msg,
                &[t.path("ro.txt").to_str().unwrap(), "nothing was changed"],
            );
            assert!(!t.path("fresh").exists(), "created directories are removed");
            assert_eq!(text(&t, "gone.txt"), "deleted content\n");
            assert_eq!(text(&t, "edit.txt"), "before\n");
            assert_eq!(text(&t, "m.txt"), "moving\n");
            assert!(!t.path("moved").exists());
            assert_eq!(text(&t, "ro.txt"), "read only\n");
            assert_eq!(mode(&t.path("ro.txt")), 0o444);
            assert_eq!(temp_leftovers(t.dir()), Vec::<String>::new());
        })
        .await;
}

#[tokio::test]
async fn a_rejected_ask_writes_nothing() {
    TestInstance::builder()
        .config(ask_edits())
        .file("keep.txt", "keep\n")
        .run(|t| async move {
            t.reply_mode(ReplyMode::Reject(None));
            let err = t
                .call(
                    "apply_patch",
                    json!({"patchText": patch(&[
                        "*** Add File: new.txt",
                        "+x",
                        "*** Delete File: keep.txt",
                    ])}),
                )
                .await
                .unwrap_err();
            assert!(err.stops_turn(), "{err:?}");
            assert!(!t.path("new.txt").exists());
            assert_eq!(text(&t, "keep.txt"), "keep\n");
        })
        .await;
}

#[tokio::test]
async fn updates_keep_the_file_mode_and_leave_no_temp_files() {
    TestInstance::builder()
        .file("script.sh", "echo one\n")
        .run(|t| async move {
            set_mode(&t.path("script.sh"), 0o750);
            t.call(
                "apply_patch",
                json!({"patchText": patch(&[
                    "*** Update File: script.sh",
                    "-echo one",
                    "+echo two",
                ])}),
            )
            .await
            .unwrap();
            assert_eq!(text(&t, "script.sh"), "echo two\n");
            assert_eq!(mode(&t.path("script.sh")), 0o750);
            assert_eq!(temp_leftovers(t.dir()), Vec::<String>::new());
        })
        .await;
}

/// Found by the `apply_patch_files` fuzz target: a deleted file came back with the default
/// mode when a later section failed, and the folder an earlier add created had to go too.
#[tokio::test]
async fn a_deleted_file_comes_back_with_its_mode_when_a_later_section_fails() {
    TestInstance::builder()
        .file("ro.txt", "read\nonly\n")
        .file("exec.sh", "echo hi\n")
        .file("blocker", "file\n")
        .file("d/keep.txt", "k\n")
        .run(|t| async move {
            set_mode(&t.path("ro.txt"), 0o444);
            set_mode(&t.path("exec.sh"), 0o751);
            let msg = model_error(
                t.call(
                    "apply_patch",
                    json!({"patchText": patch(&[
                        "*** Add File: d/new/n.txt",
                        "+gamma",
                        "*** Delete File: ro.txt",
                        "*** Delete File: exec.sh",
                        "*** Add File: blocker/x.txt",
                        "+beta",
                    ])}),
                )
                .await,
            );
            assert!(msg.contains("nothing was changed"), "{msg}");
            assert_eq!(text(&t, "ro.txt"), "read\nonly\n");
            assert_eq!(mode(&t.path("ro.txt")), 0o444);
            assert_eq!(text(&t, "exec.sh"), "echo hi\n");
            assert_eq!(mode(&t.path("exec.sh")), 0o751);
            assert!(!t.path("d/new").exists(), "the created folder is removed");
            assert!(t.path("d").is_dir(), "the folder that was there stays");
            assert_eq!(temp_leftovers(t.dir()), Vec::<String>::new());
        })
        .await;
}
