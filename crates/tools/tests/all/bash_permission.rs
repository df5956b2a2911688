//! `bash` permission asks through the real wrapper and the real Permission service: command
//! patterns from the arity table, `external_directory` for outside paths, and rules that stop a
//! command before anything runs (spec §7.4, §19 bash).

use serde_json::{Value, json};
use strata_services::permission::{PermissionError, Request};
use strata_testkit::{ReplyMode, TestInstance};
use strata_tools::ToolError;

/// Makes every `bash` call ask (the default rules allow it silently), so asks are recorded.
fn asking() -> Value {
    json!({"permission": {"bash": "ask"}, "sandbox": {"auto_allow": false}})
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn only(asks: Vec<Request>) -> Request {
    assert_eq!(asks.len(), 1, "{asks:?}");
    asks.into_iter().next().unwrap()
}

#[tokio::test]
async fn one_pattern_per_command_with_arity_always_patterns() {
    TestInstance::builder()
        .config(asking())
        .run(|t| async move {
            let r = t
                .call("bash", json!({"command": "echo hello"}))
                .await
                .unwrap();
            assert_eq!(r.output, "hello\n");
            let ask = only(t.asked_for("bash"));
            assert_eq!(strs(&ask.patterns), ["echo hello"]);
            assert_eq!(strs(&ask.always), ["echo *"]);
            assert_eq!(ask.metadata, json!({"command": "echo hello"}));
            assert_eq!(ask.tool.as_ref().unwrap().call_id, "call_test");
            assert!(t.asked_for("external_directory").is_empty());
        })
        .await;
}

#[tokio::test]
async fn compound_commands_ask_for_each_command() {
    TestInstance::builder()
        .config(asking())
        .run(|t| async move {
            t.call("bash", json!({"command": "echo foo && echo bar"}))
                .await
                .unwrap();
            t.call(
                "bash",
                json!({"command": "git log --oneline -5 | grep x; ls -la"}),
            )
            .await
            .unwrap();
            t.call("bash", json!({"command": "echo test > output.txt"}))
                .await
                .unwrap();
            let asks = t.asked_for("bash");
            assert_eq!(asks.len(), 3, "{asks:?}");
            assert_eq!(strs(&asks[0].patterns), ["echo foo", "echo bar"]);
            assert_eq!(strs(&asks[0].always), ["echo *"]);
            assert_eq!(
                strs(&asks[1].patterns),
                ["git log --oneline -5", "grep x", "ls -la"]
            );
            assert_eq!(strs(&asks[1].always), ["git log *", "grep *", "ls *"]);
            assert_eq!(strs(&asks[2].patterns), ["echo test > output.txt"]);
            assert_eq!(
                std::fs::read_to_string(t.path("output.txt")).unwrap(),
                "test\n"
            );
        })
        .await;
}

#[tokio::test]
async fn ls_always_starts_with_ls_star_and_cd_dot_asks_nothing() {
    TestInstance::builder()
        .config(asking())
        .run(|t| async move {
            t.call("bash", json!({"command": "ls -la"})).await.unwrap();
            let ask = only(t.asked_for("bash"));
            assert_eq!(ask.always[0], "ls *");
            t.call("bash", json!({"command": "cd ."})).await.unwrap();
            assert_eq!(t.asked_for("bash").len(), 1, "`cd .` asks nothing");
            assert!(t.asked_for("external_directory").is_empty());
        })
        .await;
}

#[tokio::test]
async fn reading_an_outside_file_asks_external_directory_first() {
    TestInstance::builder()
        .config(asking())
        .run(|t| async move {
            t.call("bash", json!({"command": "cat /etc/hostname"}))
                .await
                .unwrap();
            let asked = t.asked();
            assert_eq!(asked.len(), 2, "{asked:?}");
            assert_eq!(
                asked[0].permission, "external_directory",
                "asked before bash"
            );
            assert_eq!(asked[1].permission, "bash");
            assert_eq!(strs(&asked[0].patterns), ["/etc/*"]);
            assert_eq!(strs(&asked[0].always), ["/etc/*"]);
            assert_eq!(
                asked[0].metadata,
                json!({
                    "command": "cat /etc/hostname",
                    "directories": ["/etc"],
                    "patterns": ["/etc/*"],
                })
            );
            assert_eq!(strs(&asked[1].patterns), ["cat /etc/hostname"]);
        })
        .await;
}

#[tokio::test]
async fn outside_globs_and_parent_directories_are_external() {
    TestInstance::builder()
        .run(|t| async move {
            t.call("bash", json!({"command": "cat /etc/* > /dev/null; true"}))
                .await
                .unwrap();
            let ask = only(t.asked_for("external_directory"));
            assert!(ask.patterns.contains(&"/etc/*".to_string()), "{ask:?}");
            let parent = t.dir().parent().unwrap().display().to_string();
            let r = t
                .call("bash", json!({"command": "cd .. && ls"}))
                .await
                .unwrap();
            assert!(r.output.contains("project"), "{}", r.output);
            let asks = t.asked_for("external_directory");
            assert_eq!(asks.len(), 2);
            assert_eq!(strs(&asks[1].patterns), [format!("{parent}/*").as_str()]);
        })
        .await;
}

#[tokio::test]
async fn a_workdir_outside_the_project_is_external() {
    TestInstance::builder()
        .run(|t| async move {
            let tmp = std::env::temp_dir();
            let r = t
                .call(
                    "bash",
                    json!({"command": "pwd", "workdir": tmp.display().to_string()}),
                )
                .await
                .unwrap();
            assert_eq!(r.metadata["exit"], 0);
            let ask = only(t.asked_for("external_directory"));
            let glob = format!("{}/*", tmp.display().to_string().trim_end_matches('/'));
            assert_eq!(strs(&ask.patterns), [glob.as_str()]);
        })
        .await;
}

#[tokio::test]
async fn an_outside_file_argument_gives_its_directory_glob() {
    let outer = tempfile::tempdir().unwrap();
    let outer_dir = std::fs::canonicalize(outer.path()).unwrap();
    std::fs::write(outer_dir.join("data.txt"), "outside\n").unwrap();
    TestInstance::builder()
        .file("inside.txt", "x")
        .run(|t| async move {
            let file = outer_dir.join("data.txt");
            let r = t
                .call(
                    "bash",
                    json!({"command": format!("cat {}", file.display())}),
                )
                .await
                .unwrap();
            assert_eq!(r.output, "outside\n");
            let ask = only(t.asked_for("external_directory"));
            let glob = format!("{}/*", outer_dir.display());
            assert_eq!(strs(&ask.patterns), [glob.as_str()]);
            assert_eq!(strs(&ask.always), [glob.as_str()]);
            // `rm` of a file inside the project asks nothing external.
            t.call("bash", json!({"command": "rm inside.txt"}))
                .await
                .unwrap();
            assert_eq!(t.asked_for("external_directory").len(), 1);
            assert!(!t.path("inside.txt").exists());
        })
        .await;
}

#[cfg(unix)]
#[tokio::test]
async fn a_symlink_in_the_project_pointing_outside_is_external() {
    let outer = tempfile::tempdir().unwrap();
    let outer_dir = std::fs::canonicalize(outer.path()).unwrap();
    std::fs::write(outer_dir.join("secret.txt"), "s\n").unwrap();
    TestInstance::builder()
        .run(|t| async move {
            std::os::unix::fs::symlink(&outer_dir, t.path("alias")).unwrap();
            let r = t
                .call("bash", json!({"command": "cat alias/secret.txt"}))
                .await
                .unwrap();
            assert_eq!(r.output, "s\n");
            let ask = only(t.asked_for("external_directory"));
            let glob = format!("{}/*", outer_dir.display());
            assert_eq!(strs(&ask.patterns), [glob.as_str()]);
        })
        .await;
}

#[tokio::test]
async fn a_denied_rule_blocks_before_anything_runs() {
    TestInstance::builder()
        .file("victim.txt", "keep me")
        .config(json!({"permission": {"bash": {"rm *": "deny"}}}))
        .run(|t| async move {
            let err = t
                .call("bash", json!({"command": "touch ran.txt && rm victim.txt"}))
                .await
                .unwrap_err();
            assert!(
                matches!(err, ToolError::Permission(PermissionError::Denied { .. })),
                "{err:?}"
            );
            assert!(t.path("victim.txt").exists(), "the file is still there");
            assert!(!t.path("ran.txt").exists(), "no part of the command ran");
        })
        .await;
}

#[tokio::test]
async fn a_rejected_external_ask_runs_nothing() {
    TestInstance::builder()
        .run(|t| async move {
            t.reply_mode(ReplyMode::Reject(None));
            let err = t
                .call(
                    "bash",
                    json!({"command": "touch ran.txt; cat /etc/hostname"}),
                )
                .await
                .unwrap_err();
            assert!(
                matches!(err, ToolError::Permission(PermissionError::Rejected { .. })),
                "{err:?}"
            );
            assert!(!t.path("ran.txt").exists());
        })
        .await;
}

#[tokio::test]
async fn every_available_posix_shell_gets_the_same_asks() {
    let shells: Vec<&str> = ["/bin/sh", "/bin/bash", "/bin/dash", "/usr/bin/zsh"]
        .into_iter()
        .filter(|s| std::path::Path::new(s).exists())
        .collect();
    assert!(shells.len() >= 2, "sh and bash are installed: {shells:?}");
    for shell in shells {
        TestInstance::builder()
            .config(json!({"shell": shell, "permission": {"bash": "ask"}, "sandbox": {"auto_allow": false}}))
            .run(|t| async move {
                let r = t.call("bash", json!({"command": "echo test"})).await;
                assert_eq!(r.unwrap().output, "test\n", "{shell}");
                t.call("bash", json!({"command": "echo foo && echo bar"}))
                    .await
                    .unwrap();
                t.call("bash", json!({"command": "cd ../"})).await.unwrap();
                let asks = t.asked_for("bash");
                assert_eq!(asks.len(), 2, "{shell}: `cd` alone asks no bash: {asks:?}");
                assert_eq!(strs(&asks[0].patterns), ["echo test"], "{shell}");
                assert_eq!(strs(&asks[1].patterns), ["echo foo", "echo bar"], "{shell}");
                let external = only(t.asked_for("external_directory"));
                let parent = t.dir().parent().unwrap();
                assert_eq!(
                    strs(&external.patterns),
                    [format!("{}/*", parent.display())],
                    "{shell}"
                );
            })
            .await;
    }
}
