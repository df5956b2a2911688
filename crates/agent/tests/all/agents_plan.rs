//! Agents in the loop: plan mode refuses edits but reads and writes its plan file, carries its
//! reminder to the model, and `plan_exit` hands the turn to `build` (yes) or stops it (no);
//! a custom agent's prompt and step budget apply to the run.

use serde_json::json;
use strata_agent::session::agent_mode::{build_switch_reminder, plan_file, plan_reminder};
use strata_agent::session::{RunOptions, RunOutcome, SessionTarget, open_session};
use strata_agent::store::{Role, Store};
use strata_services::instance::InstanceInfo;
use strata_services::question::{Question, QuestionEvent};
use strata_testkit::TestInstance;
use strata_testkit::model_server::{ModelServer, SentItem, SentRequest, Turn};
use tokio_util::sync::CancellationToken;

use crate::loop_support::*;

fn plan_options() -> RunOptions {
    RunOptions {
        agent: "plan".into(),
        ..options()
    }
}

/// The last user message's text in a request.
fn last_user_text(req: &SentRequest) -> String {
    let user = req
        .messages
        .iter()
        .rev()
        .find(|m| m.role == "user")
        .unwrap();
    user.items
        .iter()
        .filter_map(|i| match i {
            SentItem::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// Answers every question with `label`.
fn answering(t: &TestInstance, label: &'static str) -> tokio::task::JoinHandle<()> {
    let question = t.get::<Question>();
    let mut events = question.subscribe();
    tokio::spawn(async move {
        while let Ok(event) = events.recv().await {
            if let QuestionEvent::Asked(req) = event {
                question.reply(&req.id, vec![vec![label.into()]]).unwrap();
            }
        }
    })
}

/// A new session and its plan file.
fn session_with_plan(t: &TestInstance) -> (String, std::path::PathBuf) {
    let session = open_session(&store(t), t.dir(), &SessionTarget::New).unwrap();
    let path = plan_file(&t.get::<InstanceInfo>(), &session);
    (session.id, path)
}

#[tokio::test]
async fn plan_mode_reads_and_writes_its_plan_but_refuses_other_edits() {
    TestInstance::builder()
        .file("src/lib.rs", "pub fn one() -> u32 { 1 }\n")
        .run(|t| async move {
            let (id, plan) = session_with_plan(&t);
            let edit = json!({"filePath": "src/lib.rs", "oldString": "1 }", "newString": "2 }"});
            let write = json!({"filePath": plan.display().to_string(), "content": "# Plan\n"});
            let server = ModelServer::start(vec![
                Turn::tool_call("c1", "read", &json!({"filePath": "src/lib.rs"}).to_string()),
                Turn::tool_call("c2", "write", &write.to_string()),
                Turn::tool_call("c3", "edit", &edit.to_string()),
                Turn::text("unreachable"),
            ]);
            let runner = runner(&t, &server, MODEL, plan_options());
            let ran = run_in(
                &t,
                &runner,
                SessionTarget::Id(id),
                "plan a change",
                CancellationToken::new(),
            )
            .await;
            assert!(
                matches!(ran.report.outcome, RunOutcome::Stopped { .. }),
                "{:?}",
                ran.report.outcome
            );
            assert_eq!(std::fs::read_to_string(&plan).unwrap(), "# Plan\n");
            assert_eq!(
                std::fs::read_to_string(t.path("src/lib.rs")).unwrap(),
                "pub fn one() -> u32 { 1 }\n"
            );
            let parts = tool_parts(&store(&t), &ran.session_id);
            let states: Vec<&str> = parts
                .iter()
                .map(|p| p["state"]["status"].as_str().unwrap())
                .collect();
            assert_eq!(states, ["completed", "completed", "error"]);
            let refusal = parts[2]["state"]["error"].as_str().unwrap();
            assert!(refusal.contains("edit"), "{refusal}");

            let sent = server.sent();
            assert_eq!(sent.len(), 3, "the refusal stops the turn");
            for tool in ["read", "edit", "write", "plan_exit", "bash"] {
                assert!(
                    sent[0].tools.contains(&tool.to_string()),
                    "{tool}: {:?}",
                    sent[0].tools
                );
            }
            let text = last_user_text(&sent[0]);
            assert!(
                text.starts_with("plan a change\n\n<system-reminder>"),
                "{text}"
            );
            assert!(text.contains(&plan.display().to_string()), "{text}");
            assert_log_consistent(&store(&t), &ran);
        })
        .await;
}

#[tokio::test]
async fn plan_exit_yes_hands_the_turn_to_build_with_the_approved_plan() {
    TestInstance::builder()
        .run(|t| async move {
            let (id, plan) = session_with_plan(&t);
            let server = ModelServer::start(vec![
                Turn::tool_call("c1", "plan_exit", "{}"),
                Turn::text("Implementing the plan now."),
            ]);
            let answers = answering(&t, "Yes");
            let runner = runner(&t, &server, MODEL, plan_options());
            let ran = run_in(
                &t,
                &runner,
                SessionTarget::Id(id),
                "plan it",
                CancellationToken::new(),
            )
            .await;
            answers.abort();
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert_eq!(ran.report.text, "Implementing the plan now.");

            let sent = server.sent();
            assert_eq!(sent.len(), 2);
            assert!(sent[0].tools.contains(&"plan_exit".to_string()));
            assert!(
                !sent[1].tools.contains(&"plan_exit".to_string()),
                "{:?}",
                sent[1].tools
            );
            let results = sent[1].results();
            assert!(results[0].1.contains("approved the switch"), "{results:?}");
            let text = last_user_text(&sent[1]);
            let shown = plan.strip_prefix(t.dir()).unwrap().display().to_string();
            assert!(
                text.starts_with(&format!("The plan in {shown} is approved.")),
                "{text}"
            );
            assert!(text.ends_with(&build_switch_reminder()), "{text}");

            // The stored conversation: the approval is a user message of the build agent.
            let store: Store = store(&t);
            let messages = store.messages(&ran.session_id).unwrap();
            let agents: Vec<(Role, String)> = messages
                .iter()
                .map(|(m, _)| (m.role, m.data["agent"].as_str().unwrap_or("").to_string()))
                .collect();
            assert_eq!(
                agents,
                [
                    (Role::User, "plan".to_string()),
                    (Role::Assistant, "plan".to_string()),
                    (Role::User, "build".to_string()),
                    (Role::Assistant, "build".to_string()),
                ]
            );
            let parts = tool_parts(&store, &ran.session_id);
            assert_eq!(parts[0]["state"]["title"], "Switching to the build agent");
            assert_log_consistent(&store, &ran);
        })
        .await;
}

#[tokio::test]
async fn plan_exit_no_stops_the_loop_in_plan_mode() {
    TestInstance::builder()
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::tool_call("c1", "plan_exit", "{}"),
                Turn::text("unreachable"),
            ]);
            let answers = answering(&t, "No");
            let runner = runner(&t, &server, MODEL, plan_options());
            let ran = run(&t, &runner, "plan it").await;
            answers.abort();
            let RunOutcome::Stopped { reason } = &ran.report.outcome else {
                panic!("{:?}", ran.report.outcome);
            };
            assert!(reason.contains("stay in plan mode"), "{reason}");
            assert_eq!(server.sent().len(), 1);
            let store = store(&t);
            let users = store
                .messages(&ran.session_id)
                .unwrap()
                .iter()
                .filter(|(m, _)| m.role == Role::User)
                .count();
            assert_eq!(users, 1, "no approval message");
        })
        .await;
}

#[tokio::test]
async fn a_custom_agent_brings_its_prompt_and_step_budget() {
    TestInstance::builder()
        .file(
            ".strata/agents/brief.md",
            "---\ndescription: Short answers\nmode: primary\nsteps: 1\npermission:\n  edit: deny\n---\nAnswer in one line.\n",
        )
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::tool_call("c1", "read", &json!({"filePath": "x"}).to_string()),
                Turn::text("unreachable"),
            ]);
            let opts = RunOptions {
                agent: "brief".into(),
                ..options()
            };
            let runner = runner(&t, &server, MODEL, opts);
            let ran = run(&t, &runner, "hi").await;
            assert_eq!(ran.report.outcome, RunOutcome::StepLimit { steps: 1 });
            let sent = server.sent();
            // The agent's prompt replaces the base prompt; the environment still follows it.
            assert!(sent[0].system.starts_with("Answer in one line.\n\n"), "{}", sent[0].system);
            assert!(sent[0].system.contains("# Environment"), "{}", sent[0].system);
            assert!(!sent[0].tools.contains(&"edit".to_string()), "{:?}", sent[0].tools);
            assert!(!sent[0].tools.contains(&"write".to_string()));
            assert!(sent[0].tools.contains(&"read".to_string()));
            assert_eq!(last_user_text(&sent[0]), "hi", "no reminder outside plan mode");
        })
        .await;
}

#[tokio::test]
async fn an_unknown_agent_is_refused_before_anything_is_stored() {
    TestInstance::builder()
        .run(|t| async move {
            let server = ModelServer::start(vec![Turn::text("unreachable")]);
            let opts = RunOptions {
                agent: "nope".into(),
                ..options()
            };
            let runner = runner(&t, &server, MODEL, opts);
            let err = runner.surface().unwrap_err().to_string();
            assert!(err.contains("no agent named `nope`"), "{err}");
            assert!(err.contains("build, explore, general, plan"), "{err}");
        })
        .await;
}

#[test]
fn the_model_visible_plan_texts() {
    let plan = std::path::Path::new("/project/.strata/plans/1700000000000-abcdefgh.md");
    let tool = strata_tools::plan_exit::question_for(".strata/plans/1700000000000-abcdefgh.md");
    let texts = format!(
        "## plan reminder\n{}\n\n## build switch reminder\n{}\n\n## approval message\n{}\n\n\
         ## question\n{}\n\n## plan_exit description\n{}",
        plan_reminder(plan),
        build_switch_reminder(),
        strata_tools::plan_exit::approval_message(".strata/plans/1700000000000-abcdefgh.md"),
        serde_json::to_string_pretty(&tool).unwrap(),
        include_str!("../../../tools/src/plan_exit/description.md"),
    );
    insta::assert_snapshot!(texts);
}
