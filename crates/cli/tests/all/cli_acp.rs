//! `strata acp` driven by the official ACP client SDK from npm (`@agentclientprotocol/sdk`,
//! installed by `.ci/run` under `$HOME/.cache/strata/acp-sdk`, or where
//! `STRATA_TEST_ACP_SDK` says) through `tests/fixtures/acp_client.mjs`, with the scripted model:
//! a turn with a read, an edit and an asking bash call; a cancel while an ask waits; loading
//! the stored session in a new process; a switch to plan mode. Then the exit codes docs/acp.md
//! gives, with the binary alone: 2 for a `--dir` that is no folder, 1 for a core that cannot
//! start, 0 when stdin closes.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use strata_testkit::model_server::{ModelServer, Turn};

use crate::common::{Project, strata_bin};
use crate::e2e_run_support::environment;

/// The folder whose `node_modules` holds the SDK.
fn sdk_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("STRATA_TEST_ACP_SDK") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".cache/strata/acp-sdk"),
    };
    let found = dir
        .join("node_modules/@agentclientprotocol/sdk/package.json")
        .is_file();
    found.then_some(dir)
}

fn script() -> Vec<Turn> {
    vec![
        Turn::tool_call("call_read", "read", r#"{"filePath":"a.txt"}"#),
        Turn::tool_call(
            "call_edit",
            "edit",
            r#"{"filePath":"a.txt","oldString":"hello","newString":"goodbye"}"#,
        ),
        Turn::tool_call(
            "call_bash",
            "bash",
            r#"{"command":"echo acp-ran","description":"Print a marker"}"#,
        ),
        Turn::text("All done."),
        // The cancelled turn: its call asks, and the ask is never answered.
        Turn::tool_call(
            "call_wait",
            "bash",
            r#"{"command":"echo never","description":"Print"}"#,
        ),
        Turn::text("A plan."),
    ]
}

#[test]
fn the_npm_acp_client_drives_a_turn_a_cancel_a_load_and_plan_mode() {
    if !strata_testkit::external("node", "apt-get install nodejs") {
        return;
    }
    let sdk = sdk_dir();
    if !strata_testkit::external_found(
        "@agentclientprotocol/sdk (npm)",
        "`.ci/run` installs it: npm install --prefix $HOME/.cache/strata/acp-sdk \
         @agentclientprotocol/sdk@2.4.0",
        sdk.is_some(),
    ) {
        return;
    }
    let p = Project::new();
    p.file("a.txt", "hello\n");
    p.file(
        "strata.json",
        r#"{"model": "openai/scripted-model", "permission": {"bash": "ask"},
            "sandbox": {"auto_allow": false}}"#,
    );
    let model = ModelServer::start(script());
    let out = run_client(&p, &model, &sdk.unwrap_or_default());

    assert_eq!(out["loadSession"], true);
    assert!(
        out["modes"].as_array().unwrap().contains(&json!("plan")),
        "{out}"
    );
    let turn = &out["turn"];
    assert_eq!(turn["stopReason"], "end_turn");
    assert_eq!(turn["kinds"], json!(["read", "edit", "execute"]));
    let at = p.dir.join("a.txt").display().to_string();
    assert_eq!(
        turn["diff"],
        json!({"type": "diff", "path": at, "oldText": "hello", "newText": "goodbye"})
    );
    assert_eq!(turn["bash"], "completed");
    assert_eq!(turn["asks"], json!([["once", "always", "reject"]]));
    assert_eq!(turn["said"], "All done.");
    assert_eq!(
        std::fs::read_to_string(p.dir.join("a.txt")).unwrap(),
        "goodbye\n"
    );

    assert_eq!(out["cancel"]["stopReason"], "cancelled");
    assert_eq!(out["load"]["mode"], "build");
    assert_eq!(out["load"]["first"]["sessionUpdate"], "user_message_chunk");
    assert_eq!(
        out["load"]["first"]["content"]["text"],
        "Change the greeting"
    );
    assert_eq!(out["load"]["said"], "All done.");
    assert_eq!(out["load"]["calls"], 3);
    assert_eq!(out["plan"]["said"], "A plan.");
    assert_eq!((&out["exit"], &out["exit2"]), (&json!(0), &json!(0)));

    // The cancelled turn asked the model nothing more; the plan turn offered `plan_exit`.
    let requests = model.requests();
    assert_eq!(requests.len(), 6, "one request per scripted turn");
    assert!(requests[5]["tools"].to_string().contains("\"plan_exit\""));
    assert!(!requests[0]["tools"].to_string().contains("\"plan_exit\""));
}

fn run_client(p: &Project, model: &ModelServer, sdk: &Path) -> Value {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/acp_client.mjs");
    let mut cmd = Command::new("node");
    cmd.arg(fixture).arg(sdk).arg(strata_bin()).arg(&p.dir);
    environment(&mut cmd, p, model);
    let run = p.run(cmd, None);
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("the client prints one JSON object ({e}): {}", run.stdout))
}

#[test]
fn a_dir_that_is_no_folder_exits_2_before_anything_starts() {
    let p = Project::new();
    let missing = p.dir.join("no-such-project").display().to_string();
    let run = p.strata(&["acp", "--dir", &missing]);
    run.expect_code(2);
    assert!(run.stdout.is_empty(), "only ACP goes to stdout: {run:?}");
    assert!(
        run.stderr.contains(&format!(
            "--dir {missing} does not exist; pass the project folder"
        )),
        "{run:?}"
    );
    let file = p.file("notes.txt", "not a folder").display().to_string();
    let run = p.strata(&["acp", "--dir", &file]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains(&format!("--dir {file} is not a directory")),
        "{run:?}"
    );
}

#[test]
fn a_core_that_cannot_start_exits_1_naming_the_data_directory() {
    let p = Project::new();
    // A file where the data directory should be: the session store cannot be created.
    let blocked = p.file("data-is-a-file", "").display().to_string();
    let run = p.strata_env(&["acp"], &[("STRATA_DATA_DIR", &blocked)]);
    run.expect_code(1);
    assert!(run.stdout.is_empty(), "{run:?}");
    assert!(
        run.stderr.contains("strata: the server could not start")
            && run.stderr.contains("STRATA_DATA_DIR"),
        "{run:?}"
    );
    // With a usable data directory and stdin closed at once, the editor "left": exit 0.
    p.strata(&["acp"]).expect_code(0);
}
