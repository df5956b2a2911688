//! `bash` limits through the real wrapper: timeouts and aborts stop the whole process group and
//! keep what was printed; large output is cut to its tail with the complete output saved
//! (spec §7.2, §7.3, §19 bash).

use std::time::Duration;

use serde_json::json;
use strata_testkit::{TestInstance, poll_with_timeout};
use strata_tools::contract::MetadataUpdate;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Redacts the saved-file path so snapshots do not depend on the machine or the time.
const SAVED_FILE: (&str, &str) = (
    r"/\S*/tool-output/tool_[0-9a-f]{12}[A-Za-z0-9]{14}",
    "[SAVED_FILE]",
);

/// Non-zombie processes whose process group is `pgid`, from `/proc`.
fn group_members(pgid: i32) -> Vec<i32> {
    strata_services::process::live_members(pgid).expect("/proc is readable")
}

/// The `pgid=N` line the test commands print first (`$$` of the shell, the group leader).
fn printed_pgid(output: &str) -> i32 {
    output
        .lines()
        .find_map(|l| l.strip_prefix("pgid="))
        .unwrap_or_else(|| panic!("no pgid line in {output}"))
        .parse()
        .unwrap()
}

async fn assert_group_gone(pgid: i32) {
    poll_with_timeout(
        &format!("process group {pgid} to be gone"),
        Duration::from_secs(10),
        || async move { group_members(pgid).is_empty().then_some(()) },
    )
    .await;
}

#[tokio::test]
async fn timeout_keeps_the_output_and_says_how_to_retry() {
    TestInstance::builder()
        .run(|t| async move {
            let r = t
                .call(
                    "bash",
                    json!({"command": "echo started; sleep 60", "timeout": 500}),
                )
                .await
                .unwrap();
            assert!(r.output.starts_with("started\n"), "{}", r.output);
            assert!(r.output.contains("500 ms"), "{}", r.output);
            assert!(r.output.contains("larger `timeout`"), "{}", r.output);
            assert!(r.metadata["exit"].is_null());
            assert_eq!(r.metadata["truncated"], false);
            assert_eq!(r.metadata["output"], "started\n");
            insta::assert_snapshot!("timeout_output", r.output);
        })
        .await;
}

#[tokio::test]
async fn timeout_kills_children_and_grandchildren() {
    TestInstance::builder()
        .run(|t| async move {
            let command = "echo pgid=$$; \
                sleep 61 & \
                sh -c 'sleep 62 & sh -c \"sleep 63\" & wait' & \
                echo spawned; sleep 60";
            let r = t
                .call("bash", json!({"command": command, "timeout": 800}))
                .await
                .unwrap();
            assert!(r.output.contains("spawned"), "{}", r.output);
            assert!(r.output.contains("800 ms"), "{}", r.output);
            assert_group_gone(printed_pgid(&r.output)).await;
        })
        .await;
}

#[tokio::test]
async fn the_default_timeout_flag_is_used_and_described() {
    TestInstance::builder()
        .flags(|f| f.bash_default_timeout_ms = Some(500))
        .run(|t| async move {
            let r = t
                .call("bash", json!({"command": "echo pgid=$$; sleep 30"}))
                .await
                .unwrap();
            assert!(r.output.contains("500 ms"), "{}", r.output);
            assert!(r.metadata["exit"].is_null());
            assert_group_gone(printed_pgid(&r.output)).await;
            let registry_description = {
                use strata_tools::Tool;
                strata_tools::bash::Bash::init((
                    t.get(),
                    t.get(),
                    t.get(),
                    t.get(),
                    t.get(),
                    t.get(),
                    t.get(),
                    t.get(),
                ))
                .description()
            };
            assert!(
                registry_description.contains("500 ms"),
                "{registry_description}"
            );
            assert!(!registry_description.contains("120000"));
        })
        .await;
}

#[tokio::test]
async fn cancelling_mid_run_keeps_output_and_reports_the_abort() {
    TestInstance::builder()
        .run(|t| async move {
            let (tx, mut rx) = mpsc::unbounded_channel::<MetadataUpdate>();
            let abort = CancellationToken::new();
            let cx = t.cx().metadata_sink(tx).abort(abort.clone()).build();
            let call = t.call_with(
                "bash",
                json!({"command": "echo pgid=$$ && echo before && sleep 30"}),
                cx,
            );
            let cancel = async {
                loop {
                    let u = rx.recv().await.expect("metadata until `before` shows");
                    if u.metadata["output"].as_str().unwrap().contains("before") {
                        abort.cancel();
                        return;
                    }
                }
            };
            let (r, ()) = tokio::time::timeout(Duration::from_secs(20), async {
                tokio::join!(call, cancel)
            })
            .await
            .expect("the call ends soon after the abort");
            let r = r.unwrap();
            assert!(r.output.contains("before\n"), "{}", r.output);
            assert!(r.output.contains("user aborted"), "{}", r.output);
            assert!(r.metadata["exit"].is_null());
            assert_group_gone(printed_pgid(&r.output)).await;
        })
        .await;
}

#[tokio::test]
async fn a_huge_output_is_fully_recoverable_from_the_saved_file() {
    TestInstance::builder()
        .run(|t| async move {
            let r = t
                .call("bash", json!({"command": "seq 1 100000"}))
                .await
                .unwrap();
            assert_eq!(r.metadata["truncated"], true);
            assert_eq!(r.metadata["exit"], 0);
            let path = r.metadata["outputPath"].as_str().unwrap().to_string();
            let lines: Vec<&str> = r.output.split('\n').collect();
            assert!(lines[0].contains("truncated"), "{}", lines[0]);
            assert_eq!(lines[1], "");
            assert!(lines[2].contains(&path), "{}", lines[2]);
            assert_eq!(lines[3], "");
            assert!(r.output.ends_with("99999\n100000\n"));
            assert!(!r.output.contains("\n1\n2\n"), "only the tail is shown");
            let shown = r.output.len();
            assert!(shown < 51_200 + 1_000, "{shown} bytes shown");
            let saved = std::fs::read_to_string(&path).unwrap();
            let mut count = 0;
            for (i, line) in saved.lines().enumerate() {
                assert_eq!(
                    line,
                    (i + 1).to_string(),
                    "line {} of the saved file",
                    i + 1
                );
                count += 1;
            }
            assert_eq!(count, 100_000);
            assert!(saved.ends_with("100000\n"));
        })
        .await;
}

#[tokio::test]
async fn output_over_the_byte_limit_is_cut_by_bytes() {
    TestInstance::builder()
        .run(|t| async move {
            // 100 lines of 1000 characters: under the line limit, over the byte limit.
            let r = t
                .call(
                    "bash",
                    json!({"command": "for i in $(seq 1 100); do printf '%01000d\\n' $i; done"}),
                )
                .await
                .unwrap();
            assert_eq!(r.metadata["truncated"], true);
            let path = r.metadata["outputPath"].as_str().unwrap().to_string();
            assert!(r.output.contains(&path));
            let saved = std::fs::read_to_string(&path).unwrap();
            assert_eq!(saved.lines().count(), 100);
            assert_eq!(saved.len(), 100 * 1001);
            let tail = r.output.split("\n\n").nth(2).unwrap();
            assert!(tail.len() <= 51_200, "{}", tail.len());
            assert!(tail.ends_with(&format!("{:01000}\n", 100)));
        })
        .await;
}

#[tokio::test]
async fn output_over_the_line_limit_is_cut_and_snapshotted() {
    TestInstance::builder()
        .run(|t| async move {
            let r = t
                .call("bash", json!({"command": "seq 1 2005"}))
                .await
                .unwrap();
            assert_eq!(r.metadata["truncated"], true);
            let path = r.metadata["outputPath"].as_str().unwrap().to_string();
            let saved = std::fs::read_to_string(&path).unwrap();
            assert_eq!(saved.lines().count(), 2005);
            assert!(
                r.output.contains("\n\n7\n8\n"),
                "the last 2000 lines are kept"
            );
            insta::with_settings!({filters => vec![SAVED_FILE]}, {
                insta::assert_snapshot!("truncated_output", r.output);
            });
        })
        .await;
}

#[tokio::test]
async fn small_output_is_not_truncated_and_saves_nothing() {
    TestInstance::builder()
        .run(|t| async move {
            let r = t
                .call("bash", json!({"command": "seq 1 1999"}))
                .await
                .unwrap();
            assert_eq!(r.metadata["truncated"], false);
            assert!(r.metadata.get("outputPath").is_none());
            assert!(r.output.starts_with("1\n2\n"));
            let dir = t
                .get::<strata_services::truncate::Truncate>()
                .dir()
                .to_path_buf();
            let saved = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
            assert_eq!(saved, 0, "nothing saved in {}", dir.display());
        })
        .await;
}

#[tokio::test]
async fn the_tool_output_config_limits_apply_to_bash() {
    TestInstance::builder()
        .config(json!({"tool_output": {"max_lines": 5}}))
        .run(|t| async move {
            let r = t
                .call("bash", json!({"command": "seq 1 20"}))
                .await
                .unwrap();
            assert_eq!(r.metadata["truncated"], true);
            let path = r.metadata["outputPath"].as_str().unwrap().to_string();
            let lines: Vec<&str> = r.output.split('\n').collect();
            assert!(lines[0].contains("truncated"), "{}", lines[0]);
            assert!(lines[2].contains(&path), "{}", lines[2]);
            // Five pieces: the last four numbers and the empty piece after the final newline.
            assert_eq!(lines[4..], ["17", "18", "19", "20", ""], "{}", r.output);
            let saved = std::fs::read_to_string(&path).unwrap();
            let all: String = (1..=20).map(|i| format!("{i}\n")).collect();
            assert_eq!(saved, all, "the saved file holds the whole output");
            insta::with_settings!({filters => vec![SAVED_FILE]}, {
                insta::assert_snapshot!("config_limited_output", r.output);
            });
            let description = {
                use strata_tools::Tool;
                strata_tools::bash::Bash::init((
                    t.get(),
                    t.get(),
                    t.get(),
                    t.get(),
                    t.get(),
                    t.get(),
                    t.get(),
                    t.get(),
                ))
                .description()
            };
            assert!(description.contains("longer than 5 lines"), "{description}");
        })
        .await;
}

#[tokio::test]
async fn the_tool_output_byte_limit_applies_to_bash() {
    TestInstance::builder()
        .config(json!({"tool_output": {"max_bytes": 200}}))
        .run(|t| async move {
            let r = t
                .call("bash", json!({"command": "seq 1 1000"}))
                .await
                .unwrap();
            assert_eq!(r.metadata["truncated"], true);
            let path = r.metadata["outputPath"].as_str().unwrap().to_string();
            // The kept tail follows the pointer lines: the last lines that fit in 200 bytes.
            let (pointer, tail) = r.output.rsplit_once("\n\n").unwrap();
            assert!(pointer.contains(&path), "{pointer}");
            assert!(tail.len() <= 200, "{} bytes kept: {tail:?}", tail.len());
            assert!(tail.trim_end().ends_with("999\n1000"), "{tail:?}");
            assert!(!tail.contains("\n900\n"), "{tail:?}");
            let saved = std::fs::read_to_string(&path).unwrap();
            let all: String = (1..=1000).map(|i| format!("{i}\n")).collect();
            assert_eq!(saved, all, "the saved file holds the whole output");
        })
        .await;
}
