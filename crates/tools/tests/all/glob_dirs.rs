//! A broad glob never opens hidden or ignored directories, though it may list hidden or
//! ignored files in directories that are walked (spec §5 step 3).

use serde_json::json;
use strata_testkit::TestInstance;

#[tokio::test]
async fn broad_globs_stay_out_of_hidden_and_ignored_directories() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .file(".gitignore", "build/\n*.log\n")
        .file("src/main.rs", "fn main() {}\n")
        .file("src/.hidden.rs", "\n")
        .file("app.log", "log\n")
        .file("build/out.rs", "\n")
        .file(".cache/x.rs", "\n")
        .run(|t| async move {
            for pattern in ["*", "**/*", "*.rs", "**/*.rs"] {
                let out = t.call("glob", json!({"pattern": pattern})).await.unwrap();
                let o = &out.output;
                assert!(!o.contains("/build/"), "{pattern}: entered build/: {o}");
                assert!(!o.contains("/.cache/"), "{pattern}: entered .cache/: {o}");
                assert!(!o.contains("/.git/"), "{pattern}: entered .git/: {o}");
                assert!(o.contains("src/main.rs"), "{pattern}: {o}");
            }
            let rs = t.call("glob", json!({"pattern": "*.rs"})).await.unwrap();
            assert!(rs.output.contains("src/.hidden.rs"), "{}", rs.output);
            let logs = t.call("glob", json!({"pattern": "*.log"})).await.unwrap();
            assert!(logs.output.contains("app.log"), "{}", logs.output);
            let grep = t
                .call("grep", json!({"pattern": ".", "include": "*"}))
                .await
                .unwrap();
            assert!(!grep.output.contains("/build/"), "{}", grep.output);
        })
        .await;
}
