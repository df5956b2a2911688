//! The session tools in the agent loop: `todowrite` keeps the list in the session database
//! with its `todo.updated` event (the agent's own graph), and `question` waits for the
//! front-end's answer, stops the turn when dismissed, and is not offered without a person to
//! answer it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail by panicking

use crate::loop_support::*;
use serde_json::{Value, json};
use strata_agent::session::{RunOptions, RunOutcome};
use strata_agent::store::{Store, kinds};
use strata_registry::rules::non_interactive_rules;
use strata_services::question::{Question, QuestionEvent};
use strata_services::todo::{Todo, Todos};
use strata_testkit::TestInstance;
use strata_testkit::model_server::{ModelServer, Turn};

fn todos_args(items: &[(&str, &str, &str)]) -> String {
    let todos: Vec<Value> = items
        .iter()
        .map(|(c, s, p)| json!({"content": c, "status": s, "priority": p}))
        .collect();
    json!({ "todos": todos }).to_string()
}

#[tokio::test]
async fn todowrite_keeps_the_list_in_the_session_with_an_event_the_front_end_hears() {
    TestInstance::builder()
        .graph(strata_agent::production())
        .run(|t| async move {
            assert!(
                !t.get::<Todos>().is_throwaway(),
                "the agent's graph stores lists"
            );
            let first = todos_args(&[
                ("Plan", "in_progress", "high"),
                ("Build", "pending", "medium"),
            ]);
            let second = todos_args(&[
                ("Plan", "completed", "high"),
                ("Build", "in_progress", "medium"),
                ("Test", "pending", "low"),
            ]);
            let server = ModelServer::start(vec![
                Turn::tool_call("c1", "todowrite", &first),
                Turn::tool_call("c2", "todowrite", &second),
                Turn::text("on it"),
            ]);
            let runner = graph_runner(&t, &server, options());
            let ran = run(&t, &runner, "plan and build").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let store = t.get::<Store>();
            let expected = vec![
                Todo::new("Plan", "completed", "high"),
                Todo::new("Build", "in_progress", "medium"),
                Todo::new("Test", "pending", "low"),
            ];
            assert_eq!(store.todos(&ran.session_id).unwrap(), expected);
            assert_eq!(t.get::<Todos>().get(&ran.session_id).unwrap(), expected);

            // A client replaying the events sees the list.
            let events = store.events_since(&ran.session_id, 0).unwrap();
            let updates: Vec<&Value> = events
                .iter()
                .filter(|e| e.kind == kinds::TODO_UPDATED)
                .map(|e| &e.data)
                .collect();
            assert_eq!(updates.len(), 2);
            assert_eq!(updates[1]["sessionID"], ran.session_id.as_str());
            assert_eq!(updates[1]["todos"], json!(expected));
            assert_eq!(updates[0]["todos"][0]["status"], "in_progress");

            let parts = tool_parts(&store, &ran.session_id);
            let state = &parts[1]["state"];
            assert_eq!(state["status"], "completed");
            assert_eq!(state["title"], "2 todos");
            assert_eq!(state["metadata"]["todos"], json!(expected));
            assert!(
                state["metadata"].get("throwaway").is_none(),
                "a stored list is not throwaway: {state}"
            );
            let results = server.sent()[2].results();
            assert_eq!(
                serde_json::from_str::<Value>(&results[1].1).unwrap(),
                json!(expected)
            );
            // The event log has no gap and the front-end heard the todo events in order.
            assert_log_consistent(&store, &ran);
        })
        .await;
}

#[tokio::test]
async fn an_answered_question_goes_back_to_the_model() {
    TestInstance::builder()
        .run(|t| async move {
            let args = json!({"questions": [{
                "question": "Which colour?",
                "header": "Colour",
                "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}],
            }]});
            let server = ModelServer::start(vec![
                Turn::tool_call("c1", "question", &args.to_string()),
                Turn::text("Blue it is."),
            ]);
            let question = t.get::<Question>();
            let mut events = question.subscribe();
            let answerer = tokio::spawn(async move {
                while let Ok(event) = events.recv().await {
                    if let QuestionEvent::Asked(req) = event {
                        question.reply(&req.id, vec![vec!["Blue".into()]]).unwrap();
                    }
                }
            });
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "pick a colour").await;
            answerer.abort();
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert!(server.sent()[0].tools.contains(&"question".to_string()));
            let results = server.sent()[1].results();
            assert!(results[0].1.contains(r#""Which colour?"="Blue""#), "{results:?}");
            let store = store(&t);
            assert_eq!(tool_parts(&store, &ran.session_id)[0]["state"]["title"], "Asked 1 question");
            assert_log_consistent(&store, &ran);
        })
        .await;
}

fn dismissing(t: &TestInstance) -> tokio::task::JoinHandle<()> {
    let question = t.get::<Question>();
    let mut events = question.subscribe();
    tokio::spawn(async move {
        while let Ok(event) = events.recv().await {
            if let QuestionEvent::Asked(req) = event {
                question.reject(&req.id).unwrap();
            }
        }
    })
}

fn ask_once() -> Vec<Turn> {
    let args = json!({"questions": [{
        "question": "Go on?", "header": "Go", "options": [{"label": "Yes", "description": "go"}],
    }]});
    vec![
        Turn::tool_call("c1", "question", &args.to_string()),
        Turn::text("Fine, carrying on."),
    ]
}

#[tokio::test]
async fn a_dismissed_question_stops_the_loop_like_a_refusal() {
    TestInstance::builder()
        .run(|t| async move {
            let answerer = dismissing(&t);
            let server = ModelServer::start(ask_once());
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "ask me").await;
            answerer.abort();
            let RunOutcome::Stopped { reason } = &ran.report.outcome else {
                panic!("expected a stop, got {:?}", ran.report.outcome);
            };
            assert!(reason.contains("dismissed"), "{reason}");
            assert_eq!(server.requests().len(), 1, "no step after the dismissal");
            let store = store(&t);
            assert_eq!(
                tool_parts(&store, &ran.session_id)[0]["state"]["status"],
                "error"
            );
            assert_log_consistent(&store, &ran);
        })
        .await;
    // `experimental.continue_loop_on_deny` keeps the loop going, as for permissions.
    TestInstance::builder()
        .config(json!({"experimental": {"continue_loop_on_deny": true}}))
        .run(|t| async move {
            let answerer = dismissing(&t);
            let server = ModelServer::start(ask_once());
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "ask me").await;
            answerer.abort();
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            assert_eq!(server.requests().len(), 2);
        })
        .await;
}

#[tokio::test]
async fn a_run_without_anyone_to_answer_is_not_offered_question() {
    TestInstance::builder()
        .run(|t| async move {
            let server = ModelServer::start(vec![Turn::text("hi"), Turn::text("hi")]);
            let lonely = RunOptions {
                session_rules: non_interactive_rules(),
                ..options()
            };
            run(&t, &runner(&t, &server, MODEL, lonely), "hello").await;
            run(&t, &runner(&t, &server, MODEL, options()), "hello").await;
            let sent = server.sent();
            let (without, with) = (&sent[0].tools, &sent[1].tools);
            assert!(!without.contains(&"question".to_string()), "{without:?}");
            assert!(with.contains(&"question".to_string()), "{with:?}");
            assert!(without.contains(&"todowrite".to_string()), "{without:?}");
            assert_eq!(with.len(), without.len() + 1);
        })
        .await;
}
