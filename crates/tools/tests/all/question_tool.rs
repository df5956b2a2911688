//! The `question` tool through the real wrapper (spec §11): the question reaches the
//! instance's Question service, the test answers it as a front-end would.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::{Value, json};
use strata_services::question::{Answer, Question, QuestionEvent, QuestionRequest};
use strata_testkit::{TestInstance, await_with_timeout};
use strata_tools::{ToolError, ToolResult};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

const LIMIT: Duration = Duration::from_secs(10);

fn one_question() -> Value {
    json!({"questions": [{
        "question": "What is your favorite animal?",
        "header": "Favorite animal",
        "options": [
            {"label": "Dog", "description": "Loyal and friendly"},
            {"label": "Cat", "description": "Independent"},
        ],
    }]})
}

fn two_questions() -> Value {
    json!({"questions": [
        {
            "question": "Which toppings?",
            "header": "A header of exactly thirty ch",
            "options": [
                {"label": "Cheese", "description": "Classic"},
                {"label": "Olives", "description": "Salty"},
                {"label": "Basil", "description": "Fresh"},
            ],
            "multiple": true,
        },
        {
            "question": "Which crust?",
            "header": "Crust",
            "options": [{"label": "Thin", "description": "Crisp"}],
        },
    ]})
}

/// Starts the call and waits until its question is pending.
async fn ask(
    t: &TestInstance,
    args: Value,
) -> (
    JoinHandle<Result<ToolResult, ToolError>>,
    QuestionRequest,
    broadcast::Receiver<QuestionEvent>,
) {
    let mut events = t.get::<Question>().subscribe();
    let caller = t.clone();
    let call = tokio::spawn(async move { caller.call("question", args).await });
    let asked = await_with_timeout("question.asked", LIMIT, async {
        loop {
            if let QuestionEvent::Asked(r) = events.recv().await.unwrap() {
                return r;
            }
        }
    })
    .await;
    (call, asked, events)
}

async fn result(call: JoinHandle<Result<ToolResult, ToolError>>) -> Result<ToolResult, ToolError> {
    await_with_timeout("the question call", LIMIT, call)
        .await
        .unwrap()
}

fn answers(list: &[&[&str]]) -> Vec<Answer> {
    list.iter()
        .map(|a| a.iter().map(|s| s.to_string()).collect())
        .collect()
}

#[tokio::test]
async fn one_answered_question_comes_back_as_a_sentence_with_a_singular_title() {
    TestInstance::builder()
        .run(|t| async move {
            let (call, asked, _) = ask(&t, one_question()).await;
            assert_eq!(asked.session_id, "ses_test");
            let tool = asked.tool.clone().unwrap();
            assert_eq!(
                (tool.message_id.as_str(), tool.call_id.as_str()),
                ("msg_test", "call_test")
            );
            assert_eq!(asked.questions[0].options[1].label, "Cat");
            assert_eq!(asked.questions[0].multiple, Some(false));
            t.get::<Question>()
                .reply(&asked.id, answers(&[&["Dog"]]))
                .unwrap();
            let r = result(call).await.unwrap();
            insta::assert_snapshot!(
                "question_one_answer",
                format!("title: {}\n---\n{}", r.title, r.output)
            );
            assert_eq!(r.title, "Asked 1 question");
            assert!(
                r.output
                    .contains(r#""What is your favorite animal?"="Dog""#),
                "{}",
                r.output
            );
            assert_eq!(r.metadata["answers"], json!([["Dog"]]));
            assert_eq!(r.metadata["truncated"], false);
            assert!(t.asked().is_empty(), "question asks no permission");
        })
        .await;
}

#[tokio::test]
async fn several_choices_free_text_and_an_unanswered_question() {
    TestInstance::builder()
        .run(|t| async move {
            let (call, asked, _) = ask(&t, two_questions()).await;
            assert!(
                asked.questions[0].is_multiple(),
                "multiple reaches the front-end"
            );
            t.get::<Question>()
                .reply(
                    &asked.id,
                    answers(&[&["Cheese", "Basil"], &["Extra thick, please"]]),
                )
                .unwrap();
            let r = result(call).await.unwrap();
            insta::assert_snapshot!(
                "question_two_answers",
                format!("title: {}\n---\n{}", r.title, r.output)
            );
            assert_eq!(r.title, "Asked 2 questions");
            assert!(
                r.output.contains(
                    r#""Which toppings?"="Cheese, Basil", "Which crust?"="Extra thick, please""#
                ),
                "{}",
                r.output
            );

            let (call, asked, _) = ask(&t, two_questions()).await;
            t.get::<Question>()
                .reply(&asked.id, answers(&[&["Olives"]]))
                .unwrap();
            let r = result(call).await.unwrap();
            insta::assert_snapshot!("question_unanswered", r.output);
            assert!(
                r.output.contains(r#""Which crust?"="(no answer)""#),
                "{}",
                r.output
            );
            assert_eq!(r.metadata["answers"], json!([["Olives"]]));
        })
        .await;
}

#[tokio::test]
async fn a_dismissed_question_is_an_error_that_stops_the_turn() {
    TestInstance::builder()
        .run(|t| async move {
            let (call, asked, mut events) = ask(&t, one_question()).await;
            t.get::<Question>().reject(&asked.id).unwrap();
            let err = result(call).await.unwrap_err();
            assert!(matches!(err, ToolError::Dismissed(_)), "{err:?}");
            assert!(err.stops_turn());
            insta::assert_snapshot!("question_dismissed", err.to_string());
            assert_eq!(
                events.recv().await.unwrap(),
                QuestionEvent::Rejected {
                    session_id: "ses_test".into(),
                    request_id: asked.id,
                }
            );
        })
        .await;
}

#[tokio::test]
async fn disposing_the_instance_rejects_a_pending_question() {
    let t = TestInstance::builder().build().await;
    let (call, _, _) = ask(&t, one_question()).await;
    t.dispose().await;
    let err = result(call).await.unwrap_err();
    assert!(matches!(err, ToolError::Fatal(_)), "{err:?}");
    assert!(err.to_string().contains("instance was closed"), "{err}");
    assert!(t.get::<Question>().pending().is_empty());
}

#[tokio::test]
async fn cancelling_the_call_withdraws_the_question() {
    TestInstance::builder()
        .run(|t| async move {
            let mut events = t.get::<Question>().subscribe();
            let cancel = tokio_util::sync::CancellationToken::new();
            let cx = t.cx().abort(cancel.clone()).build();
            let caller = t.clone();
            let call =
                tokio::spawn(async move { caller.call_with("question", one_question(), cx).await });
            let QuestionEvent::Asked(_) = events.recv().await.unwrap() else {
                panic!("expected question.asked");
            };
            cancel.cancel();
            let err = result(call).await.unwrap_err();
            assert!(matches!(err, ToolError::Cancelled), "{err:?}");
            assert!(t.get::<Question>().pending().is_empty());
        })
        .await;
}

#[tokio::test]
async fn bad_input_is_refused_before_anyone_is_asked() {
    TestInstance::builder()
        .run(|t| async move {
            let bad = [
                (json!({}), "questions"),
                (json!({"questions": [{"header": "h", "options": []}]}), "questions[0].question"),
                (
                    json!({"questions": [{"question": "q", "header": "h", "options": [{"label": "a"}]}]}),
                    "questions[0].options[0]",
                ),
                (
                    json!({"questions": [{"question": "q", "header": "h", "options": [], "multiple": "yes"}]}),
                    "questions[0].multiple",
                ),
            ];
            for (args, field) in bad {
                let err = t.call("question", args.clone()).await.unwrap_err();
                let ToolError::InvalidArguments { tool, detail } = &err else {
                    panic!("{args}: expected invalid arguments, got {err:?}");
                };
                assert_eq!(tool, "question");
                assert!(detail.contains(field), "{args}: {detail}");
            }
            let err = t.call("question", json!({"questions": []})).await.unwrap_err();
            assert!(matches!(err, ToolError::Model(_)), "{err:?}");
            assert!(t.get::<Question>().pending().is_empty());
        })
        .await;
}

#[tokio::test]
async fn the_wire_schema_effects_and_description() {
    TestInstance::builder()
        .run(|t| async move {
            let registry = t.get::<strata_registry::ToolRegistry>();
            let tool = registry.get("question").unwrap();
            let schema = (*tool.schema).clone();
            assert_eq!(schema["required"], json!(["questions"]));
            let item = &schema["properties"]["questions"]["items"];
            assert_eq!(item["required"], json!(["question", "header", "options"]));
            assert_eq!(item["properties"]["multiple"]["type"], "boolean");
            let option = &item["properties"]["options"]["items"];
            assert_eq!(option["required"], json!(["label", "description"]));
            assert!(!schema.to_string().contains("null"), "{schema}");
            insta::assert_snapshot!(
                "schema_question",
                serde_json::to_string_pretty(&schema).unwrap()
            );
            assert_eq!(
                tool.effects,
                strata_tools::Effects {
                    read_only: true,
                    destructive: false,
                    concurrency_safe: false,
                    open_world: false,
                },
                "spec §0.7"
            );
            assert_eq!(
                registry.ids()[1],
                "question",
                "registered right after invalid"
            );
            let d = tool.description.to_lowercase();
            for needle in ["multiple", "recommended", "own"] {
                assert!(d.contains(needle), "description lacks `{needle}`");
            }
        })
        .await;
}
