//! The HTTP + SSE transport against a real server on 127.0.0.1: Basic auth, the routes and
//! bodies it sends, a dropped stream resumed with `Last-Event-ID`, and what a one-shot run
//! uses (a session with rules, a prompt that waits for its turn, one session's events).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use strata_protocol::wire::{PermissionRule, SessionCreateBody};
use strata_tui::model::PermissionReply;
use strata_tui::{Client, ClientEvent, HttpClient, HttpOptions, Prompt};

#[derive(Clone, Default)]
struct Seen {
    /// (route, authorization, body) per request; `Last-Event-ID` for streams.
    calls: Arc<Mutex<Vec<(String, String, Value)>>>,
    /// Ends the turn that `POST /session/:id/message` waits for.
    turn_end: Arc<tokio::sync::Notify>,
}

fn frame(id: Option<u64>, seq: u64) -> String {
    let payload = json!({"id": format!("evt_{seq}"), "type": "session.status", "seq": seq,
        "properties": {"sessionID": "ses_1", "status": {"type": "busy"}}});
    let item = json!({"directory": "/p", "payload": payload});
    match id {
        Some(id) => format!("id: {id}\ndata: {item}\n\n"),
        None => format!("data: {item}\n\n"),
    }
}

async fn events(State(seen): State<Seen>, headers: HeaderMap) -> Response {
    let auth = header(&headers, "authorization");
    if auth != "Basic b3BlbmNvZGU6c2VjcmV0" {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let last = header(&headers, "last-event-id");
    seen.calls
        .lock()
        .unwrap()
        .push(("stream".into(), last.clone(), Value::Null));
    // First connection: three events, then the stream ends. After that: from the cursor on.
    let body = if last.is_empty() {
        format!(
            ": hello\n\n{}{}{}",
            frame(Some(101), 1),
            frame(Some(102), 2),
            frame(Some(103), 3)
        )
    } else {
        let next: u64 = last.parse::<u64>().unwrap() - 99;
        format!("{}{}", frame(Some(100 + next), next), frame(None, next + 1))
    };
    let stream = futures::stream::iter(vec![Ok::<_, std::io::Error>(body)]);
    let mut resp = Response::new(Body::from_stream(stream));
    resp.headers_mut()
        .insert("content-type", "text/event-stream".parse().unwrap());
    resp
}

fn header(h: &HeaderMap, k: &str) -> String {
    h.get(k)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

async fn record(
    State(seen): State<Seen>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: String,
) -> Response {
    seen.push(id, header(&headers, "authorization"), &body);
    axum::Json(json!(true)).into_response()
}

impl Seen {
    fn push(&self, route: String, auth: String, body: &str) {
        let body: Value = serde_json::from_str(body).unwrap_or(Value::Null);
        self.calls.lock().unwrap().push((route, auth, body));
    }
}

/// `/event`: one project's items, unwrapped, of two sessions.
async fn project_events() -> Response {
    let item = |sid: &str, seq: u64| {
        let payload = json!({"id": format!("evt_{sid}_{seq}"), "type": "session.status",
            "seq": seq, "properties": {"sessionID": sid, "status": {"type": "busy"}}});
        format!("data: {payload}\n\n")
    };
    let connected = json!({"id": "evt_0", "type": "server.connected", "properties": {}});
    let body = format!(
        "data: {connected}\n\n{}{}{}",
        item("ses_2", 1),
        item("ses_1", 1),
        item("ses_1", 2)
    );
    let mut resp = Response::new(Body::from(body));
    resp.headers_mut()
        .insert("content-type", "text/event-stream".parse().unwrap());
    resp
}

/// `POST /session/:id/message`: answers once the test ends the turn.
async fn prompt_and_wait(
    State(seen): State<Seen>,
    Path(id): Path<String>,
    body: String,
) -> Response {
    seen.push(format!("message {id}"), String::new(), &body);
    seen.turn_end.notified().await;
    axum::Json(json!({"info": {"id": "msg_2", "sessionID": id, "role": "assistant"}, "parts": []}))
        .into_response()
}

async fn new_session(State(seen): State<Seen>, body: String) -> Response {
    seen.push("session".into(), String::new(), &body);
    axum::Json(json!({"id": "ses_new", "directory": "/p", "time": {"created": 1, "updated": 1}}))
        .into_response()
}

async fn serve() -> (String, Seen) {
    let seen = Seen::default();
    let app = Router::new()
        .route("/global/event", get(events))
        .route("/event", get(project_events))
        .route("/session", post(new_session))
        .route("/session/{id}/message", post(prompt_and_wait))
        .route("/session/{id}/prompt_async", post(record))
        .route("/permission/{id}/reply", post(record))
        .route("/question/{id}/reply", post(record))
        .route("/session/{id}", get(|Path(id): Path<String>| async move {
            if id == "ses_missing" {
                (StatusCode::NOT_FOUND, axum::Json(json!({"name": "NotFoundError", "data": {"message": "Session not found: ses_missing"}}))).into_response()
            } else {
                axum::Json(json!({"id": id, "title": "T", "directory": "/p", "time": {"created": 1, "updated": 2}})).into_response()
            }
        }))
        .route("/session/{id}/message", get(|| async {
            axum::Json(json!([{"info": {"id": "msg_1", "sessionID": "ses_1", "role": "user", "time": {"created": 1}},
                "parts": [{"id": "prt_1", "sessionID": "ses_1", "messageID": "msg_1", "type": "text", "text": "hi"}]}]))
        }))
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), seen)
}

fn client(url: &str, password: Option<&str>) -> HttpClient {
    let mut opts = HttpOptions::new(url);
    opts.password = password.map(str::to_string);
    opts.backoff = Duration::from_millis(5);
    HttpClient::new(opts).unwrap()
}

async fn next(rx: &mut tokio::sync::mpsc::Receiver<ClientEvent>) -> ClientEvent {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("an event within 10 s")
        .expect("stream open")
}

fn seq(e: &ClientEvent) -> Option<u64> {
    match e {
        ClientEvent::Event(env) => strata_tui::event::seq(env),
        _ => None,
    }
}

#[tokio::test]
async fn a_dropped_stream_resumes_from_the_last_cursor() {
    let (url, seen) = serve().await;
    let mut rx = client(&url, Some("secret")).events();
    assert_eq!(next(&mut rx).await, ClientEvent::Connected);
    let got: Vec<Option<u64>> = vec![
        seq(&next(&mut rx).await),
        seq(&next(&mut rx).await),
        seq(&next(&mut rx).await),
    ];
    assert_eq!(got, [Some(1), Some(2), Some(3)]);
    assert!(matches!(
        next(&mut rx).await,
        ClientEvent::Disconnected { attempt: 1, .. }
    ));
    assert_eq!(next(&mut rx).await, ClientEvent::Connected);
    assert_eq!(seq(&next(&mut rx).await), Some(4));
    assert_eq!(seq(&next(&mut rx).await), Some(5));
    let streams: Vec<String> = seen
        .calls
        .lock()
        .unwrap()
        .iter()
        .filter(|c| c.0 == "stream")
        .map(|c| c.1.clone())
        .collect();
    assert_eq!(streams[..2], ["".to_string(), "103".to_string()]);
}

#[tokio::test]
async fn a_wrong_password_is_reported_and_retried() {
    let (url, _) = serve().await;
    let mut rx = client(&url, Some("wrong")).events();
    let ClientEvent::Disconnected { attempt, error } = next(&mut rx).await else {
        panic!("connected without auth")
    };
    assert_eq!(attempt, 1);
    assert!(error.contains("401"), "{error}");
}

#[tokio::test]
async fn requests_carry_auth_and_opencode_shaped_bodies() {
    let (url, seen) = serve().await;
    let c = client(&url, Some("secret"));
    let model = strata_tui::model::ModelChoice {
        provider_id: "mock".into(),
        model_id: "mock".into(),
    };
    c.prompt(
        "ses_1",
        Prompt {
            text: "hi".into(),
            agent: "build".into(),
            model: Some(model),
        },
    )
    .await
    .unwrap();
    c.reply_permission(
        "per_1",
        PermissionReply::Reject,
        Some("not that file".into()),
    )
    .await
    .unwrap();
    c.reply_question("que_1", vec![vec!["A".into()]])
        .await
        .unwrap();
    let calls = seen.calls.lock().unwrap().clone();
    assert_eq!(calls[0].1, "Basic b3BlbmNvZGU6c2VjcmV0");
    assert_eq!(
        calls[0].2,
        json!({"parts": [{"type": "text", "text": "hi"}], "agent": "build",
        "model": {"providerID": "mock", "modelID": "mock"}})
    );
    assert_eq!(
        calls[1].2,
        json!({"reply": "reject", "message": "not that file"})
    );
    assert_eq!(calls[2].2, json!({"answers": [["A"]]}));
    let snap = c.snapshot("ses_1").await.unwrap();
    assert_eq!(snap.messages.len(), 1);
    assert!(snap.todos.is_empty(), "a missing todo route is tolerated");
    let err = c.snapshot("ses_missing").await.unwrap_err();
    assert!(
        err.to_string().contains("Session not found: ses_missing"),
        "{err}"
    );
}

#[tokio::test]
async fn a_session_is_created_with_its_permission_rules() {
    let (url, seen) = serve().await;
    let body = SessionCreateBody {
        permission: vec![PermissionRule {
            permission: "question".into(),
            pattern: "*".into(),
            action: "deny".into(),
        }],
        ..SessionCreateBody::default()
    };
    let session = client(&url, None).create_session_with(&body).await.unwrap();
    assert_eq!(session.id, "ses_new");
    let calls = seen.calls.lock().unwrap().clone();
    assert_eq!(
        calls[0].2,
        json!({"permission": [{"permission": "question", "pattern": "*", "action": "deny"}]})
    );
}

#[tokio::test]
async fn a_waiting_prompt_returns_when_its_turn_ends() {
    let (url, seen) = serve().await;
    let c = client(&url, None);
    let prompt = Prompt {
        text: "hi".into(),
        ..Prompt::default()
    };
    let waiting = tokio::spawn(async move { c.prompt_and_wait("ses_1", prompt).await });
    let posted = || {
        seen.calls
            .lock()
            .unwrap()
            .iter()
            .any(|c| c.0 == "message ses_1")
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !posted() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the prompt was not posted"
        );
        tokio::task::yield_now().await;
    }
    assert!(!waiting.is_finished(), "returned before the turn ended");
    seen.turn_end.notify_one();
    let answered = tokio::time::timeout(Duration::from_secs(10), waiting).await;
    answered
        .expect("an answer once the turn ended")
        .unwrap()
        .unwrap();
    let calls = seen.calls.lock().unwrap().clone();
    assert_eq!(
        calls[0].2,
        json!({"parts": [{"type": "text", "text": "hi"}]})
    );
}

#[tokio::test]
async fn one_session_s_events_come_from_the_project_stream() {
    let (url, _) = serve().await;
    let mut rx = client(&url, None).session_events("ses_1");
    assert_eq!(next(&mut rx).await, ClientEvent::Connected);
    let mut got = vec![];
    for _ in 0..2 {
        let ClientEvent::Event(env) = next(&mut rx).await else {
            panic!("not an event")
        };
        got.push((env.event.session_id().map(str::to_string), env.id));
    }
    let ses_1 = Some("ses_1".to_string());
    assert_eq!(
        got,
        [
            (ses_1.clone(), "evt_ses_1_1".to_string()),
            (ses_1, "evt_ses_1_2".to_string())
        ]
    );
}
