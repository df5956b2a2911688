//! `bash` with `escape_sandbox`: the command runs outside the sandbox only after its own
//! `sandbox_escape` ask is approved; a rejection runs nothing, a deny rule on bash denies first,
//! `auto_allow` never covers it, a rule may pre-approve it, and with the sandbox off the
//! parameter changes nothing.

use std::path::PathBuf;

use serde_json::{Value, json};
use strata_services::process::sandbox::Support;
use strata_testkit::{ReplyMode, TestInstance};

fn enforced() -> bool {
    let support = Support::probe();
    if !support.enforceable() {
        println!("skipped: {}", support.missing_reason());
    }
    support.enforceable()
}

/// A file path in a directory outside the project and every temp directory.
fn outside() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("bash-escape-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let target = std::fs::canonicalize(dir.path()).unwrap().join("x.txt");
    (dir, target)
}

async fn instance(config: Value) -> TestInstance {
    TestInstance::builder().config(config).build().await
}

fn escaping(command: &str) -> Value {
    json!({
        "command": command,
        "escape_sandbox": true,
        "justification": "the user asked for the file there",
    })
}

#[tokio::test]
async fn an_approved_escape_writes_outside_the_project() {
    if !enforced() {
        return;
    }
    let (_keep, target) = outside();
    let command = format!("echo x > {}", target.display());
    let t = instance(json!({"permission": {"external_directory": "allow"}})).await;

    let inside = t.call("bash", json!({"command": command})).await.unwrap();
    assert!(!target.exists());
    assert!(
        inside.output.contains("`escape_sandbox: true`"),
        "{}",
        inside.output
    );
    assert!(t.asked_for("sandbox_escape").is_empty());

    let out = t.call("bash", escaping(&command)).await.unwrap();
    assert!(target.exists(), "{}", out.output);
    assert_eq!(out.metadata["escapedSandbox"], true);
    assert!(!out.output.contains("sandbox:"), "{}", out.output);
    let asks = t.asked_for("sandbox_escape");
    assert_eq!(asks.len(), 1);
    assert_eq!(asks[0].patterns, vec![command]);
    assert_eq!(asks[0].metadata["escapesSandbox"], true);
    assert_eq!(
        asks[0].metadata["justification"],
        "the user asked for the file there"
    );
    let title = asks[0].metadata["title"].as_str().unwrap();
    assert!(
        title.starts_with("Run outside the sandbox: echo x"),
        "{title}"
    );
    t.dispose().await;
}

#[tokio::test]
async fn a_rejected_escape_runs_nothing() {
    if !enforced() {
        return;
    }
    let (_keep, target) = outside();
    let t = instance(json!({"permission": {"external_directory": "allow"}})).await;
    t.reply_mode(ReplyMode::Reject(None));
    let command = format!("echo x > {} && touch ran.txt", target.display());
    let err = t.call("bash", escaping(&command)).await.unwrap_err();
    assert!(!target.exists() && !t.path("ran.txt").exists(), "{err}");
    assert_eq!(t.asked_for("sandbox_escape").len(), 1);
    t.dispose().await;
}

#[tokio::test]
async fn a_deny_rule_on_bash_denies_an_escape_without_an_ask() {
    if !enforced() {
        return;
    }
    let t = instance(json!({"permission": {"bash": {"*": "allow", "touch *": "deny"}}})).await;
    let err = t
        .call("bash", escaping("touch denied.txt"))
        .await
        .unwrap_err();
    assert!(!t.path("denied.txt").exists(), "{err}");
    assert!(t.asked().is_empty(), "{:?}", t.asked());
    t.dispose().await;
}

#[tokio::test]
async fn auto_allow_never_covers_an_escape_but_a_rule_can_pre_approve_it() {
    if !enforced() {
        return;
    }
    let t = instance(json!({"permission": {"bash": "ask"}})).await;
    t.call("bash", escaping("touch a.txt")).await.unwrap();
    assert_eq!(
        t.asked_for("bash").len(),
        1,
        "not auto-allowed when escaping"
    );
    assert_eq!(t.asked_for("sandbox_escape").len(), 1);
    t.call("bash", json!({"command": "touch b.txt"}))
        .await
        .unwrap();
    assert_eq!(
        t.asked_for("bash").len(),
        1,
        "inside, auto-allowed as before"
    );
    t.dispose().await;

    let t = instance(json!({"permission": {"sandbox_escape": {"touch *": "allow"}}})).await;
    let out = t.call("bash", escaping("touch c.txt")).await.unwrap();
    assert_eq!(out.metadata["escapedSandbox"], true);
    assert!(t.asked().is_empty(), "pre-approved: {:?}", t.asked());
    t.dispose().await;
}

#[tokio::test]
async fn an_escape_needs_a_justification() {
    if !enforced() {
        return;
    }
    let t = instance(json!({})).await;
    let err = t
        .call(
            "bash",
            json!({"command": "touch j.txt", "escape_sandbox": true, "justification": " "}),
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("`justification`"), "{err}");
    assert!(!t.path("j.txt").exists());
    assert!(t.asked().is_empty());
    t.dispose().await;
}

#[tokio::test]
async fn with_the_sandbox_off_the_parameter_changes_nothing() {
    let t = instance(json!({"sandbox": {"mode": "off"}})).await;
    let out = t
        .call(
            "bash",
            json!({"command": "touch off.txt", "escape_sandbox": true}),
        )
        .await
        .unwrap();
    assert!(t.path("off.txt").exists(), "{}", out.output);
    assert!(t.asked().is_empty(), "no extra ask: {:?}", t.asked());
    assert_eq!(out.metadata.get("escapedSandbox"), None);
    t.dispose().await;
}
