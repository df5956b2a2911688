//! `grep` through the real wrapper: layout, include globs, inclusion rules, order, caps,
//! single-file targets and errors (spec §6, §18 b-c, §19 grep and glob).

use crate::wrapper_support::{at, set_mtime};
use serde_json::json;
use strata_testkit::{TestInstance, redacted};
use strata_tools::ToolError;

/// The `path:` header lines of a grep output, relative to the project, in order.
fn files(t: &TestInstance, output: &str) -> Vec<String> {
    let prefix = format!("{}/", t.dir().display());
    output
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .filter_map(|l| l.strip_suffix(':'))
        .map(str::to_string)
        .collect()
}

#[tokio::test]
async fn layout_newest_file_first_one_line_per_match() {
    TestInstance::builder()
        .file("src/old.rs", "fn alpha() {}\nlet x = 1;\nfn beta() {}\n")
        .file("src/new.rs", "// nothing\nfn gamma() {}\n")
        .file("src/none.rs", "struct S;\n")
        .run(|t| async move {
            set_mtime(&t.path("src/old.rs"), at(1));
            set_mtime(&t.path("src/new.rs"), at(2));
            let r = t.call("grep", json!({"pattern": "fn \\w+"})).await.unwrap();
            redacted(&t).bind(|| insta::assert_snapshot!("grep_layout", r.output));
            assert_eq!(files(&t, &r.output), ["src/new.rs", "src/old.rs"]);
            assert_eq!(r.metadata["matches"], 3);
            assert_eq!(r.metadata["truncated"], false);
            assert_eq!(r.title, "fn \\w+");
            assert!(r.metadata.get("outputPath").is_none());
        })
        .await;
}

#[tokio::test]
async fn include_restricts_the_searched_files() {
    TestInstance::builder()
        .file("web/app.ts", "export const TODO = 1;\n")
        .file("web/view.tsx", "// TODO render\n")
        .file("web/old.js", "// TODO js\n")
        .file("lib/util.ts", "// TODO util\n")
        .run(|t| async move {
            let r = t
                .call("grep", json!({"pattern": "TODO", "include": "*.ts"}))
                .await
                .unwrap();
            assert!(r.output.starts_with("Found 2 matches\n"), "{}", r.output);
            assert_eq!(r.metadata["matches"], 2);
            let mut got = files(&t, &r.output);
            got.sort();
            assert_eq!(got, ["lib/util.ts", "web/app.ts"]);

            let r = t
                .call("grep", json!({"pattern": "TODO", "include": "*.{ts,tsx}"}))
                .await
                .unwrap();
            assert_eq!(r.metadata["matches"], 3);
            assert!(!r.output.contains("old.js"));
        })
        .await;
}

#[tokio::test]
async fn no_hit_is_exactly_the_nothing_found_line() {
    TestInstance::builder()
        .file("a.txt", "hello\n")
        .run(|t| async move {
            let r = t
                .call("grep", json!({"pattern": "definitely_absent_token"}))
                .await
                .unwrap();
            assert_eq!(r.output, "No files found");
            assert_eq!(r.metadata["matches"], 0);
            assert_eq!(r.metadata["truncated"], false);
        })
        .await;
}

#[tokio::test]
async fn finds_a_match_in_a_plain_tmp_instance() {
    TestInstance::builder()
        .file("notes/today.md", "remember the milk\n")
        .run(|t| async move {
            let r = t.call("grep", json!({"pattern": "milk"})).await.unwrap();
            let expected = format!(
                "Found 1 matches\n{}:\n  Line 1: remember the milk",
                t.path("notes/today.md").display()
            );
            assert_eq!(r.output, expected);
        })
        .await;
}

#[tokio::test]
async fn over_100_matching_files_is_capped_without_a_total() {
    let builder = (0..101).fold(TestInstance::builder(), |b, i| {
        b.file(format!("m/f{i:03}.txt"), "needle\n")
    });
    builder
        .run(|t| async move {
            for i in 0..101 {
                set_mtime(&t.path(&format!("m/f{i:03}.txt")), at(i));
            }
            let r = t.call("grep", json!({"pattern": "needle"})).await.unwrap();
            assert_eq!(r.metadata["matches"], 100);
            assert_eq!(r.metadata["truncated"], true);
            let first = r.output.lines().next().unwrap();
            let last = r.output.rsplit("\n\n").next().unwrap();
            insta::assert_snapshot!("grep_capped_header", first);
            insta::assert_snapshot!("grep_capped_footer", last);
            assert!(!r.output.contains("101"), "no total is reported");
            let shown = files(&t, &r.output);
            assert_eq!(shown.len(), 100);
            assert_eq!(shown[0], "m/f100.txt", "newest first");
            assert!(
                !shown.contains(&"m/f000.txt".to_string()),
                "the oldest is left out"
            );
        })
        .await;
}

#[tokio::test]
async fn one_file_with_many_matches_keeps_100_in_line_order() {
    let text: String = (1..=150).map(|i| format!("hit {i}\n")).collect();
    TestInstance::builder()
        .file("many.txt", &text)
        .run(|t| async move {
            let r = t.call("grep", json!({"pattern": "^hit"})).await.unwrap();
            assert_eq!(r.metadata["matches"], 100);
            assert_eq!(r.metadata["truncated"], true);
            let lines: Vec<&str> = r
                .output
                .lines()
                .filter(|l| l.starts_with("  Line "))
                .collect();
            assert_eq!(lines.len(), 100);
            assert_eq!(lines[0], "  Line 1: hit 1");
            assert_eq!(lines[99], "  Line 100: hit 100");
        })
        .await;
}

#[tokio::test]
async fn a_file_path_searches_that_file_only() {
    TestInstance::builder()
        .file("dir/target.txt", "line1\nline2\nline3")
        .file("dir/sibling.txt", "line2 as well\n")
        .run(|t| async move {
            let target = t.path("dir/target.txt");
            let r = t
                .call(
                    "grep",
                    json!({"pattern": "line2", "path": target.to_str().unwrap()}),
                )
                .await
                .unwrap();
            assert_eq!(r.metadata["matches"], 1);
            assert!(r.output.contains(&format!("{}:", target.display())));
            assert!(r.output.contains("Line 2: line2"), "{}", r.output);
            assert!(
                !r.output.contains("sibling"),
                "§18 c: not the whole directory"
            );
        })
        .await;
}

#[tokio::test]
async fn hidden_files_are_searched_ignored_and_git_are_not() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .file(".gitignore", "target/\n*.tmp\n")
        .file(".config/settings.toml", "marker = 1\n")
        .file(".env.sample", "marker=2\n")
        .file("target/debug/out.txt", "marker 3\n")
        .file("scratch.tmp", "marker 4\n")
        .file("src/lib.rs", "// marker 5\n")
        .run(|t| async move {
            let r = t.call("grep", json!({"pattern": "marker"})).await.unwrap();
            let mut got = files(&t, &r.output);
            got.sort();
            assert_eq!(got, [".config/settings.toml", ".env.sample", "src/lib.rs"]);
            let r = t
                .call("grep", json!({"pattern": "repositoryformatversion"}))
                .await
                .unwrap();
            assert_eq!(r.output, "No files found", ".git is never searched");
        })
        .await;
}

#[tokio::test]
async fn binary_files_are_skipped() {
    TestInstance::builder()
        .file("blob.dat", b"needle\0\x01\x02needle\n")
        .file("text.txt", "needle\n")
        .run(|t| async move {
            let r = t.call("grep", json!({"pattern": "needle"})).await.unwrap();
            assert_eq!(files(&t, &r.output), ["text.txt"], "{}", r.output);
        })
        .await;
}

#[tokio::test]
async fn long_match_lines_are_cut_at_2000_characters() {
    let line = format!("needle{}", "q".repeat(2500));
    TestInstance::builder()
        .file("wide.txt", format!("{line}\r\n"))
        .run(|t| async move {
            let r = t.call("grep", json!({"pattern": "needle"})).await.unwrap();
            let shown = r
                .output
                .lines()
                .find(|l| l.starts_with("  Line 1: "))
                .unwrap();
            let text = shown.strip_prefix("  Line 1: ").unwrap();
            assert_eq!(text.chars().count(), 2003);
            assert!(text.ends_with("q..."), "cut with `...`, no line terminator");
        })
        .await;
}

#[tokio::test]
async fn empty_pattern_is_refused_before_any_ask() {
    TestInstance::builder()
        .config(json!({"permission": {"grep": "ask"}}))
        .run(|t| async move {
            let err = t.call("grep", json!({"pattern": ""})).await.unwrap_err();
            assert!(matches!(err, ToolError::Model(_)), "{err:?}");
            assert!(err.to_string().contains("`pattern`"), "{err}");
            assert!(t.asked().is_empty());
        })
        .await;
}

#[tokio::test]
async fn invalid_regex_keeps_the_parser_message() {
    TestInstance::builder()
        .file("a.txt", "x\n")
        .run(|t| async move {
            let err = t
                .call("grep", json!({"pattern": "foo("}))
                .await
                .unwrap_err();
            assert!(matches!(err, ToolError::Model(_)), "{err:?}");
            let msg = err.to_string();
            insta::assert_snapshot!("grep_invalid_regex", msg);
            assert!(msg.contains("regex parse error:"), "{msg}");
            assert!(msg.contains("unclosed group"), "{msg}");
        })
        .await;
}

#[tokio::test]
async fn missing_path_is_an_error_naming_it() {
    TestInstance::builder()
        .run(|t| async move {
            let msg = t
                .call("grep", json!({"pattern": "x", "path": "gone/dir"}))
                .await
                .unwrap_err()
                .to_string();
            redacted(&t).bind(|| insta::assert_snapshot!("grep_path_missing", msg));
            assert!(msg.contains(&t.path("gone/dir").display().to_string()));
        })
        .await;
}

#[tokio::test]
async fn grep_ask_carries_pattern_path_and_include() {
    TestInstance::builder()
        .config(json!({"permission": {"grep": "ask"}}))
        .file("src/a.rs", "fn main() {}\n")
        .run(|t| async move {
            t.call(
                "grep",
                json!({"pattern": "main", "path": "src", "include": "*.rs"}),
            )
            .await
            .unwrap();
            let asks = t.asked_for("grep");
            assert_eq!(asks.len(), 1);
            assert_eq!(asks[0].patterns, ["main"]);
            assert_eq!(asks[0].always, ["*"]);
            assert_eq!(
                asks[0].metadata,
                json!({"pattern": "main", "path": "src", "include": "*.rs"})
            );
        })
        .await;
}
