//! The whole chain: production graph → instance → registry → wrapper → tool.

use serde_json::json;
use strata_testkit::TestInstance;

#[tokio::test]
async fn read_through_the_real_wrapper() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .file("src/a.txt", "alpha\nbeta\n")
        .run(|t| async move {
            let out = t
                .call("read", json!({"filePath": "src/a.txt"}))
                .await
                .unwrap();
            assert!(out.output.contains("1: alpha\n2: beta"), "{}", out.output);
            assert_eq!(out.title, "src/a.txt");
            assert_eq!(out.metadata["truncated"], false);
            let asks = t.asked_for("read");
            assert!(asks.is_empty(), "read is allowed by default: {asks:?}");
        })
        .await;
}

#[tokio::test]
async fn invalid_arguments_name_the_field() {
    TestInstance::builder()
        .run(|t| async move {
            let err = t.call("read", json!({"path": "x"})).await.unwrap_err();
            let msg = err.to_string();
            assert!(msg.contains("`read`") && msg.contains("filePath"), "{msg}");
        })
        .await;
}
