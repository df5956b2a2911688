//! Instruction files found next to a file being read (spec §1 step 12, §19 read).

use serde_json::json;
use strata_testkit::{TestInstance, redacted};

#[tokio::test]
async fn agents_md_in_a_parent_directory_is_appended_once() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .file("pkg/AGENTS.md", "Use tabs in this package.")
        .file("pkg/src/lib.rs", "pub fn f() {}\n")
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "pkg/src/lib.rs"}))
                .await
                .unwrap();
            redacted(&t).bind(|| {
                insta::assert_snapshot!("read_with_instructions", r.output);
            });
            let agents = t.path("pkg/AGENTS.md");
            assert!(r.output.contains("<system-reminder>\n"), "{}", r.output);
            assert!(r.output.contains("Use tabs in this package."));
            assert!(r.output.ends_with("\n</system-reminder>"));
            assert_eq!(
                r.metadata["loaded"],
                json!([agents.to_string_lossy()]),
                "metadata.loaded lists the file"
            );

            // Already given to this session: not again.
            let again = t
                .call("read", json!({"filePath": "pkg/src/lib.rs"}))
                .await
                .unwrap();
            assert!(
                !again.output.contains("<system-reminder>"),
                "{}",
                again.output
            );
            assert_eq!(again.metadata["loaded"], json!([]));

            // Another session gets it.
            let mut cx = t.cx().build();
            cx.session_id = "ses_other".into();
            let other = t
                .call_with("read", json!({"filePath": "pkg/src/lib.rs"}), cx)
                .await
                .unwrap();
            assert!(other.output.contains("Use tabs in this package."));
        })
        .await;
}

#[tokio::test]
async fn nearest_first_and_agents_md_wins_within_a_directory() {
    TestInstance::builder()
        .file("a/CLAUDE.md", "outer claude")
        .file("a/b/AGENTS.md", "inner agents")
        .file("a/b/CLAUDE.md", "inner claude")
        .file("a/b/c.txt", "content\n")
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "a/b/c.txt"}))
                .await
                .unwrap();
            assert_eq!(
                r.metadata["loaded"],
                json!([
                    t.path("a/b/AGENTS.md").to_string_lossy(),
                    t.path("a/CLAUDE.md").to_string_lossy()
                ])
            );
            assert!(!r.output.contains("inner claude"), "{}", r.output);
            let inner = r.output.find("inner agents").unwrap();
            let outer = r.output.find("outer claude").unwrap();
            assert!(inner < outer, "nearest directory first");
        })
        .await;
}

#[tokio::test]
async fn the_instance_directory_itself_and_the_file_itself_are_skipped() {
    TestInstance::builder()
        .file("AGENTS.md", "root rules")
        .file("sub/AGENTS.md", "sub rules")
        .file("sub/CONTEXT.md", "sub context")
        .file("top.txt", "x\n")
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "top.txt"}))
                .await
                .unwrap();
            assert!(!r.output.contains("<system-reminder>"), "{}", r.output);

            // Reading an instruction file does not attach it to itself; the next name in the
            // same directory is taken instead.
            let r = t
                .call("read", json!({"filePath": "sub/AGENTS.md"}))
                .await
                .unwrap();
            assert_eq!(
                r.metadata["loaded"],
                json!([t.path("sub/CONTEXT.md").to_string_lossy()])
            );
        })
        .await;
}
