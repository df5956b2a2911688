//! `bash` through the real wrapper in a test instance: running, exit status, workdir, stdin,
//! streaming metadata, titles, the shell choice (spec §7.1, §7.3, §19 bash).

use std::time::{Duration, Instant};

use serde_json::json;
use strata_services::config::Config;
use strata_services::flags::RuntimeFlags;
use strata_services::fs::FsUtil;
use strata_services::instance::InstanceInfo;
use strata_services::process::ChildProcessSpawner;
use strata_services::process::sandbox::Sandbox;
use strata_services::truncate::Truncate;
use strata_testkit::TestInstance;
use strata_tools::bash::Bash;
use strata_tools::contract::MetadataUpdate;
use strata_tools::{Tool, ToolError};
use tokio::sync::mpsc;

/// The tool initialised directly from the instance's services, to look at its description.
fn bash_of(t: &TestInstance) -> Bash {
    Bash::init((
        t.get::<InstanceInfo>(),
        t.get::<FsUtil>(),
        t.get::<ChildProcessSpawner>(),
        t.get::<Truncate>(),
        t.get::<Config>(),
        t.get::<RuntimeFlags>(),
        t.get::<Sandbox>(),
        t.get::<strata_services::background::BackgroundShells>(),
    ))
}

#[tokio::test]
async fn echo_and_stderr_are_both_captured() {
    TestInstance::builder()
        .run(|t| async move {
            let r = t
                .call("bash", json!({"command": "echo test; echo oops >&2"}))
                .await
                .unwrap();
            assert!(r.output.contains("test\n"), "{}", r.output);
            assert!(r.output.contains("oops\n"), "{}", r.output);
            assert!(!r.output.contains("<shell_metadata>"), "{}", r.output);
            assert_eq!(r.metadata["exit"], 0);
            assert_eq!(r.metadata["truncated"], false);
            assert!(r.metadata.get("outputPath").is_none());
            assert!(r.metadata["output"].as_str().unwrap().contains("test"));
            assert_eq!(r.title, "echo test; echo oops >&2");
        })
        .await;
}

#[tokio::test]
async fn non_zero_exit_is_reported_not_an_error() {
    TestInstance::builder()
        .run(|t| async move {
            let r = t.call("bash", json!({"command": "exit 42"})).await.unwrap();
            assert_eq!(r.metadata["exit"], 42);
            assert!(
                r.output.ends_with(
                    "\n\n<shell_metadata>\nThe command exited with status 42.\n</shell_metadata>"
                ),
                "{}",
                r.output
            );
            let r = t
                .call("bash", json!({"command": "ls /nonexistent-dir-for-strata"}))
                .await
                .unwrap();
            assert_eq!(r.metadata["exit"], 2);
            assert!(
                r.output.contains("nonexistent-dir-for-strata"),
                "{}",
                r.output
            );
        })
        .await;
}

#[tokio::test]
async fn a_command_killed_by_a_signal_has_no_exit_status() {
    TestInstance::builder()
        .run(|t| async move {
            let r = t
                .call("bash", json!({"command": "echo dying; kill -KILL $$"}))
                .await
                .unwrap();
            assert!(r.metadata["exit"].is_null());
            assert!(r.output.starts_with("dying\n"), "{}", r.output);
            assert!(r.output.contains("ended by a signal"), "{}", r.output);
        })
        .await;
}

#[tokio::test]
async fn empty_output_gets_a_placeholder() {
    TestInstance::builder()
        .run(|t| async move {
            let r = t.call("bash", json!({"command": "true"})).await.unwrap();
            assert_eq!(r.output, "(The command printed nothing.)");
            assert_eq!(r.metadata["output"], "");
        })
        .await;
}

#[tokio::test]
async fn runs_in_the_project_or_in_workdir() {
    TestInstance::builder()
        .file("sub/dir/marker.txt", "x")
        .run(|t| async move {
            let r = t.call("bash", json!({"command": "pwd"})).await.unwrap();
            assert_eq!(r.output.trim(), t.dir().display().to_string());
            let r = t
                .call(
                    "bash",
                    json!({"command": "pwd && ls", "workdir": "sub/dir"}),
                )
                .await
                .unwrap();
            let sub = t.path("sub/dir");
            assert!(
                r.output.starts_with(&format!("{}\n", sub.display())),
                "{}",
                r.output
            );
            assert!(r.output.contains("marker.txt"));
            let abs = t
                .call(
                    "bash",
                    json!({"command": "pwd", "workdir": sub.display().to_string()}),
                )
                .await
                .unwrap();
            assert_eq!(abs.output.trim(), sub.display().to_string());
        })
        .await;
}

#[tokio::test]
async fn a_missing_workdir_fails_naming_it_and_runs_nothing() {
    TestInstance::builder()
        .run(|t| async move {
            let err = t
                .call(
                    "bash",
                    json!({"command": "touch ran.txt", "workdir": "no/such/dir"}),
                )
                .await
                .unwrap_err();
            assert!(matches!(err, ToolError::Model(_)), "{err:?}");
            let msg = err.to_string();
            assert!(
                msg.contains(&t.path("no/such/dir").display().to_string()),
                "{msg}"
            );
            assert!(msg.contains("does not exist"), "{msg}");
            assert!(!t.path("ran.txt").exists());
            assert!(!t.path("no/such/dir/ran.txt").exists());
        })
        .await;
}

#[tokio::test]
async fn a_command_can_write_in_the_project() {
    strata_testkit::require_external!("git", "apt-get install git");
    TestInstance::builder()
        .git(true)
        .run(|t| async move {
            let r = t
                .call(
                    "bash",
                    json!({"command": "echo hi > made.txt && cat made.txt"}),
                )
                .await
                .unwrap();
            assert_eq!(r.output, "hi\n");
            assert_eq!(std::fs::read_to_string(t.path("made.txt")).unwrap(), "hi\n");
        })
        .await;
}

#[tokio::test]
async fn stdin_is_closed_so_interactive_commands_do_not_hang() {
    TestInstance::builder()
        .run(|t| async move {
            let started = Instant::now();
            let r = t
                .call(
                    "bash",
                    json!({"command": "cat; read answer; echo \"got:[$answer]\"", "timeout": 20000}),
                )
                .await
                .unwrap();
            assert!(started.elapsed() < Duration::from_secs(10));
            assert_eq!(r.metadata["exit"], 0, "{}", r.output);
            assert_eq!(r.output, "got:[]\n");
        })
        .await;
}

#[tokio::test]
async fn output_streams_into_running_metadata() {
    TestInstance::builder()
        .run(|t| async move {
            let (tx, mut rx) = mpsc::unbounded_channel::<MetadataUpdate>();
            let cx = t.cx().metadata_sink(tx).build();
            let r = t
                .call_with(
                    "bash",
                    json!({
                        "command": "for i in 1 2 3; do echo $i; sleep 0.2; done",
                        "description": "Count to three"
                    }),
                    cx,
                )
                .await
                .unwrap();
            let mut updates = Vec::new();
            while let Ok(u) = rx.try_recv() {
                updates.push(u);
            }
            assert!(updates.len() > 2, "{updates:?}");
            assert_eq!(
                updates[0].metadata["output"], "",
                "an empty update before spawning"
            );
            assert!(updates.iter().all(|u| u.call_id == "call_test"));
            assert!(
                updates
                    .iter()
                    .all(|u| u.metadata["description"] == "Count to three")
            );
            let outputs: Vec<&str> = updates
                .iter()
                .map(|u| u.metadata["output"].as_str().unwrap())
                .collect();
            assert!(outputs.contains(&"1\n"), "{outputs:?}");
            assert_eq!(*outputs.last().unwrap(), "1\n2\n3\n");
            assert_eq!(r.title, "Count to three");
            assert_eq!(r.metadata["description"], "Count to three");
        })
        .await;
}

#[tokio::test]
async fn output_printed_after_exit_by_a_background_process_is_kept() {
    TestInstance::builder()
        .run(|t| async move {
            let r = t
                .call(
                    "bash",
                    json!({"command": "(sleep 0.3; echo late) & echo early"}),
                )
                .await
                .unwrap();
            assert_eq!(r.output, "early\nlate\n");
        })
        .await;
}

#[tokio::test]
async fn a_background_process_holding_the_pipe_is_left_after_a_grace() {
    TestInstance::builder()
        .run(|t| async move {
            let started = Instant::now();
            let r = t
                .call("bash", json!({"command": "sleep 30 & echo bg=$!"}))
                .await
                .unwrap();
            let elapsed = started.elapsed();
            let pid = r.output.trim().strip_prefix("bg=").unwrap().to_string();
            let _ = std::process::Command::new("kill").arg(&pid).status();
            assert!(elapsed >= Duration::from_secs(2), "{elapsed:?}");
            assert!(elapsed < Duration::from_secs(15), "{elapsed:?}");
            assert_eq!(r.metadata["exit"], 0);
        })
        .await;
}

#[tokio::test]
async fn a_non_positive_timeout_is_refused() {
    TestInstance::builder()
        .run(|t| async move {
            let err = t
                .call("bash", json!({"command": "touch ran.txt", "timeout": 0}))
                .await
                .unwrap_err();
            assert!(err.to_string().contains("`timeout`"), "{err}");
            assert!(!t.path("ran.txt").exists());
        })
        .await;
}

#[tokio::test]
async fn the_description_covers_the_essentials() {
    TestInstance::builder()
        .run(|t| async move {
            let bash = bash_of(&t);
            let d = bash.description();
            let shell = bash.shell().name.clone();
            assert!(d.contains(&shell), "{d}");
            assert!(d.contains(std::env::consts::OS));
            assert!(d.contains(&t.dir().display().to_string()));
            let scratch = t.get::<RuntimeFlags>().temp_dir.join("strata");
            assert!(d.contains(&scratch.display().to_string()));
            for needle in [
                "120000 ms",
                "milliseconds",
                "2000 lines",
                "51200 bytes",
                "`workdir`",
            ] {
                assert!(d.contains(needle), "missing {needle:?} in:\n{d}");
            }
            for needle in [
                "&&",
                "grep",
                "offset/limit",
                "force-push",
                "quotes",
                "interactive",
            ] {
                assert!(d.contains(needle), "missing {needle:?} in:\n{d}");
            }
            assert!(!d.contains('{'), "a placeholder was left: {d}");
        })
        .await;
}

#[tokio::test]
async fn fish_in_config_falls_back_to_a_posix_shell_and_still_runs() {
    TestInstance::builder()
        .config(json!({"shell": "fish"}))
        .run(|t| async move {
            let bash = bash_of(&t);
            let name = bash.shell().name.clone();
            assert!(name == "bash" || name == "sh" || name == "zsh", "{name}");
            assert!(bash.description().contains(&format!("in a {name} shell")));
            let r = t
                .call("bash", json!({"command": "echo test"}))
                .await
                .unwrap();
            assert_eq!(r.output, "test\n");
        })
        .await;
}

#[tokio::test]
async fn a_configured_shell_is_used() {
    TestInstance::builder()
        .config(json!({"shell": "/bin/sh"}))
        .run(|t| async move {
            let bash = bash_of(&t);
            assert_eq!(bash.shell().path, std::path::PathBuf::from("/bin/sh"));
            let r = t.call("bash", json!({"command": "echo $0"})).await.unwrap();
            assert_eq!(r.output, "/bin/sh\n");
        })
        .await;
}
