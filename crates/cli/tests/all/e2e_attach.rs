//! `strata run --attach` against a `strata serve` on 127.0.0.1 with the scripted model: a call
//! that needs a permission is refused without `--yes` (and the run fails) and allowed with it,
//! and the server's password is read from the environment.

use strata_testkit::model_server::{ModelServer, Turn};

use super::common::{Project, Run, finish};
use super::e2e_run_support::{MODEL, command, json_lines, types};
use super::e2e_serve_support::serve;

// The sandbox would allow an asked bash command without a prompt; these tests need the ask.
const ASK: &str = r#"{"permission": {"bash": "ask"}, "sandbox": {"auto_allow": false}}"#;

fn echo_turns() -> ModelServer {
    ModelServer::start(vec![
        Turn::tool_call(
            "call_1",
            "bash",
            r#"{"command":"echo approved-run","description":"echo"}"#,
        ),
        Turn::text("ok"),
    ])
}

/// `strata run --attach URL --model MODEL ARGS… "echo it"`, with extra environment variables.
async fn attach(p: &Project, url: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut all = vec!["run", "--attach", url, "--model", MODEL];
    all.extend_from_slice(args);
    all.push("echo it");
    let unused = ModelServer::start(vec![]);
    let mut cmd = command(p, &unused, &all);
    cmd.envs(env.iter().copied());
    tokio::task::spawn_blocking(move || finish(cmd.spawn().unwrap()))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_permission_is_refused_without_yes_and_the_run_fails() {
    let p = Project::new();
    p.file("strata.json", ASK);
    let model = echo_turns();
    let s = serve(&p, &model, &[]);
    let run = attach(&p, &s.url, &[], &[]).await;
    run.expect_code(1);
    assert!(
        run.stderr.contains(
            "strata: bash on echo approved-run needs permission; refused (pass --yes to allow)"
        ),
        "{run:?}"
    );
    assert!(
        run.stdout.starts_with("✗ bash echo approved-run: ") && run.stdout.lines().count() == 1,
        "{run:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn with_yes_and_a_password_the_call_runs() {
    let p = Project::new();
    p.file("strata.json", ASK);
    let model = echo_turns();
    let password = [("STRATA_SERVER_PASSWORD", "attach-secret")];
    let s = serve(&p, &model, &password);
    let run = attach(&p, &s.url, &["--yes", "--format", "json"], &password).await;
    run.expect_code(0);
    assert_eq!(run.stderr, "");
    let lines = json_lines(&run);
    assert_eq!(
        types(&lines),
        [
            "step_start",
            "tool_use",
            "step_finish",
            "step_start",
            "text",
            "step_finish"
        ]
    );
    let output = lines[1]["part"]["state"]["output"].as_str().unwrap();
    assert!(output.contains("approved-run"), "{output}");
    // Without the password the server refuses, and the run says so.
    let refused = attach(&p, &s.url, &["--yes"], &[]).await;
    refused.expect_code(1);
    assert!(refused.stdout.is_empty(), "{refused:?}");
    assert!(refused.stderr.contains("401 Unauthorized"), "{refused:?}");
    assert!(
        refused.stderr.ends_with("(set STRATA_SERVER_PASSWORD)\n"),
        "{refused:?}"
    );
}
