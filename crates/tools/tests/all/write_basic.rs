//! `write` through the real wrapper: creating and overwriting, BOM handling, modes, verbatim
//! content, read-only targets, titles, events and read before edit (spec §2, §18 a, e,
//! §19 write).

use crate::edit_support::{
    ask_edits, assert_mentions, bytes, drain, mode, model_error, new_file_mode, read_first,
    set_mode, temp_leftovers, text, watch,
};
use serde_json::json;
use strata_services::bus::WatchKind;
use strata_testkit::TestInstance;

#[tokio::test]
async fn new_file_is_created_with_the_default_mode() {
    TestInstance::builder()
        .config(ask_edits())
        .run(|t| async move {
            let mut events = watch(&t);
            let path = t.path("new.txt");
            let r = t
                .call(
                    "write",
                    json!({"filePath": path.to_str().unwrap(), "content": "hello\n"}),
                )
                .await
                .unwrap();
            assert_eq!(text(&t, "new.txt"), "hello\n");
            assert!(!r.output.is_empty());
            assert_eq!(r.metadata["exists"], false);
            assert_eq!(r.metadata["filepath"], path.to_str().unwrap());
            assert_eq!(r.metadata["diagnostics"], json!({}));
            assert_eq!(r.metadata["truncated"], false);
            assert!(
                r.metadata.get("diff").is_none(),
                "the diff goes only to the ask"
            );
            assert_eq!(mode(&path), new_file_mode());
            assert_eq!(new_file_mode(), 0o644, "tests run under umask 022");
            assert_eq!(drain(&mut events), [(path.clone(), WatchKind::Add)]);
            let asks = t.asked_for("edit");
            assert_eq!(asks.len(), 1, "{asks:?}");
            assert_eq!(asks[0].patterns, ["new.txt"]);
            assert_eq!(asks[0].always, ["*"]);
            assert_eq!(asks[0].metadata["filepath"], path.to_str().unwrap());
            let diff = asks[0].metadata["diff"].as_str().unwrap();
            assert!(
                diff.contains("@@ -0,0 +1,1 @@") && diff.contains("+hello"),
                "{diff}"
            );
        })
        .await;
}

#[tokio::test]
async fn missing_parent_directories_are_created() {
    TestInstance::builder()
        .run(|t| async move {
            t.call(
                "write",
                json!({"filePath": "a/b/c/deep.txt", "content": "deep"}),
            )
            .await
            .unwrap();
            assert_eq!(text(&t, "a/b/c/deep.txt"), "deep");
        })
        .await;
}

#[tokio::test]
async fn relative_path_lands_in_the_instance_directory() {
    TestInstance::builder()
        .run(|t| async move {
            let r = t
                .call("write", json!({"filePath": "rel.txt", "content": "r"}))
                .await
                .unwrap();
            assert_eq!(
                std::fs::read_to_string(t.dir().join("rel.txt")).unwrap(),
                "r"
            );
            assert_eq!(r.metadata["filepath"], t.path("rel.txt").to_str().unwrap());
        })
        .await;
}

#[tokio::test]
async fn existing_file_is_overwritten_and_keeps_its_mode() {
    TestInstance::builder()
        .file("old.txt", "before\n")
        .run(|t| async move {
            let path = t.path("old.txt");
            set_mode(&path, 0o600);
            read_first(&t, "old.txt").await;
            let mut events = watch(&t);
            let r = t
                .call(
                    "write",
                    json!({"filePath": "old.txt", "content": "after\n"}),
                )
                .await
                .unwrap();
            assert_eq!(text(&t, "old.txt"), "after\n");
            assert_eq!(r.metadata["exists"], true);
            assert_eq!(r.metadata["filepath"], path.to_str().unwrap());
            assert_eq!(mode(&path), 0o600, "an existing file keeps its mode");
            assert_eq!(drain(&mut events), [(path, WatchKind::Change)]);
            assert_eq!(temp_leftovers(t.dir()), Vec::<String>::new());
        })
        .await;
}

#[tokio::test]
async fn bom_is_kept_from_the_old_file_or_the_new_content() {
    TestInstance::builder()
        .file("old_bom.cs", "\u{FEFF}using System;\n")
        .file("plain.cs", "using System;\n")
        .run(|t| async move {
            // BOM in the old file, none in the content.
            read_first(&t, "old_bom.cs").await;
            t.call(
                "write",
                json!({"filePath": "old_bom.cs", "content": "using Up;\n"}),
            )
            .await
            .unwrap();
            assert_eq!(bytes(&t, "old_bom.cs"), "\u{FEFF}using Up;\n".as_bytes());

            // BOM in the new content only; never doubled.
            read_first(&t, "plain.cs").await;
            t.call(
                "write",
                json!({"filePath": "plain.cs", "content": "\u{FEFF}using Up;\n"}),
            )
            .await
            .unwrap();
            assert_eq!(bytes(&t, "plain.cs"), "\u{FEFF}using Up;\n".as_bytes());
        })
        .await;
}

#[tokio::test]
async fn contents_are_written_byte_for_byte() {
    let cases = [
        ("data.json", "{\n  \"key\": [1, 2, {\"nested\": null}]\n}\n"),
        (
            "binary.bin",
            "\u{0}\u{1}\u{2}\u{7f}\u{80}\u{ff}\u{FFFD}é漢\u{10FFFF}",
        ),
        ("empty.txt", ""),
        ("multi.txt", "one\ntwo\n\nthree\n"),
        ("mixed.txt", "lf\ncrlf\r\ncr\rend"),
    ];
    TestInstance::builder()
        .run(|t| async move {
            for (name, content) in cases {
                t.call("write", json!({"filePath": name, "content": content}))
                    .await
                    .unwrap();
                assert_eq!(bytes(&t, name), content.as_bytes(), "{name}");
            }
            assert_eq!(std::fs::metadata(t.path("empty.txt")).unwrap().len(), 0);
        })
        .await;
}

#[tokio::test]
async fn read_only_target_fails() {
    TestInstance::builder()
        .file("ro.txt", "locked\n")
        .run(|t| async move {
            let path = t.path("ro.txt");
            set_mode(&path, 0o444);
            read_first(&t, "ro.txt").await;
            let msg = model_error(
                t.call(
                    "write",
                    json!({"filePath": "ro.txt", "content": "changed\n"}),
                )
                .await,
            );
            assert_mentions(&msg, &[path.to_str().unwrap()]);
            assert_eq!(text(&t, "ro.txt"), "locked\n");
            assert_eq!(mode(&path), 0o444);
            assert_eq!(temp_leftovers(t.dir()), Vec::<String>::new());
        })
        .await;
}

#[tokio::test]
async fn title_is_the_worktree_relative_path() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .run(|t| async move {
            let path = t.path("src/components/Button.tsx");
            let r = t
                .call(
                    "write",
                    json!({"filePath": path.to_str().unwrap(), "content": "export {}\n"}),
                )
                .await
                .unwrap();
            assert!(
                r.title.ends_with("src/components/Button.tsx"),
                "{}",
                r.title
            );
            assert_eq!(r.title, "src/components/Button.tsx");
        })
        .await;
}

#[tokio::test]
async fn directory_target_is_refused() {
    TestInstance::builder()
        .file("adir/x.txt", "x")
        .run(|t| async move {
            let msg = model_error(
                t.call("write", json!({"filePath": "adir", "content": "y"}))
                    .await,
            );
            assert_mentions(&msg, &[t.path("adir").to_str().unwrap(), "directory"]);
            assert!(t.path("adir").is_dir());
        })
        .await;
}

#[tokio::test]
async fn unread_or_stale_file_is_not_overwritten() {
    TestInstance::builder()
        .file("doc.txt", "v1\n")
        .run(|t| async move {
            let path = t.path("doc.txt");
            let shown = path.to_str().unwrap().to_string();
            // Never read in this session.
            let msg = model_error(
                t.call("write", json!({"filePath": "doc.txt", "content": "v2\n"}))
                    .await,
            );
            assert_mentions(&msg, &[&shown, "read"]);
            assert_eq!(text(&t, "doc.txt"), "v1\n");

            // Read, then changed on disk: stale.
            read_first(&t, "doc.txt").await;
            std::fs::write(&path, "v1 changed outside\n").unwrap();
            let msg = model_error(
                t.call("write", json!({"filePath": "doc.txt", "content": "v2\n"}))
                    .await,
            );
            assert_mentions(&msg, &[&shown, "read"]);
            assert_eq!(text(&t, "doc.txt"), "v1 changed outside\n");

            // Read again: the overwrite goes through, and leaves no temporary file behind.
            read_first(&t, "doc.txt").await;
            t.call("write", json!({"filePath": "doc.txt", "content": "v2\n"}))
                .await
                .unwrap();
            assert_eq!(text(&t, "doc.txt"), "v2\n");
            assert_eq!(temp_leftovers(t.dir()), Vec::<String>::new());
        })
        .await;
}

#[tokio::test]
async fn write_through_a_symlink_keeps_the_link() {
    TestInstance::builder()
        .config(json!({"tools": {"read_before_edit": false}}))
        .file("real.txt", "real\n")
        .run(|t| async move {
            std::os::unix::fs::symlink(t.path("real.txt"), t.path("link.txt")).unwrap();
            let cx = t.cx().build();
            t.call_with(
                "write",
                json!({"filePath": "link.txt", "content": "through\n"}),
                cx,
            )
            .await
            .unwrap();
            let link = std::fs::symlink_metadata(t.path("link.txt")).unwrap();
            assert!(link.file_type().is_symlink(), "the link is kept");
            assert_eq!(text(&t, "real.txt"), "through\n");
        })
        .await;
}
