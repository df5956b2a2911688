//! The in-process transport: [`Local`]'s calls answer what the routes answer, and its event
//! stream follows the SSE rules: it starts when opened, and opened with a cursor it replays the
//! stored events after it, then goes on live.

use std::sync::Arc;

use serde_json::json;
use strata_protocol::event::SessionStatus;
use strata_protocol::wire::{
    ModelChoice, PermissionReply, PermissionReplyBody, PromptBody, PromptPart, ServerEvent,
    SessionCreateBody,
};
use strata_server::core::Frame;
use strata_server::local::{Local, LocalEvent};
use strata_testkit::model_server::Turn;
use tokio::sync::mpsc::Receiver;

use super::fixture::{MODEL, TURN, server};

fn prompt(text: &str) -> PromptBody {
    PromptBody {
        parts: vec![PromptPart::Text { text: text.into() }],
        model: Some(ModelChoice {
            provider_id: MODEL.0.into(),
            model_id: MODEL.1.into(),
        }),
        agent: None,
        variant: None,
        message_id: None,
        no_reply: None,
    }
}

async fn next(rx: &mut Receiver<LocalEvent>) -> LocalEvent {
    tokio::time::timeout(TURN, rx.recv())
        .await
        .expect("an event in time")
        .expect("the stream stays open")
}

/// Frames until one that `stop` accepts (included).
async fn until(
    rx: &mut Receiver<LocalEvent>,
    stop: impl Fn(&ServerEvent) -> bool,
) -> Vec<Arc<Frame>> {
    let mut out = vec![];
    loop {
        if let LocalEvent::Frame(f) = next(rx).await {
            let done = stop(&f.envelope.event);
            out.push(f);
            if done {
                return out;
            }
        }
    }
}

fn idle(e: &ServerEvent) -> bool {
    matches!(
        e,
        ServerEvent::SessionStatus {
            status: SessionStatus::Idle,
            ..
        }
    )
}

#[tokio::test]
async fn calls_answer_what_the_routes_answer_and_a_turn_asks_through_it() {
    let s = server(vec![
        Turn::tool_call(
            "call_1",
            "bash",
            r#"{"command":"echo approved-run","description":"Print a marker"}"#,
        ),
        Turn::text("All done here."),
    ])
    .config(json!({"permission": {"bash": "ask"}, "sandbox": {"auto_allow": false}}))
    .start()
    .await;
    let local = Local::new(s.core.clone(), s.dir.clone());
    let catalog = local.catalog().await.unwrap();
    assert_eq!(catalog.agents, s.get("/agent").await.body);
    assert_eq!(catalog.providers, s.get("/config/providers").await.body);
    assert_eq!(catalog.config, s.get("/config").await.body);

    let mut events = local.events(None);
    assert_eq!(next(&mut events).await, LocalEvent::Connected);
    let session = local
        .create_session(SessionCreateBody::default())
        .await
        .unwrap();
    local.prompt(&session.id, prompt("go")).await.unwrap();
    let asked = until(&mut events, |e| {
        matches!(e, ServerEvent::PermissionAsked(_))
    })
    .await;
    let ServerEvent::PermissionAsked(request) = &asked.last().unwrap().envelope.event else {
        unreachable!()
    };
    let body = PermissionReplyBody {
        reply: PermissionReply::Once,
        message: None,
    };
    local.reply_permission(&request.id, body).await.unwrap();
    until(&mut events, idle).await;

    let listed = serde_json::to_value(local.sessions().await.unwrap()).unwrap();
    assert_eq!(listed, s.get("/session").await.body);
    let messages = serde_json::to_value(local.messages(&session.id).unwrap()).unwrap();
    assert_eq!(
        messages,
        s.get(&format!("/session/{}/message", session.id))
            .await
            .body
    );
    assert!(messages.to_string().contains("approved-run"));
    assert!(!local.abort(&session.id).unwrap(), "nothing is running");
    let missing = local.abort("ses_missing").unwrap_err().to_string();
    assert!(missing.contains("ses_missing"), "{missing}");
    s.shutdown().await;
}

#[tokio::test]
async fn a_stream_opened_at_a_cursor_replays_what_followed_it() {
    let s = server(vec![
        Turn::tool_call("call_1", "read", r#"{"filePath":"a.txt"}"#),
        Turn::text("All done here."),
    ])
    .file("a.txt", "hello\n")
    .start()
    .await;
    let local = Local::new(s.core.clone(), s.dir.clone());
    let session = local
        .create_session(SessionCreateBody::default())
        .await
        .unwrap();
    let mut live = local.events(None);
    assert_eq!(next(&mut live).await, LocalEvent::Connected);
    local.prompt(&session.id, prompt("go")).await.unwrap();
    let frames = until(&mut live, idle).await;
    let stored: Vec<&Arc<Frame>> = frames.iter().filter(|f| f.cursor.is_some()).collect();
    assert!(stored.len() > 4, "{stored:#?}");
    let cursors: Vec<i64> = stored.iter().filter_map(|f| f.cursor).collect();
    assert!(cursors.windows(2).all(|w| w[0] <= w[1]), "{cursors:?}");

    // Resume from the middle: the stored frames after that cursor come again, in order.
    let at = stored.len() / 2;
    let cursor = stored[at - 1].cursor;
    let mut replay = local.events(cursor);
    assert_eq!(next(&mut replay).await, LocalEvent::Connected);
    let expected: Vec<Frame> = stored[at..].iter().map(|f| (***f).clone()).collect();
    let mut got = vec![];
    while got.len() < expected.len() {
        if let LocalEvent::Frame(f) = next(&mut replay).await {
            got.push((*f).clone());
        }
    }
    // The same events, payloads included: a replay that starts mid-turn still names the prompt
    // each assistant message answers (`parentID`).
    assert_eq!(got, expected);
    let answers = got
        .iter()
        .map(|f| serde_json::to_value(&f.envelope).unwrap())
        .filter(|e| {
            e["type"] == "message.updated" && e["properties"]["info"]["role"] == "assistant"
        })
        .count();
    assert!(answers > 0, "the replay holds an assistant message");
    // The stream ends with the core.
    drop(live);
    s.shutdown().await;
    let ended = tokio::time::timeout(TURN, async { while replay.recv().await.is_some() {} }).await;
    assert!(ended.is_ok(), "the stream outlived the core");
}
