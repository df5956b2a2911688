//! The loop's own hook events with real shell scripts: `SubagentStop` sends a `task` child
//! back to work on exit 2 and lets it finish once `stop_hook_active` is set (as `Stop` does
//! for the session), while the child's prompt runs no `UserPromptSubmit`; `PreCompact` runs
//! before automatic compaction (`trigger: "auto"`) and before one the user asks for
//! (`trigger: "manual"` with their instructions), and its exit 2 is shown, never blocking.

use serde_json::{Value, json};
use strata_agent::session::{RunOutcome, SessionTarget};
use strata_testkit::model_server::{ModelServer, Turn, call};

use crate::loop_hooks::{instance, runs, sent, user_settings};
use crate::loop_support::*;

/// The JSON objects a hook script appended to `file`, one a line.
fn logged(t: &strata_testkit::TestInstance, file: &str) -> Vec<Value> {
    std::fs::read_to_string(t.path(file))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A script that logs its input to `log`, then exits 2 with `complaint` on stderr unless
/// `stop_hook_active` is set.
fn stop_guard(log: &str, complaint: &str) -> String {
    format!(
        "input=$(cat)\necho \"$input\" >> {log}\ncase \"$input\" in *'\"stop_hook_active\":true'*) exit 0;; esac\necho '{complaint}' >&2\nexit 2"
    )
}

#[tokio::test]
async fn a_subagent_stop_hook_sends_the_child_back_once_and_the_parent_gets_its_last_answer() {
    let hook = |name: &str| format!(r#"sh "$CLAUDE_PROJECT_DIR/../home/hooks/{name}""#);
    let t = instance(
        vec![
            (
                "home/hooks/subagent.sh".into(),
                stop_guard("subagent-stop.log", "list the files you checked"),
            ),
            (
                "home/hooks/log.sh".into(),
                "input=$(cat)\necho \"$input\" >> events.log".into(),
            ),
            user_settings(json!({
                "SubagentStop": [{"hooks": [{"command": hook("subagent.sh")}]}],
                "Stop": [{"hooks": [{"command": hook("log.sh")}]}],
                "UserPromptSubmit": [{"hooks": [{"command": hook("log.sh")}]}],
            })),
        ],
        None,
    )
    .await;
    let args = json!({"description": "Check", "prompt": "CHILD-A: check the config", "subagent_type": "general"});
    let server = ModelServer::start(vec![
        Turn::ToolCalls(vec![call("c1", "task", &args.to_string())]),
        Turn::text("parent done"),
    ]);
    server.route(
        "CHILD-A",
        vec![
            Turn::text("checked"),
            Turn::text("checked strata.json and .env"),
        ],
    );
    let runner = graph_runner(&t, &server, options());
    let ran = run_in(
        &t,
        &runner,
        SessionTarget::New,
        "delegate",
        Default::default(),
    )
    .await;
    assert_eq!(ran.report.outcome, RunOutcome::Completed);
    assert_eq!(ran.report.text, "parent done");

    // The child was sent back with the hook's stderr, and its second answer reached the parent.
    let all = sent(&server);
    assert!(
        all.contains(
            "The SubagentStop hook asks you to go on before finishing: list the files you checked"
        ),
        "{all}"
    );
    let parts = tool_parts(&store(&t), &ran.session_id);
    let output = parts[0]["state"]["output"].as_str().unwrap();
    assert!(output.contains("checked strata.json and .env"), "{output}");
    let active: Vec<bool> = logged(&t, "subagent-stop.log")
        .iter()
        .map(|i| i["stop_hook_active"].as_bool().unwrap())
        .collect();
    assert_eq!(active, [false, true]);

    // The child's runs are SubagentStop only: its prompt came from the model, not the user.
    let child = parts[0]["state"]["metadata"]["sessionId"].as_str().unwrap();
    let child_runs: Vec<(String, Option<i32>)> = runs(&t, child)
        .into_iter()
        .map(|r| (r.event, r.exit_code))
        .collect();
    assert_eq!(
        child_runs,
        [
            ("SubagentStop".to_string(), Some(2)),
            ("SubagentStop".to_string(), Some(0))
        ]
    );
    let parent: Vec<String> = runs(&t, &ran.session_id)
        .into_iter()
        .map(|r| r.event)
        .collect();
    assert_eq!(parent, ["UserPromptSubmit", "Stop"]);
    let events: Vec<Value> = logged(&t, "events.log");
    let names: Vec<&str> = events
        .iter()
        .map(|e| e["hook_event_name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["UserPromptSubmit", "Stop"]);
    assert!(
        events
            .iter()
            .all(|e| e["session_id"] == ran.session_id.as_str())
    );
}

/// `PreCompact` hooks: the first logs its input and exits 0, the second says something on
/// stderr and exits 2.
async fn pre_compact_instance() -> strata_testkit::TestInstance {
    instance(
        vec![user_settings(json!({"PreCompact": [{"hooks": [
            {"command": "input=$(cat); echo \"$input\" >> pre-compact.log"},
            {"command": "echo 'notes saved before compaction' >&2; exit 2"},
        ]}]}))],
        None,
    )
    .await
}

/// Both runs of one compaction: exit 0 quiet, exit 2 shown as a warning but not a block.
fn assert_pre_compact_runs(t: &strata_testkit::TestInstance, session: &str) {
    let recorded: Vec<_> = runs(t, session)
        .into_iter()
        .filter(|r| r.event == "PreCompact")
        .collect();
    assert_eq!(recorded.len(), 2, "{recorded:?}");
    assert_eq!(recorded[0].exit_code, Some(0));
    assert_eq!(recorded[0].outcome, Default::default());
    assert_eq!(recorded[1].exit_code, Some(2));
    assert_eq!(recorded[1].outcome.blocked, None);
    let warning = recorded[1].outcome.warning.as_deref().unwrap();
    assert!(
        warning.contains("exited with 2: notes saved before compaction"),
        "{warning}"
    );
}

fn compaction_parts(t: &strata_testkit::TestInstance, session: &str) -> Vec<Value> {
    store(t)
        .messages(session)
        .unwrap()
        .into_iter()
        .flat_map(|(_, parts)| parts)
        .filter(|p| p.kind == "compaction")
        .map(|p| p.data)
        .collect()
}

#[tokio::test]
async fn pre_compact_runs_before_an_automatic_compaction_and_its_exit_2_does_not_block_it() {
    let t = pre_compact_instance().await;
    let server = ModelServer::start(vec![context_overflow(), Turn::text("Hello again.")]);
    server.answer_when(summary_needle(), Turn::text("SUMMARY: the user said hi."));
    let runner = graph_runner(&t, &server, options());
    let ran = run(&t, &runner, "hi").await;
    assert_eq!(ran.report.outcome, RunOutcome::Completed);
    assert_eq!(ran.report.text, "Hello again.");
    let input = logged(&t, "pre-compact.log");
    assert_eq!(input.len(), 1);
    assert_eq!(input[0]["hook_event_name"], "PreCompact");
    assert_eq!(input[0]["trigger"], "auto");
    assert_eq!(input[0]["custom_instructions"], "");
    assert_pre_compact_runs(&t, &ran.session_id);
    let compactions = compaction_parts(&t, &ran.session_id);
    assert_eq!(compactions.len(), 1, "the hook's exit 2 did not stop it");
    assert_eq!(compactions[0]["auto"], true);
}

#[tokio::test]
async fn pre_compact_runs_with_trigger_manual_when_the_user_asks_for_a_summary() {
    let t = pre_compact_instance().await;
    let server = ModelServer::start(vec![Turn::text("Hello.")]);
    server.answer_when(summary_needle(), Turn::text("SUMMARY: a greeting."));
    let runner = graph_runner(&t, &server, options());
    let ran = run(&t, &runner, "hi").await;
    assert_eq!(ran.report.outcome, RunOutcome::Completed);

    let cancel = tokio_util::sync::CancellationToken::new();
    let report = runner
        .summarize(&ran.session_id, "keep the file names", cancel, None)
        .await
        .unwrap();
    assert_eq!(report.outcome, RunOutcome::Completed);
    let input = logged(&t, "pre-compact.log");
    assert_eq!(input.len(), 1);
    assert_eq!(
        (
            input[0]["trigger"].as_str(),
            input[0]["custom_instructions"].as_str()
        ),
        (Some("manual"), Some("keep the file names"))
    );
    assert_pre_compact_runs(&t, &ran.session_id);
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "the step, then the summary");
    let summary = requests[1].to_string();
    assert!(
        summary.contains(summary_needle()) && summary.contains("keep the file names"),
        "{summary}"
    );
    let compactions = compaction_parts(&t, &ran.session_id);
    assert_eq!(compactions.len(), 1);
    assert_eq!(
        (&compactions[0]["auto"], &compactions[0]["summary"]),
        (&json!(false), &json!("SUMMARY: a greeting."))
    );
    let s = store(&t);
    assert!(s.session_idle(&ran.session_id).unwrap());
}
