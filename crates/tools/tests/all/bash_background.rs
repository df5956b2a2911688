//! `bash` with `run_in_background`, `bash_output` and `bash_kill` through the real wrapper:
//! the shell id and first output, reads with and without a filter, the limit of eight running
//! shells per session, kills of the whole group, no process left once the instance is
//! disposed, and the sandbox's word on a server that may not listen.

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use strata_services::process::sandbox::Support;
use strata_testkit::{TestInstance, process_ended};

const LIMIT: Duration = Duration::from_secs(20);

/// The pid written to `file` by a command (`echo $$ > file`), once it is there.
async fn pid_in(file: &Path) -> u32 {
    strata_testkit::poll_with_timeout("the pid file", LIMIT, || async {
        std::fs::read_to_string(file).ok()?.trim().parse().ok()
    })
    .await
}

#[tokio::test]
async fn a_background_command_returns_its_id_and_first_output_then_reads_only_what_is_new() {
    let t = TestInstance::builder().build().await;
    let script = "echo ready; while [ ! -e go ]; do sleep 0.02; done; echo 'GET /a'; echo noise; \
                  echo 'GET /b'; exit 5";
    let out = t
        .call(
            "bash",
            json!({"command": script, "run_in_background": true}),
        )
        .await
        .unwrap();
    assert_eq!(out.metadata["shellId"], "bg_1");
    assert_eq!(out.metadata["status"], "running");
    insta::assert_snapshot!("bash_background_started", out.output);

    let first = t
        .call("bash_output", json!({"shell_id": "bg_1"}))
        .await
        .unwrap();
    assert_eq!(
        first.output, "Background shell bg_1: running.\n(no new output)",
        "the first line was shown at start"
    );

    std::fs::write(t.dir().join("go"), "").unwrap();
    let read = strata_testkit::poll_with_timeout("the shell to end", LIMIT, || async {
        let r = t
            .call("bash_output", json!({"shell_id": "bg_1", "filter": "^GET"}))
            .await
            .unwrap();
        (r.metadata["status"] == "exited").then_some(r)
    })
    .await;
    assert_eq!(read.metadata["exit"], 5);
    // Reads while it ran may have consumed some lines; together they hold exactly the GETs.
    assert!(
        read.output
            .starts_with("Background shell bg_1: exited with status 5.\n")
    );
    assert!(!read.output.contains("noise"), "{}", read.output);
    let again = t
        .call("bash_output", json!({"shell_id": "bg_1"}))
        .await
        .unwrap();
    assert_eq!(
        again.output, "Background shell bg_1: exited with status 5.\n(no new output)",
        "the filtered-out line was consumed too"
    );
    t.dispose().await;
}

#[tokio::test]
async fn a_filter_returns_only_matching_lines() {
    let t = TestInstance::builder().build().await;
    let script = "while [ ! -e go ]; do sleep 0.02; done; printf 'GET /a\\nnoise\\nGET /b\\n'; \
                  touch done; sleep 1000";
    t.call(
        "bash",
        json!({"command": script, "run_in_background": true}),
    )
    .await
    .unwrap();
    std::fs::write(t.dir().join("go"), "").unwrap();
    let done = t.dir().join("done");
    strata_testkit::poll_with_timeout("the lines", LIMIT, || async { done.exists().then_some(()) })
        .await;
    let read = strata_testkit::poll_with_timeout("the lines to arrive", LIMIT, || async {
        let r = t
            .call(
                "bash_output",
                json!({"shell_id": "bg_1", "filter": "^GET /"}),
            )
            .await
            .unwrap();
        r.output.contains("GET /b").then_some(r)
    })
    .await;
    assert_eq!(
        read.output,
        "Background shell bg_1: running.\n<output>\nGET /a\nGET /b\n</output>"
    );
    let bad = t
        .call(
            "bash_output",
            json!({"shell_id": "bg_1", "filter": "(unclosed"}),
        )
        .await
        .unwrap_err();
    assert!(
        bad.to_string()
            .contains("`filter` is not a valid regular expression"),
        "{bad}"
    );
    let unknown = t
        .call("bash_output", json!({"shell_id": "bg_9"}))
        .await
        .unwrap_err();
    insta::assert_snapshot!("bash_background_unknown", unknown.to_string());
    t.dispose().await;
}

#[tokio::test]
async fn the_ninth_shell_is_refused_and_none_outlives_the_instance() {
    let t = TestInstance::builder().build().await;
    let mut pids = Vec::new();
    for i in 1..=8 {
        let command = format!("echo $$ > pid{i}; exec sleep 1000");
        let out = t
            .call(
                "bash",
                json!({"command": command, "run_in_background": true}),
            )
            .await
            .unwrap();
        assert_eq!(out.metadata["shellId"], format!("bg_{i}"));
        pids.push(pid_in(&t.dir().join(format!("pid{i}"))).await);
    }
    let refused = t
        .call(
            "bash",
            json!({"command": "touch ninth", "run_in_background": true}),
        )
        .await
        .unwrap_err();
    insta::assert_snapshot!("bash_background_ninth", refused.to_string());
    assert!(!t.dir().join("ninth").exists(), "nothing ran");

    let killed = t
        .call("bash_kill", json!({"shell_id": "bg_3"}))
        .await
        .unwrap();
    assert_eq!(
        killed.output,
        "Background shell bg_3 was ended, with every process it started."
    );
    assert!(process_ended(pids[2]));
    let twice = t
        .call("bash_kill", json!({"shell_id": "bg_3"}))
        .await
        .unwrap();
    assert!(
        twice.output.contains("had already ended (killed)"),
        "{}",
        twice.output
    );
    t.call(
        "bash",
        json!({"command": "true", "run_in_background": true}),
    )
    .await
    .unwrap();

    t.dispose().await;
    let left: Vec<u32> = pids.into_iter().filter(|p| !process_ended(*p)).collect();
    assert!(left.is_empty(), "still running after dispose: {left:?}");
}

#[tokio::test]
async fn with_the_network_off_a_server_cannot_listen_and_the_output_says_so() {
    let support = Support::probe();
    if !support.enforceable() {
        println!("skipped: {}", support.missing_reason());
        return;
    }
    strata_testkit::require_external!("python3", "apt-get install python3");
    let t = TestInstance::builder()
        .config(json!({"sandbox": {"network": false}}))
        .build()
        .await;
    let out = t
        .call(
            "bash",
            json!({"command": "python3 -m http.server 0 --bind 127.0.0.1", "run_in_background": true}),
        )
        .await
        .unwrap();
    let read = if out.metadata["status"] == "running" {
        strata_testkit::poll_with_timeout("the server to fail", LIMIT, || async {
            let r = t
                .call("bash_output", json!({"shell_id": "bg_1"}))
                .await
                .unwrap();
            (r.metadata["status"] == "exited").then_some(r.output)
        })
        .await
    } else {
        out.output
    };
    assert!(
        read.contains("sandbox: the network is off for commands"),
        "{read}"
    );
    t.dispose().await;
}
