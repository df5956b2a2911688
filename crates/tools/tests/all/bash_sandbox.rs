//! The `bash` tool with the sandbox: the prompts it saves (an `ask` rule for bash becomes an
//! allow while the sandbox is enforced; outside-directory asks stay, since the sandbox holds
//! writes, not reads), and the hint a refused write adds to the output.

use serde_json::{Value, json};
use strata_services::process::sandbox::Support;
use strata_testkit::TestInstance;

/// The commands the scripted scenarios of the test suite run through `bash` (the quick ones).
const SCENARIOS: &[&str] = &[
    "true",
    "touch ran.txt",
    "echo hi",
    "echo approved-run",
    "pwd",
    "ls",
    "ls -la",
    "echo foo && echo bar",
    "cat /etc/hostname",
    "touch ran.txt; cat /etc/hostname",
    "echo test > output.txt",
    "pwd > where.txt",
    "pwd && ls",
    "ls /nonexistent-dir-for-strata",
    "git log --oneline -5 | grep x; ls -la",
    "seq 1 20",
    "echo test; echo oops >&2",
    "echo partial; exit 3",
    "echo hi > made.txt && cat made.txt",
    "rm -f inside.txt",
];

fn enforced() -> bool {
    let support = Support::probe();
    if !support.enforceable() {
        println!("skipped: {}", support.missing_reason());
    }
    support.enforceable()
}

/// The prompts the scenarios get under a `bash: ask` rule, with `sandbox` as the section.
async fn prompts(sandbox: Value) -> (usize, usize) {
    let t = TestInstance::builder()
        .config(json!({"permission": {"bash": "ask"}, "sandbox": sandbox}))
        .build()
        .await;
    for command in SCENARIOS {
        t.call("bash", json!({"command": command})).await.unwrap();
    }
    let counts = (t.asked_for("bash").len(), t.asked().len());
    t.dispose().await;
    counts
}

#[tokio::test]
async fn the_sandbox_turns_bash_asks_into_allows_and_keeps_outside_asks() {
    if !enforced() {
        return;
    }
    let (bash_off, all_off) = prompts(json!({"mode": "off"})).await;
    let (bash_on, all_on) = prompts(json!({})).await;
    let (bash_no_auto, _) = prompts(json!({"auto_allow": false})).await;
    println!(
        "prompts over {} scripted bash commands: sandbox off {all_off}, on {all_on} \
         (bash asks {bash_off} -> {bash_on})",
        SCENARIOS.len()
    );
    assert_eq!(
        bash_off,
        SCENARIOS.len(),
        "every command asks without the sandbox"
    );
    assert_eq!(bash_on, 0, "no bash ask with the sandbox enforced");
    assert_eq!(
        bash_no_auto,
        SCENARIOS.len(),
        "auto_allow: false keeps them"
    );
    assert_eq!(
        all_on,
        all_off - bash_off,
        "outside-directory asks are kept"
    );
    assert!(
        all_on > 0,
        "the scenarios read /etc/hostname outside the project"
    );
}

#[tokio::test]
async fn a_refused_write_gets_one_hint_line_naming_the_setting() {
    if !enforced() {
        return;
    }
    let outside = tempfile::Builder::new()
        .prefix("bash-outside-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let target = std::fs::canonicalize(outside.path()).unwrap().join("x.txt");
    let t = TestInstance::builder()
        .config(json!({"permission": {"external_directory": "allow"}}))
        .build()
        .await;
    let out = t
        .call(
            "bash",
            json!({"command": format!("echo x > {}", target.display())}),
        )
        .await
        .unwrap();
    assert!(!target.exists());
    let hints: Vec<&str> = out
        .output
        .lines()
        .filter(|l| l.starts_with("sandbox:"))
        .collect();
    assert_eq!(hints.len(), 1, "{}", out.output);
    assert!(
        hints[0].contains(&target.display().to_string()),
        "{}",
        hints[0]
    );
    assert!(hints[0].contains("`sandbox.writable`"), "{}", hints[0]);
    // A command that fails for another reason gets no hint.
    let other = t
        .call("bash", json!({"command": "ls /nonexistent-dir-for-strata"}))
        .await
        .unwrap();
    assert!(!other.output.contains("sandbox:"), "{}", other.output);
    t.dispose().await;
}

#[tokio::test]
async fn the_session_temp_dir_is_removed_when_the_instance_ends() {
    if !enforced() {
        return;
    }
    let t = TestInstance::builder().build().await;
    let out = t
        .call(
            "bash",
            json!({"command": "touch \"$TMPDIR/mark\" && echo \"$TMPDIR\""}),
        )
        .await
        .unwrap();
    let tmp = std::path::PathBuf::from(out.output.lines().next().unwrap().trim());
    assert!(tmp.join("mark").exists(), "{}", out.output);
    assert!(tmp.ends_with("ses_test"), "per session: {}", tmp.display());
    t.dispose().await;
    assert!(!tmp.exists(), "{} is left behind", tmp.display());
}
