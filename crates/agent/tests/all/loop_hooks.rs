//! Claude Code's hooks through the whole loop, with real shell scripts: a project's
//! `.claude/settings.json` written after the examples in Claude Code's documentation (a
//! Bash validator, a formatter after edits, a prompt context adder); each exit path (0 with
//! context, 2 block, another code warns, JSON decisions); where a hook's decision sits among
//! the permission rules; the Stop loop guard; and hung and missing hooks that stop nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail by panicking

use std::time::Duration;

use serde_json::{Value, json};
use strata_agent::session::{RunOutcome, hooks};
use strata_protocol::event::HookRecord;
use strata_services::hooks::Hooks;
use strata_testkit::TestInstance;
use strata_testkit::model_server::{ModelServer, Turn};

use crate::loop_support::*;

/// The user's `~/.claude/settings.json` with these hooks (trusted as the user's own).
pub(crate) fn user_settings(hooks: Value) -> (String, String) {
    (
        "home/.claude/settings.json".into(),
        json!({ "hooks": hooks }).to_string(),
    )
}

pub(crate) async fn instance(files: Vec<(String, String)>, config: Option<Value>) -> TestInstance {
    let mut b = TestInstance::builder().graph(strata_agent::production());
    for (rel, content) in files {
        b = b.outside_file(rel, content);
    }
    if let Some(c) = config {
        b = b.config(c);
    }
    b.build().await
}

pub(crate) fn runs(t: &TestInstance, session: &str) -> Vec<HookRecord> {
    hooks::runs(&store(t), session).unwrap()
}

/// Everything the model was sent, as one string to search.
pub(crate) fn sent(server: &ModelServer) -> String {
    server
        .requests()
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The project's `.claude/settings.json` and hook scripts, modelled on the examples of
/// Claude Code's hooks documentation (in our own words): a Bash validator, a formatter after
/// edits and writes, and a prompt context adder.
fn claude_project() -> Vec<(&'static str, String)> {
    let validator = "input=$(cat)\ncase \"$input\" in *'rm -rf'*) echo 'rm -rf is not allowed; delete files one by one' >&2; exit 2;; esac\nexit 0\n";
    let formatter = "cat > \"$CLAUDE_PROJECT_DIR/post-input.json\"\necho '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"the file was formatted\"}}'\n";
    let settings = json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR/.claude/hooks/validate-bash.sh\""}
        ]}],
        "PostToolUse": [{"matcher": "Edit|MultiEdit|Write", "hooks": [
            {"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR/.claude/hooks/format.sh\"", "timeout": 30}
        ]}],
        "UserPromptSubmit": [{"hooks": [
            {"type": "command", "command": "echo 'This project indents with tabs.'"}
        ]}],
    }});
    vec![
        (".claude/settings.json", settings.to_string()),
        (".claude/hooks/validate-bash.sh", validator.to_string()),
        (".claude/hooks/format.sh", formatter.to_string()),
        ("build/keep.txt", "keep".to_string()),
    ]
}

#[tokio::test]
async fn a_claude_code_settings_file_validates_bash_formats_writes_and_adds_prompt_context() {
    let mut b = TestInstance::builder().graph(strata_agent::production());
    for (rel, content) in claude_project() {
        b = b.file(rel, content);
    }
    let t = b.build().await;
    let service = t.get::<Hooks>();
    assert!(
        service.untrusted().is_some(),
        "the project's hooks wait for trust"
    );
    assert!(service.trust().unwrap());

    let write = json!({"filePath": t.path("a.txt"), "content": "x"}).to_string();
    let server = ModelServer::start(vec![
        Turn::tool_call(
            "c1",
            "bash",
            r#"{"command": "rm -rf build", "description": "clean"}"#,
        ),
        Turn::tool_call("c2", "write", &write),
        Turn::text("done"),
    ]);
    let runner = graph_runner(&t, &server, options());
    let ran = run(&t, &runner, "clean up and write a.txt").await;
    assert_eq!(ran.report.outcome, RunOutcome::Completed);
    assert!(
        t.path("build/keep.txt").exists(),
        "the blocked rm -rf never ran"
    );
    let all = sent(&server);
    assert!(
        all.contains("This project indents with tabs."),
        "prompt context: {all}"
    );
    assert!(
        all.contains("rm -rf is not allowed; delete files one by one"),
        "{all}"
    );
    assert!(
        all.contains("Context from the PostToolUse hook: the file was formatted"),
        "{all}"
    );

    let input = std::fs::read_to_string(t.path("post-input.json")).unwrap();
    let input: Value = serde_json::from_str(&input).unwrap();
    assert_eq!(input["hook_event_name"], "PostToolUse");
    assert_eq!(input["tool_name"], "Write");
    let file = t.path("a.txt").display().to_string();
    assert_eq!(input["tool_input"]["file_path"], file.as_str());
    assert!(input["tool_response"]["output"].is_string(), "{input}");

    let recorded = runs(&t, &ran.session_id);
    let events: Vec<(&str, Option<i32>)> = recorded
        .iter()
        .map(|r| (r.event.as_str(), r.exit_code))
        .collect();
    assert_eq!(
        events,
        [
            ("UserPromptSubmit", Some(0)),
            ("PreToolUse", Some(2)),
            ("PostToolUse", Some(0))
        ]
    );
    assert_eq!(recorded[1].call_id.as_deref(), Some("c1"));
    assert_eq!(recorded[1].tool.as_deref(), Some("bash"));
    assert!(recorded[1].outcome.blocked.is_some());
    assert!(recorded[1].file.ends_with(".claude/settings.json"));
    assert_log_consistent(&store(&t), &ran);
}

#[tokio::test]
async fn untrusted_project_hooks_do_not_run() {
    let mut b = TestInstance::builder().graph(strata_agent::production());
    for (rel, content) in claude_project() {
        b = b.file(rel, content);
    }
    let t = b.build().await;
    let warnings = t.get::<Hooks>().warnings().join("\n");
    assert!(warnings.contains("strata hooks trust"), "{warnings}");
    let server = ModelServer::start(vec![
        Turn::tool_call(
            "c1",
            "bash",
            r#"{"command": "rm -rf build", "description": "clean"}"#,
        ),
        Turn::text("done"),
    ]);
    let runner = graph_runner(&t, &server, options());
    let ran = run(&t, &runner, "clean up").await;
    assert_eq!(ran.report.outcome, RunOutcome::Completed);
    assert!(!t.path("build").exists(), "no hook held the call back");
    assert!(runs(&t, &ran.session_id).is_empty());
    assert!(!sent(&server).contains("indents with tabs"));
}

/// A PreToolUse script that allows `echo` commands and has no say on the others.
const ALLOW_ECHO: &str = "input=$(cat)\ncase \"$input\" in *'\"command\":\"echo'*) echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\"}}';; esac\nexit 0";

#[tokio::test]
async fn hook_decisions_sit_after_deny_rules_and_before_asks() {
    let t = instance(
        vec![
            ("home/hooks/allow-echo.sh".into(), ALLOW_ECHO.into()),
            user_settings(json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"command": "sh \"$CLAUDE_PROJECT_DIR/../home/hooks/allow-echo.sh\""}
            ]}]})),
        ],
        Some(json!({
            "permission": {"bash": {"*": "ask", "echo *": "ask", "rm *": "deny"}},
            "sandbox": {"auto_allow": false},
        })),
    )
    .await;
    std::fs::write(t.path("victim.txt"), "x").unwrap();
    let server = ModelServer::start(vec![
        Turn::tool_call(
            "c1",
            "bash",
            r#"{"command":"echo hi","description":"greet"}"#,
        ),
        Turn::tool_call(
            "c2",
            "bash",
            r#"{"command":"touch made.txt","description":"make"}"#,
        ),
        Turn::tool_call(
            "c3",
            "bash",
            r#"{"command":"rm victim.txt","description":"remove"}"#,
        ),
        Turn::text("done"),
    ]);
    let runner = graph_runner(&t, &server, options());
    let ran = run(&t, &runner, "go").await;
    // A hook's allow beats an ask: only `touch`, which the hook left alone, was asked.
    let asked: Vec<String> = t
        .asked_for("bash")
        .iter()
        .flat_map(|r| r.patterns.clone())
        .collect();
    assert_eq!(asked, ["touch made.txt"]);
    let parts = tool_parts(&store(&t), &ran.session_id);
    assert_eq!(parts[0]["state"]["status"], "completed", "{}", parts[0]);
    assert_eq!(parts[1]["state"]["status"], "completed", "{}", parts[1]);
    // `rm` falls to its deny rule (the next test gives it a hook's allow as well).
    assert_eq!(parts[2]["state"]["status"], "error", "{}", parts[2]);
    assert!(t.path("victim.txt").exists());
    assert!(matches!(ran.report.outcome, RunOutcome::Stopped { .. }));
}

#[tokio::test]
async fn a_deny_rule_beats_a_hook_allow() {
    let allow = r#"echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'"#;
    let t = instance(
        vec![user_settings(json!({"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"command": allow}]}
        ]}))],
        Some(json!({"permission": {"bash": {"*": "ask", "rm *": "deny"}}})),
    )
    .await;
    std::fs::write(t.path("victim.txt"), "x").unwrap();
    let server = ModelServer::start(vec![
        Turn::tool_call(
            "c1",
            "bash",
            r#"{"command":"rm victim.txt","description":"remove"}"#,
        ),
        Turn::text("done"),
    ]);
    let runner = graph_runner(&t, &server, options());
    let ran = run(&t, &runner, "go").await;
    assert!(t.path("victim.txt").exists(), "the deny rule held");
    assert!(t.asked().is_empty());
    let parts = tool_parts(&store(&t), &ran.session_id);
    assert_eq!(parts[0]["state"]["status"], "error", "{}", parts[0]);
    let recorded = runs(&t, &ran.session_id);
    assert_eq!(recorded[0].outcome.decision.as_deref(), Some("allow"));
}

#[tokio::test]
async fn a_hook_deny_beats_auto_allow_and_allow_rules_and_a_hook_ask_asks() {
    let deny = r#"echo '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "the branch is frozen"}}'"#;
    let bash = "input=$(cat)\ncase \"$input\" in *'\"command\":\"echo'*) echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"check this one\"}}';; *) echo 'no touching' >&2; exit 2;; esac";
    let t = instance(
        vec![
            ("home/hooks/bash.sh".into(), bash.into()),
            user_settings(json!({"PreToolUse": [
                {"matcher": "Write", "hooks": [{"command": deny}]},
                {"matcher": "Bash", "hooks": [{"command": "sh \"$CLAUDE_PROJECT_DIR/../home/hooks/bash.sh\""}]},
            ]})),
        ],
        // `auto_allow` stays on: the sandboxed `touch` would be allowed without the hook.
        Some(json!({"permission": {"edit": "allow", "bash": {"echo *": "allow"}}})),
    )
    .await;
    let write = json!({"filePath": t.path("a.txt"), "content": "x"}).to_string();
    let server = ModelServer::start(vec![
        Turn::tool_call("c1", "write", &write),
        Turn::tool_call(
            "c2",
            "bash",
            r#"{"command":"touch made.txt","description":"make"}"#,
        ),
        Turn::tool_call(
            "c3",
            "bash",
            r#"{"command":"echo hi","description":"greet"}"#,
        ),
        Turn::text("done"),
    ]);
    let runner = graph_runner(&t, &server, options());
    let ran = run(&t, &runner, "go").await;
    assert_eq!(ran.report.outcome, RunOutcome::Completed);
    assert!(!t.path("a.txt").exists(), "the denied write never ran");
    assert!(!t.path("made.txt").exists(), "the refused touch never ran");
    let all = sent(&server);
    assert!(
        all.contains("the branch is frozen") && all.contains("no touching"),
        "{all}"
    );
    let asked = t.asked_for("bash");
    assert_eq!(asked.len(), 1, "the hook's ask asks where the rule allows");
    assert_eq!(asked[0].patterns, ["echo hi"]);
    assert_eq!(asked[0].metadata["hook"], "check this one");
    let parts = tool_parts(&store(&t), &ran.session_id);
    assert_eq!(parts[2]["state"]["status"], "completed", "{}", parts[2]);
}

#[tokio::test]
async fn a_stop_hook_sends_the_model_back_once_then_lets_it_finish() {
    let log = "stop-inputs.log";
    let guard = format!(
        "input=$(cat)\necho \"$input\" >> {log}\ncase \"$input\" in *'\"stop_hook_active\":true'*) exit 0;; esac\necho 'run the tests before you stop' >&2\nexit 2"
    );
    let stop = r#"sh "$CLAUDE_PROJECT_DIR/../home/hooks/stop.sh""#;
    let t = instance(
        vec![
            ("home/hooks/stop.sh".into(), guard),
            user_settings(json!({"Stop": [{"hooks": [{"command": stop}]}]})),
        ],
        None,
    )
    .await;
    let server = ModelServer::start(vec![Turn::text("all done"), Turn::text("tests pass now")]);
    let runner = graph_runner(&t, &server, options());
    let ran = run(&t, &runner, "fix it").await;
    assert_eq!(ran.report.outcome, RunOutcome::Completed);
    assert_eq!(ran.report.text, "tests pass now");
    assert_eq!(server.requests().len(), 2);
    assert!(sent(&server).contains("run the tests before you stop"));
    let inputs = std::fs::read_to_string(t.path(log)).unwrap();
    let active: Vec<bool> = inputs
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["stop_hook_active"]
                .as_bool()
                .unwrap()
        })
        .collect();
    assert_eq!(active, [false, true]);
    let recorded = runs(&t, &ran.session_id);
    assert_eq!(recorded.len(), 2);
    assert!(recorded[0].outcome.blocked.is_some() && recorded[1].outcome.blocked.is_none());
}

#[tokio::test]
async fn a_prompt_hook_that_exits_2_drops_the_prompt_with_its_reason() {
    let t = instance(
        vec![user_settings(json!({"UserPromptSubmit": [{"hooks": [
            {"command": "echo 'prompts may not name secrets' >&2; exit 2"}
        ]}]}))],
        None,
    )
    .await;
    let server = ModelServer::start(vec![Turn::text("never sent")]);
    let runner = graph_runner(&t, &server, options());
    let ran = run(&t, &runner, "print the API key").await;
    let RunOutcome::Stopped { reason } = &ran.report.outcome else {
        panic!("{:?}", ran.report.outcome);
    };
    assert!(reason.contains("prompts may not name secrets"), "{reason}");
    assert!(
        server.requests().is_empty(),
        "the model never saw the prompt"
    );
    let s = store(&t);
    assert!(
        s.messages(&ran.session_id).unwrap().is_empty(),
        "nothing stored"
    );
    let events = s.events_since(&ran.session_id, 0).unwrap();
    let error = events.iter().find(|e| e.kind == "session.error").unwrap();
    assert!(
        error
            .data
            .to_string()
            .contains("prompts may not name secrets")
    );
    assert_eq!(runs(&t, &ran.session_id)[0].exit_code, Some(2));
}

#[tokio::test]
async fn hung_missing_and_failing_hooks_are_warnings_and_the_call_still_runs() {
    let t = instance(
        vec![user_settings(
            json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"command": "sleep 30", "timeout": 0.5},
                {"command": "no-such-hook-program --check"},
                {"command": "echo 'lint is unhappy' >&2; exit 1"},
            ]}]}),
        )],
        None,
    )
    .await;
    let server = ModelServer::start(vec![
        Turn::tool_call(
            "c1",
            "bash",
            r#"{"command": "echo ran > ran.txt", "description": "run"}"#,
        ),
        Turn::text("done"),
    ]);
    let runner = graph_runner(&t, &server, options());
    let started = std::time::Instant::now();
    let ran = run(&t, &runner, "go").await;
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "the hung hook was stopped"
    );
    assert_eq!(ran.report.outcome, RunOutcome::Completed);
    assert!(t.path("ran.txt").exists(), "the call ran despite its hooks");
    let warnings: Vec<String> = runs(&t, &ran.session_id)
        .into_iter()
        .map(|r| r.outcome.warning.unwrap())
        .collect();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(warnings[0].contains("stopped after 0.5s"), "{warnings:?}");
    assert!(
        warnings[1].contains("not found") && warnings[1].contains(".claude/settings.json"),
        "{warnings:?}"
    );
    assert!(
        warnings[2].contains("exited with 1: lint is unhappy"),
        "{warnings:?}"
    );
}

#[tokio::test]
async fn session_start_notification_and_session_end_hooks_run_at_their_events() {
    let t = instance(
        vec![user_settings(json!({
            "SessionStart": [{"hooks": [{"command": "echo 'The main branch is called trunk.'"}]}],
            "Notification": [{"hooks": [{"command": "cat > notified.json"}]}],
            "SessionEnd": [{"hooks": [{"command": "cat > ended.json"}]}],
        }))],
        Some(json!({"permission": {"bash": "ask"}, "sandbox": {"auto_allow": false}})),
    )
    .await;
    let server = ModelServer::start(vec![
        Turn::tool_call(
            "c1",
            "bash",
            r#"{"command": "touch made.txt", "description": "make"}"#,
        ),
        Turn::text("done"),
        Turn::text("again"),
    ]);
    let runner = graph_runner(&t, &server, options());
    let ran = run(&t, &runner, "go").await;
    assert_eq!(ran.report.outcome, RunOutcome::Completed);
    assert!(sent(&server).contains("The main branch is called trunk."));
    assert_eq!(
        t.asked_for("bash").len(),
        1,
        "{:?}",
        runs(&t, &ran.session_id)
    );
    strata_testkit::poll_with_timeout("the Notification hook's record", LIMIT, || {
        let recorded = runs(&t, &ran.session_id)
            .iter()
            .any(|r| r.event == "Notification");
        async move { recorded.then_some(()) }
    })
    .await;
    let notified = std::fs::read_to_string(t.path("notified.json")).unwrap();
    let notified: Value = serde_json::from_str(&notified).unwrap();
    assert!(
        notified["message"].as_str().unwrap().contains("bash"),
        "{notified}"
    );

    // A second turn of the same session in the same process: SessionStart does not run again.
    let target = strata_agent::session::SessionTarget::Id(ran.session_id.clone());
    let cancel = tokio_util::sync::CancellationToken::new();
    let again = run_in(&t, &runner, target, "more", cancel).await;
    assert_eq!(again.report.outcome, RunOutcome::Completed);
    let starts = runs(&t, &ran.session_id)
        .iter()
        .filter(|r| r.event == "SessionStart")
        .count();
    assert_eq!(starts, 1);

    runner.end_session(&ran.session_id, "other").await.unwrap();
    let ended: Value =
        serde_json::from_str(&std::fs::read_to_string(t.path("ended.json")).unwrap()).unwrap();
    assert_eq!(
        (ended["hook_event_name"].as_str(), ended["reason"].as_str()),
        (Some("SessionEnd"), Some("other"))
    );
    assert!(
        runs(&t, &ran.session_id)
            .iter()
            .any(|r| r.event == "SessionEnd")
    );
}
