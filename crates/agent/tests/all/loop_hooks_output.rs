//! What hooks print and where it goes, with real shell scripts: a PostToolUse hook's exit 2
//! reaches the model after a call that already ran; stdout is kept in the run's record unless
//! the hook set `suppressOutput`; and `claude_compat.hooks: false` leaves Claude Code's
//! settings files out while Strata's own `hooks` still run.

use serde_json::json;
use strata_agent::session::{RunOutcome, hooks};
use strata_services::hooks::{HookEvent, Hooks};
use strata_testkit::model_server::{ModelServer, Turn};

use crate::loop_hooks::{instance, runs, sent, user_settings};
use crate::loop_support::*;

fn bash(id: &str, command: &str) -> Turn {
    let args = json!({"command": command, "description": "run"});
    Turn::tool_call(id, "bash", &args.to_string())
}

#[tokio::test]
async fn a_post_tool_use_hook_that_exits_2_tells_the_model_after_the_call_ran() {
    let t = instance(
        vec![user_settings(
            json!({"PostToolUse": [{"matcher": "Bash", "hooks": [
                {"command": "echo 'the build is broken now; fix it' >&2; exit 2"},
            ]}]}),
        )],
        None,
    )
    .await;
    let server = ModelServer::start(vec![
        bash("c1", "echo ran > ran.txt && echo wrote"),
        Turn::text("fixed"),
    ]);
    let runner = graph_runner(&t, &server, options());
    let ran = run(&t, &runner, "go").await;
    assert_eq!(ran.report.outcome, RunOutcome::Completed);
    assert!(t.path("ran.txt").exists(), "the call ran before its hook");
    let parts = tool_parts(&store(&t), &ran.session_id);
    assert_eq!(parts[0]["state"]["status"], "completed", "{}", parts[0]);
    let output = parts[0]["state"]["output"].as_str().unwrap();
    assert!(output.starts_with("wrote"), "{output}");
    assert!(
        output.contains("hook `echo 'the build is broken now; fix it' >&2; exit 2` reported: the build is broken now; fix it"),
        "{output}"
    );
    // The model read it with the result, in the request after the call.
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[1]
            .to_string()
            .contains("the build is broken now; fix it")
    );
    let recorded = runs(&t, &ran.session_id);
    assert_eq!(recorded.len(), 1);
    assert_eq!(
        (recorded[0].event.as_str(), recorded[0].exit_code),
        ("PostToolUse", Some(2))
    );
    assert_eq!(
        recorded[0].outcome.blocked.as_deref(),
        Some("the build is broken now; fix it")
    );
}

#[tokio::test]
async fn stdout_is_recorded_unless_the_hook_sets_suppress_output() {
    let quiet = r#"echo '{"suppressOutput": true, "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "lint is clean"}}'"#;
    let t = instance(
        vec![user_settings(
            json!({"PostToolUse": [{"matcher": "Bash", "hooks": [
                {"command": "echo 'formatted 3 files'"},
                {"command": quiet},
            ]}]}),
        )],
        None,
    )
    .await;
    let server = ModelServer::start(vec![bash("c1", "echo hi"), Turn::text("done")]);
    let runner = graph_runner(&t, &server, options());
    let ran = run(&t, &runner, "go").await;
    assert_eq!(ran.report.outcome, RunOutcome::Completed);
    let recorded = runs(&t, &ran.session_id);
    assert_eq!(recorded.len(), 2);
    assert_eq!(
        recorded[0].outcome.output.as_deref(),
        Some("formatted 3 files")
    );
    assert!(
        hooks::summary(&recorded[0]).ends_with("printed: formatted 3 files"),
        "{}",
        hooks::summary(&recorded[0])
    );
    // Suppressed: the record keeps what the hook said, not what it printed.
    assert_eq!(recorded[1].outcome.output, None);
    assert_eq!(
        recorded[1].outcome.context.as_deref(),
        Some("lint is clean")
    );
    let outcomes: Vec<serde_json::Value> = store(&t)
        .events_since(&ran.session_id, 0)
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == "session.hook")
        .map(|e| e.data["hook"]["outcome"].clone())
        .collect();
    assert_eq!(
        outcomes,
        [
            json!({"output": "formatted 3 files"}),
            json!({"context": "lint is clean"})
        ]
    );
    // The model still gets the context: suppressing is about the record, not the hook's say.
    assert!(sent(&server).contains("lint is clean"));
    assert!(!sent(&server).contains("formatted 3 files"));
}

/// Hooks on `UserPromptSubmit` in Strata's user config, `~/.claude/settings.json` and the
/// project's `.claude/settings.json`, each appending its name to `ran.log`.
fn three_sources(compat: Option<bool>) -> Vec<(String, String)> {
    let hook = |name: &str| json!({"UserPromptSubmit": [{"hooks": [{"command": format!("echo {name} >> ran.log")}]}]});
    let mut config = json!({"hooks": hook("strata-config")});
    if let Some(on) = compat {
        config["claude_compat"] = json!({"hooks": on});
    }
    vec![
        ("config/strata.json".into(), config.to_string()),
        user_settings(hook("home-claude")),
        (
            "project/.claude/settings.json".into(),
            json!({"hooks": hook("project-claude")}).to_string(),
        ),
    ]
}

#[tokio::test]
async fn claude_compat_hooks_false_ignores_claude_settings_and_keeps_stratas_own_hooks() {
    // With the default, all three files are read (the project's waits for trust).
    let on = instance(three_sources(None), None).await;
    let files: Vec<String> = on
        .get::<Hooks>()
        .entries()
        .into_iter()
        .map(|e| e.file)
        .collect();
    assert_eq!(files.len(), 3, "{files:?}");

    let t = instance(three_sources(Some(false)), None).await;
    let service = t.get::<Hooks>();
    let entries = service.entries();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert!(entries[0].file.ends_with("strata.json"), "{entries:?}");
    assert!(
        service.untrusted().is_none() && service.warnings().is_empty(),
        "nothing of the project's is waiting for trust: {:?}",
        service.warnings()
    );
    assert!(service.has(HookEvent::UserPromptSubmit));
    let server = ModelServer::start(vec![Turn::text("done")]);
    let runner = graph_runner(&t, &server, options());
    let ran = run(&t, &runner, "go").await;
    assert_eq!(ran.report.outcome, RunOutcome::Completed);
    let log = std::fs::read_to_string(t.path("ran.log")).unwrap();
    assert_eq!(log, "strata-config\n");
    let recorded = runs(&t, &ran.session_id);
    assert_eq!(recorded.len(), 1);
    assert!(recorded[0].file.ends_with("strata.json"));
}
