//! The truncation layer of the wrapper: it cuts the output of a tool that does not bound its
//! own (`invalid` here), saves the full text and says where, and leaves `read`, `glob` and
//! `grep` alone because they report `truncated` themselves (spec §0.1, §0.6).

use serde_json::{Value, json};
use strata_services::truncate::Truncate;
use strata_testkit::{TestInstance, redacted};

fn rows(n: usize) -> String {
    (0..n)
        .map(|i| format!("row{i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What `invalid` shows for `error` before any cut.
fn invalid_text(error: &str) -> String {
    format!("The call to `big` could not be made with the arguments given: {error}")
}

fn saved_files(t: &TestInstance) -> Vec<std::path::PathBuf> {
    match std::fs::read_dir(t.get::<Truncate>().dir()) {
        Ok(rd) => rd.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    }
}

#[tokio::test]
async fn output_over_2000_lines_is_cut_by_lines_and_saved_whole() {
    TestInstance::builder()
        .run(|t| async move {
            let error = rows(3000);
            let r = t
                .call("invalid", json!({"tool": "big", "error": error}))
                .await
                .unwrap();
            assert_eq!(r.metadata["truncated"], true);
            let saved = r.metadata["outputPath"]
                .as_str()
                .expect("outputPath when cut");
            let name = std::path::Path::new(saved)
                .file_name()
                .unwrap()
                .to_string_lossy();
            assert!(name.starts_with("tool_"), "{saved}");
            assert!(saved.starts_with(t.get::<Truncate>().dir().to_str().unwrap()));
            assert_eq!(
                std::fs::read_to_string(saved).unwrap(),
                invalid_text(&error)
            );

            // 3000 lines, the first 2000 kept.
            assert!(
                r.output
                    .contains("\nrow1999\n\n...1000 lines truncated...\n\n")
            );
            assert!(!r.output.contains("row2000"));
            assert!(r.output.contains(saved), "the hint names the saved file");
            assert!(r.output.contains("grep"), "the hint suggests grep");
            let tail = r.output.split("...1000 lines truncated...").nth(1).unwrap();
            redacted(&t).bind(|| insta::assert_snapshot!("truncated_hint_no_task", tail));
        })
        .await;
}

#[tokio::test]
async fn one_huge_line_is_cut_by_bytes() {
    TestInstance::builder()
        .run(|t| async move {
            let error = "b".repeat(60_000);
            let r = t
                .call("invalid", json!({"tool": "big", "error": error}))
                .await
                .unwrap();
            assert_eq!(r.metadata["truncated"], true);
            assert!(
                r.output.contains("bytes truncated..."),
                "{}",
                &r.output[..200]
            );
            assert!(r.output.len() < 60_000);
            let saved = r.metadata["outputPath"].as_str().unwrap();
            assert_eq!(
                std::fs::read_to_string(saved).unwrap(),
                invalid_text(&error)
            );
        })
        .await;
}

#[tokio::test]
async fn small_output_is_untouched_and_nothing_is_saved() {
    TestInstance::builder()
        .run(|t| async move {
            let r = t
                .call("invalid", json!({"tool": "big", "error": rows(10)}))
                .await
                .unwrap();
            assert_eq!(r.output, invalid_text(&rows(10)));
            assert_eq!(r.metadata["truncated"], false);
            assert!(r.metadata.get("outputPath").is_none());
            assert!(saved_files(&t).is_empty(), "{:?}", saved_files(&t));
        })
        .await;
}

#[tokio::test]
async fn the_hint_offers_task_only_when_the_agent_may_use_it() {
    TestInstance::builder()
        .run(|t| async move {
            let args = json!({"tool": "big", "error": rows(2500)});
            let with_task = t
                .call_with("invalid", args.clone(), t.cx().agent_may_task(true).build())
                .await
                .unwrap();
            let without = t.call("invalid", args).await.unwrap();
            assert!(with_task.output.contains("`task`"), "{}", with_task.output);
            assert!(!without.output.contains("`task`"), "{}", without.output);
            let tail = with_task.output.split("lines truncated...").nth(1).unwrap();
            redacted(&t).bind(|| insta::assert_snapshot!("truncated_hint_with_task", tail));
        })
        .await;
}

#[tokio::test]
async fn config_tool_output_limits_are_honoured() {
    TestInstance::builder()
        .config(json!({"tool_output": {"max_lines": 5, "max_bytes": 100_000}}))
        .run(|t| async move {
            let r = t
                .call("invalid", json!({"tool": "big", "error": rows(10)}))
                .await
                .unwrap();
            assert_eq!(r.metadata["truncated"], true);
            let preview = r.output.split("\n\n...").next().unwrap();
            assert_eq!(preview.lines().count(), 5, "{}", r.output);
            assert!(r.output.contains("...5 lines truncated..."), "{}", r.output);
        })
        .await;
    TestInstance::builder()
        .config(json!({"tool_output": {"max_lines": 123, "max_bytes": 456}}))
        .run(|t| async move {
            let r = t
                .call("invalid", json!({"tool": "big", "error": rows(100)}))
                .await
                .unwrap();
            assert_eq!(r.metadata["truncated"], true);
            assert!(r.output.contains("bytes truncated..."), "{}", r.output);
            let preview = r.output.split("\n\n...").next().unwrap();
            assert!(preview.len() <= 456, "{}", preview.len());
        })
        .await;
}

#[tokio::test]
async fn self_bounding_tools_are_never_cut_again() {
    let mut builder = TestInstance::builder()
        .config(json!({"tool_output": {"max_lines": 5, "max_bytes": 200}}))
        .file("ten.txt", rows(10));
    for i in 0..10 {
        builder = builder.file(format!("f/file{i}.txt"), "needle\n");
    }
    builder
        .run(|t| async move {
            let read = t
                .call("read", json!({"filePath": "ten.txt"}))
                .await
                .unwrap();
            assert!(read.output.contains("10: row9"), "{}", read.output);
            let glob = t.call("glob", json!({"pattern": "*.txt"})).await.unwrap();
            assert_eq!(glob.metadata["count"], 11);
            let grep = t.call("grep", json!({"pattern": "needle"})).await.unwrap();
            assert_eq!(grep.metadata["matches"], 10);
            for r in [&read, &glob, &grep] {
                assert_eq!(r.metadata["truncated"], false);
                assert!(r.metadata.get("outputPath").is_none());
                assert!(!r.output.contains("truncated..."), "{}", r.output);
            }
            assert!(saved_files(&t).is_empty());
        })
        .await;
}

#[tokio::test]
async fn invalid_metadata_is_only_the_truncated_flag() {
    TestInstance::builder()
        .run(|t| async move {
            let r = t
                .call("invalid", json!({"tool": "x", "error": "y"}))
                .await
                .unwrap();
            assert_eq!(Value::Object(r.metadata), json!({"truncated": false}));
        })
        .await;
}
