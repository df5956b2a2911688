//! The `invalid` tool through the real wrapper: the answer to a call that could not be made
//! (spec §15).

use serde_json::{Value, json};
use strata_testkit::TestInstance;

#[tokio::test]
async fn reports_the_tool_and_the_error_as_a_completed_call() {
    TestInstance::builder()
        .run(|t| async move {
            let error =
                "No tool named `frobnicate` exists. Available tools: bash, glob, grep, read.";
            let r = t
                .call("invalid", json!({"tool": "frobnicate", "error": error}))
                .await
                .expect("status completed, not error");
            insta::assert_snapshot!(
                "invalid_output",
                format!("title: {}\n---\n{}", r.title, r.output)
            );
            assert!(r.output.contains("frobnicate"));
            assert!(r.output.ends_with(error), "the error follows verbatim");
            assert!(!r.title.is_empty());
            assert_eq!(Value::Object(r.metadata), json!({"truncated": false}));
            assert!(r.attachments.is_empty());
            assert!(t.asked().is_empty(), "nothing to ask permission for");
        })
        .await;
}

#[tokio::test]
async fn is_registered_but_describes_itself_as_not_for_direct_use() {
    TestInstance::builder()
        .run(|t| async move {
            let registry = t.get::<strata_registry::ToolRegistry>();
            let ids = registry.ids();
            assert_eq!(ids.first(), Some(&"invalid"), "registered first: {ids:?}");
            let d = registry.get("invalid").unwrap().description.to_lowercase();
            assert!(d.contains("never call"), "{d}");
        })
        .await;
}
