//! `read` of text files through the real wrapper: paging, footers, the byte cap, line cuts,
//! offsets, not-found suggestions, binary refusal, metadata and FileTime (spec §1, §19 read).

use crate::wrapper_support::{content_lines, footer};
use serde_json::json;
use strata_services::file_time::{FileTime, hash_bytes};
use strata_testkit::{TestInstance, redacted};
use strata_tools::ToolError;

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line{i}\n")).collect()
}

#[tokio::test]
async fn absolute_path_inside_the_project_shows_the_text() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .file("notes.txt", "alpha\nbeta\n")
        .run(|t| async move {
            let abs = t.path("notes.txt");
            let r = t
                .call("read", json!({"filePath": abs.to_str().unwrap()}))
                .await
                .unwrap();
            redacted(&t).bind(|| {
                insta::assert_snapshot!("read_small_file", r.output);
            });
            assert_eq!(r.title, "notes.txt");
            assert_eq!(r.metadata["truncated"], false);
            assert!(r.attachments.is_empty());
        })
        .await;
}

#[tokio::test]
async fn file_in_a_subdirectory_by_relative_path() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .file("src/deep/mod.rs", "pub fn hello() {}\n")
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "src/deep/mod.rs"}))
                .await
                .unwrap();
            assert!(r.output.contains("1: pub fn hello() {}"), "{}", r.output);
            let abs = t.path("src/deep/mod.rs");
            assert!(
                r.output
                    .starts_with(&format!("<path>{}</path>\n", abs.display())),
                "the output names the absolute path: {}",
                r.output
            );
            assert_eq!(r.title, "src/deep/mod.rs");
        })
        .await;
}

#[tokio::test]
async fn small_file_has_the_end_of_file_footer_and_metadata() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .file("a.txt", "one\ntwo\nthree")
        .run(|t| async move {
            let r = t.call("read", json!({"filePath": "a.txt"})).await.unwrap();
            assert_eq!(content_lines(&r.output), ["1: one", "2: two", "3: three"]);
            assert_eq!(footer(&r.output), "(End of file - 3 lines in total)");
            assert_eq!(r.metadata["truncated"], false);
            assert_eq!(r.metadata["preview"], "one\ntwo\nthree");
            assert_eq!(r.metadata["loaded"], json!([]));
            let display = &r.metadata["display"];
            assert_eq!(display["type"], "file");
            assert_eq!(display["lineStart"], 1);
            assert_eq!(display["lineEnd"], 3);
            assert_eq!(display["totalLines"], 3);
            assert_eq!(display["truncated"], false);
            assert!(r.metadata.get("outputPath").is_none());
        })
        .await;
}

#[tokio::test]
async fn file_over_50_kb_stops_at_the_byte_cap() {
    let line = "x".repeat(56);
    let text: String = (0..3000).map(|_| format!("{line}\n")).collect();
    TestInstance::builder()
        .file("big.txt", &text)
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "big.txt"}))
                .await
                .unwrap();
            // 56 bytes a line plus one per join: 898 lines fit in 51 200 bytes.
            let lines = content_lines(&r.output);
            assert_eq!(lines.len(), 898);
            assert_eq!(lines[897], format!("898: {line}"));
            let f = footer(&r.output);
            insta::assert_snapshot!("read_byte_cap_footer", f);
            assert!(f.contains("50 KB") && f.contains("offset=899"), "{f}");
            assert_eq!(r.metadata["truncated"], true);
            assert_eq!(r.metadata["display"]["lineEnd"], 898);
            assert!(r.metadata.get("outputPath").is_none(), "read bounds itself");
        })
        .await;
}

#[tokio::test]
async fn limit_10_of_100_lines_points_at_offset_11() {
    TestInstance::builder()
        .file("hundred.txt", numbered(100))
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "hundred.txt", "limit": 10}))
                .await
                .unwrap();
            assert_eq!(content_lines(&r.output).len(), 10);
            let f = footer(&r.output);
            insta::assert_snapshot!("read_limit_footer", f);
            assert!(f.contains("1-10") && f.contains("100") && f.contains("offset=11"));
            assert_eq!(r.metadata["truncated"], true);
            assert_eq!(r.metadata["display"]["totalLines"], 100);
        })
        .await;
}

#[tokio::test]
async fn offset_10_limit_5_returns_exactly_lines_10_to_14() {
    TestInstance::builder()
        .file("hundred.txt", numbered(100))
        .run(|t| async move {
            let r = t
                .call(
                    "read",
                    json!({"filePath": "hundred.txt", "offset": 10, "limit": 5}),
                )
                .await
                .unwrap();
            assert_eq!(
                content_lines(&r.output),
                [
                    "10: line10",
                    "11: line11",
                    "12: line12",
                    "13: line13",
                    "14: line14"
                ]
            );
            assert!(footer(&r.output).contains("offset=15"), "{}", r.output);
            assert_eq!(r.metadata["display"]["lineStart"], 10);
            assert_eq!(r.metadata["display"]["lineEnd"], 14);
        })
        .await;
}

#[tokio::test]
async fn limit_zero_means_the_default_2000_lines() {
    TestInstance::builder()
        .file("long.txt", numbered(2500))
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "long.txt", "limit": 0}))
                .await
                .unwrap();
            let lines = content_lines(&r.output);
            assert_eq!(lines.len(), 2000);
            assert_eq!(lines[1999], "2000: line2000");
            assert!(footer(&r.output).contains("offset=2001"));
            assert_eq!(r.metadata["display"]["totalLines"], 2500);
            // More than the wrapper's 2000-line limit would allow is never re-cut: `read`
            // reported `truncated` itself.
            assert!(r.metadata.get("outputPath").is_none());
        })
        .await;
}

#[tokio::test]
async fn offset_zero_counts_as_one() {
    TestInstance::builder()
        .file("a.txt", "first\nsecond\n")
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "a.txt", "offset": 0}))
                .await
                .unwrap();
            assert_eq!(content_lines(&r.output), ["1: first", "2: second"]);
        })
        .await;
}

#[tokio::test]
async fn offset_past_the_end_names_offset_and_line_count() {
    TestInstance::builder()
        .file("three.txt", "a\nb\nc\n")
        .run(|t| async move {
            let err = t
                .call("read", json!({"filePath": "three.txt", "offset": 4}))
                .await
                .unwrap_err();
            assert!(matches!(err, ToolError::Model(_)), "{err:?}");
            let msg = err.to_string();
            redacted(&t).bind(|| {
                insta::assert_snapshot!("read_offset_out_of_range", msg);
            });
            assert!(msg.contains("offset 4") && msg.contains("3 lines"), "{msg}");
            assert!(!err.stops_turn());
        })
        .await;
}

#[tokio::test]
async fn empty_file_reads_as_zero_lines() {
    TestInstance::builder()
        .file("empty.txt", "")
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "empty.txt"}))
                .await
                .unwrap();
            let expected = format!(
                "<path>{}</path>\n<type>file</type>\n<content>\n\n\n(End of file - 0 lines in \
                 total)\n</content>",
                t.path("empty.txt").display()
            );
            assert_eq!(r.output, expected);
            assert_eq!(r.metadata["truncated"], false);
        })
        .await;
}

#[tokio::test]
async fn empty_file_with_offset_2_is_out_of_range() {
    TestInstance::builder()
        .file("empty.txt", "")
        .run(|t| async move {
            let msg = t
                .call("read", json!({"filePath": "empty.txt", "offset": 2}))
                .await
                .unwrap_err()
                .to_string();
            assert!(msg.contains("offset 2") && msg.contains("0 lines"), "{msg}");
        })
        .await;
}

#[tokio::test]
async fn a_3000_character_line_is_cut() {
    TestInstance::builder()
        .file("wide.txt", "y".repeat(3000))
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "wide.txt"}))
                .await
                .unwrap();
            let lines = content_lines(&r.output);
            assert_eq!(lines.len(), 1);
            let expected = format!("1: {}... (line cut at 2000 characters)", "y".repeat(2000));
            assert_eq!(lines[0], expected);
            assert!(
                r.output.chars().count() < 3000,
                "shorter than the line itself"
            );
        })
        .await;
}

#[tokio::test]
async fn crlf_is_one_break_and_a_lone_cr_stays() {
    TestInstance::builder()
        .file("dos.txt", "a\r\nb\rc\r\nlast")
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "dos.txt"}))
                .await
                .unwrap();
            assert_eq!(content_lines(&r.output), ["1: a", "2: b\rc", "3: last"]);
        })
        .await;
}

#[tokio::test]
async fn invalid_utf8_is_replaced_not_refused() {
    TestInstance::builder()
        .file("latin1.txt", b"caf\xe9\n")
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "latin1.txt"}))
                .await
                .unwrap();
            assert_eq!(content_lines(&r.output), ["1: caf\u{FFFD}"]);
        })
        .await;
}

#[tokio::test]
async fn missing_file_suggests_similar_names() {
    TestInstance::builder()
        .file("conf/config.json", "{}")
        .file("conf/config.yaml", "a: 1")
        .file("conf/configure.sh", "true")
        .file("conf/config.toml", "")
        .file("conf/other.txt", "x")
        .run(|t| async move {
            let err = t
                .call("read", json!({"filePath": "conf/config"}))
                .await
                .unwrap_err();
            assert!(matches!(err, ToolError::Model(_)), "{err:?}");
            let msg = err.to_string();
            redacted(&t).bind(|| {
                insta::assert_snapshot!("read_not_found_suggestions", msg);
            });
            assert!(msg.contains(&t.path("conf/config").display().to_string()));
            let suggested: Vec<&str> = msg
                .lines()
                .filter(|l| l.starts_with(t.dir().to_str().unwrap()))
                .collect();
            assert_eq!(suggested.len(), 3, "at most three, as full paths: {msg}");
            assert!(!msg.contains("other.txt"));
        })
        .await;
}

#[tokio::test]
async fn missing_file_without_similar_names_has_no_suggestions() {
    TestInstance::builder()
        .file("src/a.rs", "")
        .run(|t| async move {
            let msg = t
                .call("read", json!({"filePath": "src/zzz.md"}))
                .await
                .unwrap_err()
                .to_string();
            assert!(msg.contains(&t.path("src/zzz.md").display().to_string()));
            assert!(!msg.to_lowercase().contains("did you mean"), "{msg}");
        })
        .await;
}

#[tokio::test]
async fn txt_file_with_nul_bytes_is_binary() {
    TestInstance::builder()
        .file("data.txt", b"abc\0def\n")
        .run(|t| async move {
            let err = t
                .call("read", json!({"filePath": "data.txt"}))
                .await
                .unwrap_err();
            assert!(matches!(err, ToolError::Model(_)), "{err:?}");
            let msg = err.to_string();
            redacted(&t).bind(|| {
                insta::assert_snapshot!("read_binary", msg);
            });
            assert!(msg.contains(&t.path("data.txt").display().to_string()));
        })
        .await;
}

#[tokio::test]
async fn wasm_holding_plain_text_is_binary_by_extension() {
    TestInstance::builder()
        .file("module.wasm", "just plain text\n")
        .run(|t| async move {
            let msg = t
                .call("read", json!({"filePath": "module.wasm"}))
                .await
                .unwrap_err()
                .to_string();
            assert!(msg.contains("binary"), "{msg}");
            assert!(msg.contains("module.wasm"), "{msg}");
        })
        .await;
}

#[tokio::test]
async fn mostly_control_bytes_is_binary() {
    let mut bytes = vec![1u8; 40];
    bytes.extend_from_slice(b"some text");
    TestInstance::builder()
        .file("weird.txt", bytes)
        .run(|t| async move {
            let err = t.call("read", json!({"filePath": "weird.txt"})).await;
            assert!(err.unwrap_err().to_string().contains("binary"));
        })
        .await;
}

#[tokio::test]
async fn a_full_read_records_mtime_size_and_hash_in_file_time() {
    TestInstance::builder()
        .file("whole.txt", "a\nb\n")
        .file("part.txt", numbered(50))
        .run(|t| async move {
            let ft = t.get::<FileTime>();
            t.call("read", json!({"filePath": "whole.txt"}))
                .await
                .unwrap();
            let rec = ft.get("ses_test", &t.path("whole.txt")).expect("recorded");
            assert_eq!(rec.size, 4);
            assert_eq!(rec.hash, Some(hash_bytes(b"a\nb\n")));
            let mtime = std::fs::metadata(t.path("whole.txt"))
                .unwrap()
                .modified()
                .unwrap();
            assert_eq!(rec.mtime, mtime);

            t.call("read", json!({"filePath": "part.txt", "limit": 5}))
                .await
                .unwrap();
            let rec = ft.get("ses_test", &t.path("part.txt")).expect("recorded");
            assert_eq!(rec.hash, None, "a partial read carries no hash");
            assert!(ft.get("other_session", &t.path("part.txt")).is_none());
        })
        .await;
}
