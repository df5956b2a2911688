//! `grep` and the external-directory permission: outside directories and files, symlinked
//! aliases, and links out of the project (spec §0.4, §6 step 3, §18 g, §19 grep and glob).

use crate::wrapper_support::{root, write_outside};
use serde_json::json;
use strata_testkit::TestInstance;

#[tokio::test]
async fn symlinked_alias_of_an_outside_dir_allowed_by_config_asks_nothing() {
    // The outside tree exists before the instance, so the config can name the alias.
    let outside = tempfile::Builder::new()
        .prefix("strata-grep-outside-")
        .tempdir()
        .unwrap();
    let base = std::fs::canonicalize(outside.path()).unwrap();
    let real = base.join("real");
    std::fs::create_dir(&real).unwrap();
    std::fs::write(real.join("lib.txt"), "needle in the alias\n").unwrap();
    let alias = base.join("alias");
    std::os::unix::fs::symlink(&real, &alias).unwrap();
    let rule = format!("{}/*", alias.display());
    TestInstance::builder()
        .config(json!({"permission": {"external_directory": {rule: "allow"}}}))
        .run(|t| async move {
            let r = t
                .call(
                    "grep",
                    json!({"pattern": "needle", "path": alias.to_str().unwrap()}),
                )
                .await
                .unwrap();
            assert_eq!(r.metadata["matches"], 1, "{}", r.output);
            assert!(
                t.asked_for("external_directory").is_empty(),
                "the rule written for the alias matches: {:?}",
                t.asked()
            );
        })
        .await;
    drop(outside);
}

#[tokio::test]
async fn outside_directory_asks_for_the_directory_itself() {
    TestInstance::builder()
        .run(|t| async move {
            write_outside(&t, "outside/src/a.txt", "needle\n");
            let dir = root(&t).join("outside/src");
            let r = t
                .call(
                    "grep",
                    json!({"pattern": "needle", "path": dir.to_str().unwrap()}),
                )
                .await
                .unwrap();
            assert_eq!(r.metadata["matches"], 1);
            let asks = t.asked_for("external_directory");
            assert_eq!(asks.len(), 1);
            let glob = format!("{}/*", dir.display());
            assert_eq!(asks[0].patterns, [glob.as_str()]);
            assert_eq!(asks[0].always, [glob]);
        })
        .await;
}

#[tokio::test]
async fn outside_file_asks_for_its_parent() {
    TestInstance::builder()
        .run(|t| async move {
            let file = write_outside(&t, "outside/one.txt", "needle\n");
            let r = t
                .call(
                    "grep",
                    json!({"pattern": "needle", "path": file.to_str().unwrap()}),
                )
                .await
                .unwrap();
            assert_eq!(r.metadata["matches"], 1);
            let asks = t.asked_for("external_directory");
            assert_eq!(asks.len(), 1);
            let parent = root(&t).join("outside");
            assert_eq!(asks[0].patterns, [format!("{}/*", parent.display())]);
            assert_eq!(
                asks[0].metadata,
                json!({"filepath": file.to_str().unwrap(), "parentDir": parent.to_str().unwrap()})
            );
        })
        .await;
}

#[tokio::test]
async fn link_inside_pointing_outside_asks_for_the_resolved_directory() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .run(|t| async move {
            write_outside(&t, "elsewhere/x.txt", "needle\n");
            let real = root(&t).join("elsewhere");
            std::os::unix::fs::symlink(&real, t.path("vendor")).unwrap();
            t.call("grep", json!({"pattern": "needle", "path": "vendor"}))
                .await
                .unwrap();
            let asks = t.asked_for("external_directory");
            assert_eq!(asks.len(), 1, "§18 g");
            assert_eq!(asks[0].patterns, [format!("{}/*", real.display())]);
        })
        .await;
}

#[tokio::test]
async fn rejected_external_ask_searches_nothing() {
    TestInstance::builder()
        .run(|t| async move {
            write_outside(&t, "outside/a.txt", "needle\n");
            t.reply_mode(strata_testkit::ReplyMode::Reject(None));
            let err = t
                .call(
                    "grep",
                    json!({"pattern": "needle", "path": root(&t).join("outside").to_str().unwrap()}),
                )
                .await
                .unwrap_err();
            assert!(matches!(err, strata_tools::ToolError::Permission(_)), "{err:?}");
            assert!(!err.to_string().contains("a.txt"));
        })
        .await;
}

#[tokio::test]
async fn default_target_inside_the_project_asks_nothing() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .file("a.txt", "needle\n")
        .run(|t| async move {
            t.call("grep", json!({"pattern": "needle"})).await.unwrap();
            t.call("grep", json!({"pattern": "needle", "path": "a.txt"}))
                .await
                .unwrap();
            assert!(t.asked().is_empty(), "{:?}", t.asked());
        })
        .await;
}
