//! `glob` through the real wrapper: matching, ripgrep's inclusion rules, order, the cap,
//! errors, titles and permission asks (spec §5, §18 b, §19 grep and glob).

use crate::wrapper_support::{at, root, set_mtime, write_outside};
use serde_json::json;
use strata_testkit::{TestInstance, redacted};
use strata_tools::ToolError;

/// The listed paths, relative to the project, in output order.
fn listed(t: &TestInstance, output: &str) -> Vec<String> {
    let prefix = format!("{}/", t.dir().display());
    output
        .lines()
        .take_while(|l| !l.is_empty())
        .map(|l| {
            l.strip_prefix(&prefix)
                .unwrap_or_else(|| panic!("not an absolute project path: {l}"))
                .to_string()
        })
        .collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

#[tokio::test]
async fn ts_pattern_in_a_directory_lists_only_the_ts_file() {
    TestInstance::builder()
        .file("web/app.ts", "")
        .file("web/readme.txt", "")
        .run(|t| async move {
            let r = t
                .call(
                    "glob",
                    json!({"pattern": "*.ts", "path": t.path("web").to_str().unwrap()}),
                )
                .await
                .unwrap();
            assert_eq!(r.output, t.path("web/app.ts").display().to_string());
            assert_eq!(r.metadata["count"], 1);
            assert_eq!(r.metadata["truncated"], false);
            assert!(!r.output.contains("readme.txt"));
            assert_eq!(r.title, "web");
        })
        .await;
}

#[tokio::test]
async fn no_match_says_so() {
    TestInstance::builder()
        .file("a.rs", "")
        .run(|t| async move {
            let r = t.call("glob", json!({"pattern": "*.zig"})).await.unwrap();
            redacted(&t).bind(|| insta::assert_snapshot!("glob_none", r.output));
            assert_eq!(r.metadata["count"], 0);
            assert_eq!(r.metadata["truncated"], false);
        })
        .await;
}

#[tokio::test]
async fn path_that_is_a_file_is_refused() {
    TestInstance::builder()
        .file("one.txt", "")
        .run(|t| async move {
            let err = t
                .call("glob", json!({"pattern": "*", "path": "one.txt"}))
                .await
                .unwrap_err();
            assert!(matches!(err, ToolError::Model(_)), "{err:?}");
            let msg = err.to_string();
            redacted(&t).bind(|| insta::assert_snapshot!("glob_path_is_file", msg));
            assert!(msg.contains(&t.path("one.txt").display().to_string()));
            assert!(msg.contains("directory"), "{msg}");
        })
        .await;
}

#[tokio::test]
async fn missing_path_is_an_error_naming_it() {
    TestInstance::builder()
        .run(|t| async move {
            let msg = t
                .call("glob", json!({"pattern": "*", "path": "nowhere"}))
                .await
                .unwrap_err()
                .to_string();
            redacted(&t).bind(|| insta::assert_snapshot!("glob_path_missing", msg));
            assert!(msg.contains(&t.path("nowhere").display().to_string()));
        })
        .await;
}

#[tokio::test]
async fn newest_first_then_by_path() {
    TestInstance::builder()
        .file("old.md", "")
        .file("mid_b.md", "")
        .file("mid_a.md", "")
        .file("new.md", "")
        .run(|t| async move {
            set_mtime(&t.path("old.md"), at(10));
            set_mtime(&t.path("mid_b.md"), at(20));
            set_mtime(&t.path("mid_a.md"), at(20));
            set_mtime(&t.path("new.md"), at(30));
            let r = t.call("glob", json!({"pattern": "*.md"})).await.unwrap();
            assert_eq!(
                listed(&t, &r.output),
                ["new.md", "mid_a.md", "mid_b.md", "old.md"]
            );
        })
        .await;
}

#[tokio::test]
async fn more_than_100_matches_keeps_the_newest_100() {
    let builder = (0..105).fold(TestInstance::builder(), |b, i| {
        b.file(format!("gen/f{i:03}.txt"), "")
    });
    builder
        .run(|t| async move {
            for i in 0..105 {
                set_mtime(&t.path(&format!("gen/f{i:03}.txt")), at(i));
            }
            let r = t.call("glob", json!({"pattern": "*.txt"})).await.unwrap();
            let files = listed(&t, &r.output);
            assert_eq!(files.len(), 100);
            assert_eq!(files[0], "gen/f104.txt");
            assert_eq!(files[99], "gen/f005.txt");
            assert_eq!(r.metadata["count"], 100);
            assert_eq!(r.metadata["truncated"], true);
            let tail = r.output.rsplit("\n\n").next().unwrap();
            insta::assert_snapshot!("glob_capped_footer", tail);
            assert!(tail.contains("100"), "{tail}");
        })
        .await;
}

#[tokio::test]
async fn gitignore_and_hidden_rules_follow_ripgrep() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .file(".gitignore", "*.log\nbuild/\n")
        .file("app.log", "")
        .file("build/out.rs", "")
        .file("src/main.rs", "")
        .file("src/.d.rs", "")
        .file(".hidden/x.rs", "")
        .file("deep/a/b/c.rs", "")
        .file("notes.txt", "")
        .run(|t| async move {
            let r = t.call("glob", json!({"pattern": "*.rs"})).await.unwrap();
            assert_eq!(
                sorted(listed(&t, &r.output)),
                ["deep/a/b/c.rs", "src/.d.rs", "src/main.rs"],
                "a name pattern matches at any depth; a matched hidden file is listed; hidden \
                 and ignored directories are not entered"
            );
            let r = t.call("glob", json!({"pattern": "*.log"})).await.unwrap();
            assert_eq!(
                listed(&t, &r.output),
                ["app.log"],
                "a matched ignored file is listed"
            );
            // `*` also matches directory names, and an override match wins over hidden and
            // ignore rules in ripgrep too; only `.git` stays out whatever the pattern.
            let r = t.call("glob", json!({"pattern": "*"})).await.unwrap();
            let all = listed(&t, &r.output);
            assert!(all.contains(&"notes.txt".to_string()), "{all:?}");
            assert!(!all.iter().any(|p| p.starts_with(".git/")), "{all:?}");
            let r = t.call("glob", json!({"pattern": "**/HEAD"})).await.unwrap();
            assert_eq!(r.output, "No files found", "nothing under .git is listed");
        })
        .await;
}

#[tokio::test]
async fn slash_anchors_double_star_crosses_braces_and_classes_work() {
    TestInstance::builder()
        .file("src/a.rs", "")
        .file("src/inner/b.rs", "")
        .file("other/src/c.rs", "")
        .file("web/x.ts", "")
        .file("web/y.tsx", "")
        .file("web/z.js", "")
        .file("v1.txt", "")
        .file("v2.txt", "")
        .file("v9.txt", "")
        .run(|t| async move {
            let got = |pattern: &'static str| {
                let t = t.clone();
                async move {
                    let r = t.call("glob", json!({"pattern": pattern})).await.unwrap();
                    sorted(listed(&t, &r.output))
                }
            };
            assert_eq!(got("src/*.rs").await, ["src/a.rs"]);
            assert_eq!(got("src/**/*.rs").await, ["src/a.rs", "src/inner/b.rs"]);
            assert_eq!(got("**/src/*.rs").await, ["other/src/c.rs", "src/a.rs"]);
            assert_eq!(got("web/*.{ts,tsx}").await, ["web/x.ts", "web/y.tsx"]);
            assert_eq!(got("v[12].txt").await, ["v1.txt", "v2.txt"]);
        })
        .await;
}

#[tokio::test]
async fn titles_are_relative_to_the_worktree() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .file("src/lib.rs", "")
        .run(|t| async move {
            let r = t.call("glob", json!({"pattern": "*.rs"})).await.unwrap();
            assert_eq!(r.title, "", "the worktree root is the empty title");
            let r = t
                .call("glob", json!({"pattern": "*.rs", "path": "src"}))
                .await
                .unwrap();
            assert_eq!(r.title, "src");
            assert_eq!(listed(&t, &r.output), ["src/lib.rs"]);
        })
        .await;
}

#[tokio::test]
async fn glob_ask_carries_pattern_and_path() {
    TestInstance::builder()
        .config(json!({"permission": {"glob": "ask"}}))
        .file("src/lib.rs", "")
        .run(|t| async move {
            t.call("glob", json!({"pattern": "**/*.rs", "path": "src"}))
                .await
                .unwrap();
            t.call("glob", json!({"pattern": "*.md"})).await.unwrap();
            let asks = t.asked_for("glob");
            assert_eq!(asks.len(), 2);
            assert_eq!(asks[0].patterns, ["**/*.rs"]);
            assert_eq!(asks[0].always, ["*"]);
            assert_eq!(
                asks[0].metadata,
                json!({"pattern": "**/*.rs", "path": "src"})
            );
            assert_eq!(asks[1].metadata, json!({"pattern": "*.md", "path": null}));
        })
        .await;
}

#[tokio::test]
async fn outside_directory_asks_for_the_directory_itself() {
    TestInstance::builder()
        .run(|t| async move {
            write_outside(&t, "outside/lib/x.rs", "");
            let dir = root(&t).join("outside/lib");
            let r = t
                .call(
                    "glob",
                    json!({"pattern": "*.rs", "path": dir.to_str().unwrap()}),
                )
                .await
                .unwrap();
            assert_eq!(r.output, dir.join("x.rs").display().to_string());
            let asks = t.asked_for("external_directory");
            assert_eq!(asks.len(), 1);
            let glob = format!("{}/*", dir.display());
            assert_eq!(asks[0].patterns, [glob.as_str()]);
            assert_eq!(asks[0].always, [glob]);
            assert_eq!(asks[0].metadata["parentDir"], dir.to_str().unwrap());

            // `bypass_cwd_check` is for `read` only.
            t.call_with(
                "glob",
                json!({"pattern": "*.rs", "path": dir.to_str().unwrap()}),
                t.cx().bypass_cwd_check(true).build(),
            )
            .await
            .unwrap();
            assert_eq!(t.asked_for("external_directory").len(), 2);
        })
        .await;
}

#[tokio::test]
async fn the_project_itself_asks_nothing() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .file("a/b.rs", "")
        .run(|t| async move {
            t.call("glob", json!({"pattern": "*.rs"})).await.unwrap();
            t.call("glob", json!({"pattern": "*.rs", "path": "a"}))
                .await
                .unwrap();
            assert!(t.asked().is_empty(), "{:?}", t.asked());
        })
        .await;
}
