//! The Question service: asked, answered, dismissed, cancelled, disposed; events and wire shapes.

use std::time::Duration;

use strata_graph::{Context, Graph, Scope, Tier};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::bus::Bus;
use crate::permission::ToolRef;

const WAIT: Duration = Duration::from_secs(10);

fn info(question: &str, labels: &[&str], multiple: bool) -> QuestionInfo {
    QuestionInfo {
        question: question.into(),
        header: "Pick".into(),
        options: labels
            .iter()
            .map(|l| QuestionOption {
                label: l.to_string(),
                description: format!("about {l}"),
            })
            .collect(),
        multiple: Some(multiple),
        custom: None,
    }
}

fn ask(session: &str) -> AskQuestions {
    AskQuestions {
        session_id: session.into(),
        questions: vec![
            info("Which colour?", &["Red", "Blue"], false),
            info("Which sizes?", &["S", "M", "L"], true),
        ],
        tool: Some(ToolRef {
            message_id: "msg_1".into(),
            call_id: "call_1".into(),
        }),
    }
}

fn spawn_ask(q: &Question, a: AskQuestions) -> JoinHandle<Result<Vec<Answer>, QuestionError>> {
    let q = q.clone();
    tokio::spawn(async move { q.ask(a, CancellationToken::new()).await })
}

async fn next(rx: &mut broadcast::Receiver<QuestionEvent>) -> QuestionEvent {
    tokio::time::timeout(WAIT, rx.recv())
        .await
        .expect("no question event within the timeout")
        .expect("event channel closed")
}

async fn asked(rx: &mut broadcast::Receiver<QuestionEvent>) -> QuestionRequest {
    match next(rx).await {
        QuestionEvent::Asked(r) => r,
        other => panic!("expected asked, got {other:?}"),
    }
}

async fn done<T>(h: JoinHandle<T>) -> T {
    tokio::time::timeout(WAIT, h)
        .await
        .expect("ask did not finish within the timeout")
        .expect("ask task panicked")
}

fn answers(list: &[&[&str]]) -> Vec<Answer> {
    list.iter()
        .map(|a| a.iter().map(|s| s.to_string()).collect())
        .collect()
}

#[tokio::test]
async fn a_question_waits_listed_until_answered_and_the_answers_come_back() {
    let q = Question::new();
    let mut rx = q.subscribe();
    let h = spawn_ask(&q, ask("s1"));
    let r = asked(&mut rx).await;
    assert!(r.id.starts_with("que_"), "{}", r.id);
    assert_eq!(r.session_id, "s1");
    assert_eq!(r.questions, ask("s1").questions);
    assert_eq!(q.pending(), vec![r.clone()]);
    assert!(!h.is_finished());
    let chosen = answers(&[&["Blue"], &["S", "L"]]);
    q.reply(&r.id, chosen.clone()).unwrap();
    assert_eq!(done(h).await.unwrap(), chosen);
    assert_eq!(
        next(&mut rx).await,
        QuestionEvent::Replied {
            session_id: "s1".into(),
            request_id: r.id.clone(),
            answers: chosen,
        }
    );
    assert!(q.pending().is_empty());
    assert_eq!(
        q.reply(&r.id, vec![]).unwrap_err(),
        QuestionError::NotFound { id: r.id.clone() }
    );
}

#[tokio::test]
async fn a_dismissed_question_fails_its_asker_and_only_that_one() {
    let q = Question::new();
    let mut rx = q.subscribe();
    let first = spawn_ask(&q, ask("s1"));
    let a = asked(&mut rx).await;
    let second = spawn_ask(&q, ask("s1"));
    let b = asked(&mut rx).await;
    q.reject(&a.id).unwrap();
    assert_eq!(done(first).await.unwrap_err(), QuestionError::Rejected);
    assert_eq!(
        next(&mut rx).await,
        QuestionEvent::Rejected {
            session_id: "s1".into(),
            request_id: a.id.clone(),
        }
    );
    assert_eq!(q.pending(), vec![b.clone()]);
    q.reply(&b.id, answers(&[&["Red"], &[]])).unwrap();
    done(second).await.unwrap();
    let msg = QuestionError::Rejected.to_string();
    assert!(msg.contains("dismissed"), "{msg}");
    assert!(
        q.reject("que_missing")
            .unwrap_err()
            .to_string()
            .contains("que_missing")
    );
}

#[tokio::test]
async fn cancelling_the_call_withdraws_the_question() {
    let q = Question::new();
    let mut rx = q.subscribe();
    let cancel = CancellationToken::new();
    let asker = q.clone();
    let token = cancel.clone();
    let h = tokio::spawn(async move { asker.ask(ask("s1"), token).await });
    let r = asked(&mut rx).await;
    cancel.cancel();
    assert_eq!(done(h).await.unwrap_err(), QuestionError::Cancelled);
    assert_eq!(
        next(&mut rx).await,
        QuestionEvent::Rejected {
            session_id: "s1".into(),
            request_id: r.id,
        }
    );
    assert!(q.pending().is_empty());
}

#[tokio::test]
async fn dispose_rejects_pending_questions_and_refuses_new_ones() {
    let q = Question::new();
    let mut rx = q.subscribe();
    let h = spawn_ask(&q, ask("s1"));
    asked(&mut rx).await;
    q.dispose();
    assert_eq!(done(h).await.unwrap_err(), QuestionError::Disposed);
    assert!(q.pending().is_empty());
    assert_eq!(
        q.ask(ask("s1"), CancellationToken::new())
            .await
            .unwrap_err(),
        QuestionError::Disposed
    );
}

#[tokio::test]
async fn closing_the_instance_scope_rejects_pending_questions_and_events_reach_the_bus() {
    let graph = Graph::new()
        .with(strata_graph::Node::value(Tier::Global, Bus::new()))
        .with(Question::node());
    let scope = Scope::new();
    let cx = graph.build(&Context::new(), &scope).await.unwrap();
    let mut on_bus = cx.get::<Bus>().unwrap().subscribe::<QuestionEvent>();
    let q = cx.get::<Question>().unwrap();
    let h = spawn_ask(&q, ask("s1"));
    let QuestionEvent::Asked(r) = tokio::time::timeout(WAIT, on_bus.recv())
        .await
        .unwrap()
        .unwrap()
    else {
        panic!("expected question.asked on the Bus");
    };
    scope.close().await;
    assert_eq!(done(h).await.unwrap_err(), QuestionError::Disposed);
    assert!(q.pending().is_empty(), "{r:?} still pending");
}

#[test]
fn the_wire_shapes_follow_the_event_names() {
    let request = QuestionRequest {
        id: "que_1".into(),
        session_id: "ses_1".into(),
        questions: vec![info("Which?", &["A"], false)],
        tool: None,
    };
    let asked = serde_json::to_value(QuestionEvent::Asked(request)).unwrap();
    assert_eq!(asked["type"], "question.asked");
    assert_eq!(asked["sessionID"], "ses_1");
    assert_eq!(asked["questions"][0]["options"][0]["label"], "A");
    assert_eq!(asked["questions"][0]["multiple"], false);
    let replied = serde_json::to_value(QuestionEvent::Replied {
        session_id: "ses_1".into(),
        request_id: "que_1".into(),
        answers: answers(&[&["A"]]),
    })
    .unwrap();
    assert_eq!(replied["type"], "question.replied");
    assert_eq!(replied["requestID"], "que_1");
    assert_eq!(replied["answers"], serde_json::json!([["A"]]));
}
