//! `read` and permissions through the real wrapper: the `read` ask and its pattern, the `.env`
//! defaults, and the external-directory ask for outside paths and symlinks (spec §0.4, §1
//! steps 2-5, §18 g, §19 read).

use crate::wrapper_support::{plan_ruleset, root, write_outside};
use serde_json::json;
use strata_services::permission::{Permission, PermissionError};
use strata_testkit::{ReplyMode, TestInstance};
use strata_tools::ToolError;

#[tokio::test]
async fn file_outside_the_project_asks_for_its_directory_once() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .run(|t| async move {
            let file = write_outside(&t, "outside/notes.txt", "far away\n");
            let outer = root(&t).join("outside");
            let r = t
                .call("read", json!({"filePath": file.to_str().unwrap()}))
                .await
                .unwrap();
            assert!(r.output.contains("1: far away"), "{}", r.output);
            assert_eq!(r.title, "../outside/notes.txt");
            let asks = t.asked_for("external_directory");
            assert_eq!(asks.len(), 1, "{asks:?}");
            let glob = format!("{}/*", outer.display());
            assert_eq!(asks[0].patterns, [glob.as_str()]);
            assert_eq!(asks[0].always, [glob]);
            assert_eq!(
                asks[0].metadata,
                json!({"filepath": file.to_str().unwrap(), "parentDir": outer.to_str().unwrap()})
            );
            assert_eq!(asks[0].session_id, "ses_test");
            let tool = asks[0].tool.as_ref().expect("the ask names its call");
            assert_eq!(tool.call_id, "call_test");
            assert_eq!(tool.message_id, "msg_test");
        })
        .await;
}

#[tokio::test]
async fn directory_outside_the_project_asks_for_that_directory_itself() {
    TestInstance::builder()
        .run(|t| async move {
            write_outside(&t, "outside/sub/a.txt", "");
            let dir = root(&t).join("outside/sub");
            let r = t
                .call("read", json!({"filePath": dir.to_str().unwrap()}))
                .await
                .unwrap();
            assert!(r.output.contains("<type>directory</type>"));
            let asks = t.asked_for("external_directory");
            assert_eq!(asks.len(), 1);
            assert_eq!(asks[0].patterns, [format!("{}/*", dir.display())]);
            assert_eq!(asks[0].metadata["parentDir"], dir.to_str().unwrap());
        })
        .await;
}

#[tokio::test]
async fn relative_path_outside_asks_then_fails_as_not_found() {
    TestInstance::builder()
        .run(|t| async move {
            let err = t
                .call("read", json!({"filePath": "../outside.txt"}))
                .await
                .unwrap_err();
            let asks = t.asked_for("external_directory");
            assert_eq!(asks.len(), 1);
            assert_eq!(asks[0].patterns, [format!("{}/*", root(&t).display())]);
            assert!(matches!(err, ToolError::Model(_)), "{err:?}");
            let msg = err.to_string();
            let missing = root(&t).join("outside.txt");
            assert!(msg.contains(&missing.display().to_string()), "{msg}");
        })
        .await;
}

#[tokio::test]
async fn file_inside_the_project_asks_nothing() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .file("src/in.txt", "x\n")
        .run(|t| async move {
            t.call(
                "read",
                json!({"filePath": t.path("src/in.txt").to_str().unwrap()}),
            )
            .await
            .unwrap();
            t.call("read", json!({"filePath": "src"})).await.unwrap();
            assert!(t.asked().is_empty(), "{:?}", t.asked());
        })
        .await;
}

#[tokio::test]
async fn rejected_external_ask_stops_the_call_before_reading() {
    TestInstance::builder()
        .run(|t| async move {
            let file = write_outside(&t, "outside/secret.txt", "top secret\n");
            t.reply_mode(ReplyMode::Reject(Some("stay in the project".into())));
            let err = t
                .call("read", json!({"filePath": file.to_str().unwrap()}))
                .await
                .unwrap_err();
            assert!(matches!(err, ToolError::Permission(_)), "{err:?}");
            assert!(err.stops_turn());
            let msg = err.to_string();
            assert!(msg.contains("stay in the project"), "{msg}");
            assert!(!msg.contains("top secret"));
            assert!(
                t.asked_for("read").is_empty(),
                "no read ask after the reject"
            );
        })
        .await;
}

#[tokio::test]
async fn bypass_cwd_check_skips_the_external_ask() {
    TestInstance::builder()
        .run(|t| async move {
            let file = write_outside(&t, "outside/b.txt", "bypassed\n");
            let r = t
                .call_with(
                    "read",
                    json!({"filePath": file.to_str().unwrap()}),
                    t.cx().bypass_cwd_check(true).build(),
                )
                .await
                .unwrap();
            assert!(r.output.contains("bypassed"));
            assert!(t.asked_for("external_directory").is_empty());
        })
        .await;
}

#[tokio::test]
async fn symlink_inside_resolving_outside_asks_for_the_resolved_directory() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .run(|t| async move {
            write_outside(&t, "outside/real/s.txt", "through a link\n");
            let real = root(&t).join("outside/real");
            std::os::unix::fs::symlink(&real, t.path("link")).unwrap();
            let r = t
                .call("read", json!({"filePath": "link/s.txt"}))
                .await
                .unwrap();
            assert!(r.output.contains("through a link"));
            let asks = t.asked_for("external_directory");
            assert_eq!(
                asks.len(),
                1,
                "a link out of the project is outside (§18 g)"
            );
            assert_eq!(asks[0].patterns, [format!("{}/*", real.display())]);
        })
        .await;
}

#[tokio::test]
async fn alias_outside_resolving_inside_asks_for_the_alias_path() {
    TestInstance::builder()
        .file("in.txt", "inside after all\n")
        .run(|t| async move {
            let alias = root(&t).join("alias");
            std::os::unix::fs::symlink(t.dir(), &alias).unwrap();
            let target = alias.join("in.txt");
            t.call("read", json!({"filePath": target.to_str().unwrap()}))
                .await
                .unwrap();
            let asks = t.asked_for("external_directory");
            assert_eq!(asks.len(), 1);
            assert_eq!(asks[0].patterns, [format!("{}/*", alias.display())]);
        })
        .await;
}

#[tokio::test]
async fn read_ask_uses_the_worktree_relative_path() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .file("src/secret.ts", "export const k = 1;\n")
        .config(json!({"permission": {"read": "ask"}}))
        .run(|t| async move {
            t.call(
                "read",
                json!({"filePath": t.path("src/secret.ts").to_str().unwrap()}),
            )
            .await
            .unwrap();
            let asks = t.asked_for("read");
            assert_eq!(asks.len(), 1);
            assert_eq!(asks[0].patterns, ["src/secret.ts"]);
            assert_eq!(asks[0].always, ["*"]);
            assert_eq!(asks[0].metadata, json!({}));
        })
        .await;
}

#[tokio::test]
async fn a_deny_rule_applies_before_existence_is_known() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .config(json!({"permission": {"read": {"src/secret.ts": "deny"}}}))
        .run(|t| async move {
            let err = t
                .call("read", json!({"filePath": "src/secret.ts"}))
                .await
                .unwrap_err();
            assert!(
                matches!(err, ToolError::Permission(PermissionError::Denied { .. })),
                "denied, not not-found: {err:?}"
            );
        })
        .await;
}

#[tokio::test]
async fn env_files_ask_and_look_alikes_do_not_for_build_and_plan() {
    strata_testkit::require_external!("git", "apt-get install git");
    let asked = [
        ".env",
        ".env.local",
        ".env.production",
        ".env.development.local",
    ];
    let quiet = [".env.example", ".envrc", "environment.ts"];
    let builder = asked
        .iter()
        .chain(quiet.iter())
        .fold(TestInstance::builder().git(true), |b, name| {
            b.file(*name, "KEY=value\n")
        });
    builder
        .run(|t| async move {
            for agent in ["build", "plan"] {
                for name in asked.iter().chain(quiet.iter()) {
                    let cx = if agent == "build" {
                        t.cx().build()
                    } else {
                        t.cx()
                            .agent("plan")
                            .permission(t.get::<Permission>(), plan_ruleset(&t))
                            .build()
                    };
                    let before = t.asked_for("read").len();
                    t.call_with("read", json!({"filePath": name}), cx)
                        .await
                        .unwrap();
                    let new: Vec<_> = t.asked_for("read").into_iter().skip(before).collect();
                    if asked.contains(name) {
                        assert_eq!(new.len(), 1, "{agent}: {name} must ask");
                        assert_eq!(new[0].patterns, [name.to_string()]);
                    } else {
                        assert!(new.is_empty(), "{agent}: {name} must not ask: {new:?}");
                    }
                }
            }
        })
        .await;
}

#[tokio::test]
async fn saved_tool_output_can_be_read_back_without_an_external_ask() {
    TestInstance::builder()
        .run(|t| async move {
            let long: String = (0..3000).map(|i| format!("row{i}\n")).collect();
            let cut = t
                .call("invalid", json!({"tool": "x", "error": long}))
                .await
                .unwrap();
            let saved = cut.metadata["outputPath"].as_str().expect("output was cut");
            let r = t
                .call(
                    "read",
                    json!({"filePath": saved, "offset": 2999, "limit": 2}),
                )
                .await
                .unwrap();
            assert!(r.output.contains("2999: row2998"), "{}", r.output);
            assert!(t.asked_for("external_directory").is_empty());
        })
        .await;
}
