//! `task`: subagents as child sessions, end to end on the scripted model. Each child is
//! answered by a script of its own, routed by its first user message (the task's prompt).

use serde_json::{Value, json};
use strata_agent::events::LoopEvent;
use strata_agent::session::{LoopServices, RunOutcome, SessionTarget};
use strata_agent::store::Store;
use strata_testkit::model_server::{ModelServer, Turn, call};
use strata_testkit::{TestInstance, poll_with_timeout};
use tokio_util::sync::CancellationToken;

use crate::loop_support::{LIMIT, MODEL, graph_runner, options, run_in, tool_parts};

fn instance() -> strata_testkit::TestInstanceBuilder {
    TestInstance::builder().graph(strata_agent::production())
}

fn store(t: &TestInstance) -> Store {
    LoopServices::from_context(t.context()).unwrap().store
}

fn task(id: &str, description: &str, prompt: &str, agent: &str) -> (String, String, String) {
    let args = json!({"description": description, "prompt": prompt, "subagent_type": agent});
    call(id, "task", &args.to_string())
}

/// The children of `parent`, oldest first.
fn children(store: &Store, parent: &str) -> Vec<strata_agent::store::Session> {
    let mut kids: Vec<_> = store
        .list_sessions(None)
        .unwrap()
        .into_iter()
        .filter(|s| s.parent_id.as_deref() == Some(parent))
        .collect();
    kids.sort_by_key(|s| s.created_ms);
    kids
}

fn output(part: &Value) -> String {
    let state = &part["state"];
    state["output"]
        .as_str()
        .or_else(|| state["error"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn a_child_session_answers_from_its_own_script_and_reports_back() {
    instance()
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::ToolCalls(vec![task(
                    "c1",
                    "Find the config",
                    "CHILD-A: where is the config kept?",
                    "general",
                )]),
                Turn::text("parent done"),
            ]);
            server.route("CHILD-A", vec![Turn::text("It is in strata.json.")]);
            let runner = graph_runner(&t, &server, options());
            let ran = run_in(&t, &runner, SessionTarget::New, "delegate", Default::default()).await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);

            let store = store(&t);
            let kids = children(&store, &ran.session_id);
            assert_eq!(kids.len(), 1, "one child session");
            let child = &kids[0];
            assert_eq!(child.title, "Find the config (@general subagent)");
            let parts = tool_parts(&store, &ran.session_id);
            assert_eq!(parts[0]["state"]["status"], "completed", "{}", parts[0]);
            assert_eq!(
                output(&parts[0]),
                format!(
                    "<task id=\"{}\" state=\"completed\">\n<task_result>\nIt is in strata.json.\n</task_result>\n</task>",
                    child.id
                )
            );
            let meta = &parts[0]["state"]["metadata"];
            assert_eq!(meta["sessionId"], child.id.as_str());
            assert_eq!(meta["parentSessionId"], ran.session_id.as_str());
            assert_eq!(meta["model"], MODEL);
            assert_eq!(parts[0]["state"]["title"], "Find the config");

            // The child is a conversation of its own: the prompt, then its answer.
            let messages = store.messages(&child.id).unwrap();
            assert_eq!(messages.len(), 2);
            assert_eq!(messages[1].0.data["agent"], "general");

            // The child's model saw no `task` and no `todowrite` (denied for children).
            let sent = server.sent();
            let child_request = sent
                .iter()
                .find(|r| r.tools.iter().all(|t| t != "task"))
                .expect("the child's request");
            assert!(!child_request.tools.iter().any(|t| t == "todowrite"));
            assert!(child_request.tools.iter().any(|t| t == "read"));
            assert!(sent[0].tools.iter().any(|t| t == "task"));

            // The front-end heard the child's events under the child's session id.
            let sessions: Vec<&str> = ran
                .heard
                .iter()
                .filter_map(|e| match e {
                    LoopEvent::Stored(e) => Some(e.session_id.as_str()),
                    LoopEvent::TextDelta { .. } => None,
                })
                .collect();
            assert!(sessions.contains(&child.id.as_str()), "{sessions:?}");
            assert!(sessions.contains(&ran.session_id.as_str()));
            // And the event store keeps them apart.
            assert!(
                store
                    .events_since(&child.id, 0)
                    .unwrap()
                    .iter()
                    .all(|e| e.session_id == child.id)
            );
        })
        .await;
}

#[tokio::test]
async fn an_unknown_subagent_type_is_an_error_and_the_parent_goes_on() {
    instance()
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::ToolCalls(vec![task("c1", "Do it", "CHILD-X: go", "nosuchagent")]),
                Turn::text("fine"),
            ]);
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
            let store = store(&t);
            let parts = tool_parts(&store, &ran.session_id);
            assert_eq!(parts[0]["state"]["status"], "error");
            let error = output(&parts[0]);
            assert!(
                error.contains("Unknown agent type") && error.contains("`nosuchagent`"),
                "{error}"
            );
            assert!(
                error.contains("explore") && error.contains("general"),
                "{error}"
            );
            assert!(children(&store, &ran.session_id).is_empty());
        })
        .await;
}

#[tokio::test]
async fn a_child_cannot_start_its_own_subagents_past_the_depth_limit() {
    instance()
        .run(|t| async move {
            let store = store(&t);
            let top = store.create_session(t.dir(), None).unwrap();
            let child = store.create_session(t.dir(), Some(&top.id)).unwrap();
            let server = ModelServer::start(vec![
                Turn::ToolCalls(vec![task("c1", "Go deeper", "CHILD-D: more", "explore")]),
                Turn::text("stopped"),
            ]);
            let runner = graph_runner(&t, &server, options());
            let ran = run_in(
                &t,
                &runner,
                SessionTarget::Id(child.id.clone()),
                "nest",
                Default::default(),
            )
            .await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let parts = tool_parts(&store, &child.id);
            let error = output(&parts[0]);
            assert!(
                error.contains("depth limit reached (1)") && error.contains("subagent_depth"),
                "{error}"
            );
            assert!(children(&store, &child.id).is_empty());
            assert_eq!(server.route_remaining("CHILD-D"), 0);
        })
        .await;
}

#[tokio::test]
async fn two_task_calls_in_one_step_run_at_the_same_time() {
    instance()
        .run(|t| async move {
            // A waits for a file that only B creates: run one after the other, A would fail.
            let wait =
                "for i in $(seq 1 200); do [ -f b-started ] && exit 0; sleep 0.05; done; exit 7";
            let server = ModelServer::start(vec![
                Turn::ToolCalls(vec![
                    task("c1", "Wait for B", "CHILD-A: wait", "general"),
                    task("c2", "Start B", "CHILD-B: start", "general"),
                ]),
                Turn::text("both finished"),
            ]);
            server.route(
                "CHILD-A",
                vec![
                    Turn::tool_call(
                        "a1",
                        "bash",
                        &json!({"command": wait, "description": "wait for B"}).to_string(),
                    ),
                    Turn::text("A saw B"),
                ],
            );
            server.route(
                "CHILD-B",
                vec![
                    Turn::tool_call(
                        "b1",
                        "bash",
                        &json!({"command": "touch b-started", "description": "mark"}).to_string(),
                    ),
                    Turn::text("B done"),
                ],
            );
            let runner = graph_runner(&t, &server, options());
            let ran = run_in(&t, &runner, SessionTarget::New, "both", Default::default()).await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let store = store(&t);
            let kids = children(&store, &ran.session_id);
            assert_eq!(kids.len(), 2);
            let a = kids
                .iter()
                .find(|k| k.title.starts_with("Wait for B"))
                .unwrap();
            let a_bash = tool_parts(&store, &a.id);
            assert_eq!(a_bash[0]["state"]["status"], "completed");
            assert_eq!(a_bash[0]["state"]["metadata"]["exit"], 0, "{}", a_bash[0]);
            let parts = tool_parts(&store, &ran.session_id);
            assert!(output(&parts[0]).contains("A saw B"));
            assert!(output(&parts[1]).contains("B done"));
            // The two children's lifetimes overlap.
            let span = |id: &str| {
                let events = store.events_since(id, 0).unwrap();
                (events[0].created_ms, events.last().unwrap().created_ms)
            };
            let (a_start, a_end) = span(&a.id);
            let b = kids.iter().find(|k| k.id != a.id).unwrap();
            let (b_start, b_end) = span(&b.id);
            assert!(
                a_start <= b_end && b_start <= a_end,
                "A {a_start}..{a_end}, B {b_start}..{b_end}"
            );
        })
        .await;
}

#[tokio::test]
async fn cancelling_the_parent_cancels_the_child() {
    instance()
        .run(|t| async move {
            let server = ModelServer::start(vec![Turn::ToolCalls(vec![task(
                "c1",
                "Hang around",
                "CHILD-H: wait forever",
                "general",
            )])]);
            server.route("CHILD-H", vec![Turn::Hang]);
            let runner = graph_runner(&t, &server, options());
            let cancel = CancellationToken::new();
            let stop = async {
                poll_with_timeout("the child's model request", LIMIT, || async {
                    (server.requests().len() >= 2).then_some(())
                })
                .await;
                cancel.cancel();
            };
            let (ran, ()) = tokio::join!(
                run_in(&t, &runner, SessionTarget::New, "go", cancel.clone()),
                stop
            );
            assert_eq!(ran.report.outcome, RunOutcome::Cancelled);
            let store = store(&t);
            let kids = children(&store, &ran.session_id);
            assert_eq!(kids.len(), 1);
            let child_errors: Vec<Value> = store
                .events_since(&kids[0].id, 0)
                .unwrap()
                .into_iter()
                .filter(|e| e.kind == "session.error")
                .map(|e| e.data["error"]["name"].clone())
                .collect();
            assert_eq!(child_errors, [json!("MessageAbortedError")]);
            poll_with_timeout("the child's request to be dropped", LIMIT, || async {
                (server.hangs_released() >= 1).then_some(())
            })
            .await;
        })
        .await;
}

#[tokio::test]
async fn a_failing_child_comes_back_as_an_error_block() {
    instance()
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::ToolCalls(vec![task("c1", "Break", "CHILD-F: fail", "general")]),
                Turn::text("recovered"),
            ]);
            server.route(
                "CHILD-F",
                vec![Turn::Status(
                    400,
                    r#"{"error":{"message":"the script refuses"}}"#.into(),
                )],
            );
            let runner = graph_runner(&t, &server, options());
            let ran = run_in(&t, &runner, SessionTarget::New, "try", Default::default()).await;
            assert_eq!(
                ran.report.outcome,
                RunOutcome::Completed,
                "the parent goes on"
            );
            let store = store(&t);
            let child = &children(&store, &ran.session_id)[0];
            let parts = tool_parts(&store, &ran.session_id);
            assert_eq!(parts[0]["state"]["status"], "error");
            let error = output(&parts[0]);
            assert!(
                error.starts_with(&format!(
                    "<task id=\"{}\" state=\"error\">\n<task_error>\n",
                    child.id
                )),
                "{error}"
            );
            assert!(error.contains("the script refuses"), "{error}");
            assert!(error.ends_with("</task_error>\n</task>"), "{error}");
        })
        .await;
}

#[tokio::test]
async fn task_id_resumes_the_same_child_with_its_history() {
    instance()
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::ToolCalls(vec![task("c1", "Remember", "CHILD-R: remember 42", "general")]),
                Turn::text("first done"),
            ]);
            server.route(
                "CHILD-R",
                vec![Turn::text("noted"), Turn::text("it was 42")],
            );
            let runner = graph_runner(&t, &server, options());
            let first = run_in(&t, &runner, SessionTarget::New, "one", Default::default()).await;
            assert_eq!(first.report.outcome, RunOutcome::Completed);
            let store = store(&t);
            let child = children(&store, &first.session_id)[0].clone();
            let args = json!({"description": "Recall", "prompt": "what was it?",
                              "subagent_type": "general", "task_id": child.id});
            server.push(Turn::tool_call("c2", "task", &args.to_string()));
            server.push(Turn::text("second done"));
            let second = run_in(
                &t,
                &runner,
                SessionTarget::Id(first.session_id.clone()),
                "two",
                Default::default(),
            )
            .await;
            assert_eq!(second.report.outcome, RunOutcome::Completed);
            assert_eq!(children(&store, &first.session_id).len(), 1, "no new child");
            let parts = tool_parts(&store, &first.session_id);
            assert_eq!(
                output(&parts[1]),
                format!(
                    "<task id=\"{}\" state=\"completed\">\n<task_result>\nit was 42\n</task_result>\n</task>",
                    child.id
                )
            );
            assert_eq!(store.messages(&child.id).unwrap().len(), 4);
            // The resumed child's request carried its earlier exchange.
            let resumed = server
                .sent()
                .into_iter()
                .rev()
                .find(|r| format!("{r:?}").contains("what was it?"))
                .unwrap();
            let seen = format!("{resumed:?}");
            assert!(seen.contains("remember 42") && seen.contains("noted"), "{seen}");
        })
        .await;
}

#[tokio::test]
async fn the_description_lists_the_subagents_the_caller_may_start() {
    instance()
        .config(json!({
            "agent": {
                "reviewer": {"description": "Reviews a change and reports problems.", "mode": "subagent"},
                "scout": {"description": "Maps unfamiliar code quickly.", "mode": "all"},
                "solo": {"description": "A primary agent, never a subagent.", "mode": "primary"},
                "hidden": {"description": "Denied to the caller.", "mode": "subagent"},
            },
            "permission": {"task": {"hidden": "deny"}},
        }))
        .run(|t| async move {
            let server = ModelServer::start(vec![]);
            let runner = graph_runner(&t, &server, options());
            let surface = runner.surface().unwrap();
            let task = surface.iter().find(|t| t.id == "task").unwrap();
            let mut settings = insta::Settings::clone_current();
            settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots"));
            settings.set_prepend_module_to_snapshot(false);
            settings.bind(|| insta::assert_snapshot!("task_description", task.description));
            // Stable across calls.
            let again = runner.surface().unwrap();
            let again = again.iter().find(|t| t.id == "task").unwrap();
            assert_eq!(again.description, task.description);
        })
        .await;
}
