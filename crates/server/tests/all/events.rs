//! Turns and their events: SSE framing and order, replay with `Last-Event-ID`, slow clients,
//! per-session queues, aborts, and turns that outlive their client.

use axum::http::StatusCode;
use serde_json::json;
use strata_protocol::wire::ServerEvent;
use strata_testkit::model_server::Turn;
use strata_testkit::poll_with_timeout;

use super::fixture::{Server, TURN, idle, kind, server};

#[tokio::test]
async fn a_turn_streams_its_events_in_order_with_cursors() {
    let s = server(vec![
        Turn::tool_call("call_1", "read", r#"{"filePath":"a.txt"}"#),
        Turn::text("All done here."),
    ])
    .file("a.txt", "hello\n")
    .start()
    .await;
    let id = s.session().await;
    let mut sse = s.sse("/event", None).await;
    let first = sse.next(TURN).await.unwrap();
    assert_eq!((first.0, kind(&first.1)), (None, "server.connected"));
    let a = s
        .post(&format!("/session/{id}/prompt_async"), Server::prompt("go"))
        .await;
    assert_eq!(a.status, StatusCode::NO_CONTENT);
    let frames = sse.until(TURN, idle).await;
    let kinds: Vec<&str> = frames.iter().map(|f| kind(&f.1)).collect();
    let pos = |k: &str| {
        kinds
            .iter()
            .position(|x| *x == k)
            .unwrap_or_else(|| panic!("{k} in {kinds:?}"))
    };
    assert!(pos("session.status") < pos("message.part.delta"));
    assert!(pos("message.part.delta") < kinds.len() - 1);
    let tool_done = frames.iter().any(|f| {
        f.1["properties"]["part"]["tool"] == "read"
            && f.1["properties"]["part"]["state"]["status"] == "completed"
    });
    assert!(tool_done, "{kinds:?}");
    // Stored frames carry growing cursors and per-session seqs; live ones neither.
    let stored: Vec<_> = frames
        .iter()
        .filter_map(|f| f.0.map(|c| (c, f.1["seq"].as_i64().unwrap())))
        .collect();
    assert!(
        stored
            .windows(2)
            .all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1),
        "{stored:?}"
    );
    for f in &frames {
        assert_eq!(f.0.is_some(), f.1.get("seq").is_some(), "{:?}", f.1);
        // Every item reads as a typed event.
        serde_json::from_value::<strata_protocol::wire::Envelope>(f.1.clone()).unwrap();
    }
    // The global stream wraps the same items with their directory.
    let mut global = s.sse("/global/event", Some(0)).await;
    global.next(TURN).await.unwrap();
    let (_, item) = global.next(TURN).await.unwrap();
    assert_eq!(item["directory"], s.dir.to_string_lossy().as_ref());
    assert_eq!(item["payload"]["type"], "session.created");
    s.shutdown().await;
}

#[tokio::test]
async fn a_reconnecting_client_gets_every_missed_event_once() {
    let s = server(vec![
        Turn::tool_call("call_1", "read", r#"{"filePath":"a.txt"}"#),
        Turn::tool_call("call_2", "read", r#"{"filePath":"a.txt"}"#),
        Turn::text("Done."),
    ])
    .file("a.txt", "hello\n")
    .start()
    .await;
    let id = s.session().await;
    let mut sse = s.sse("/global/event", None).await;
    sse.next(TURN).await.unwrap();
    s.post(&format!("/session/{id}/prompt_async"), Server::prompt("go"))
        .await;
    // Read a few stored events, then drop the connection mid-turn.
    let mut seen = Vec::new();
    while seen.len() < 4 {
        let (cursor, item) = sse.next(TURN).await.unwrap();
        if let Some(c) = cursor {
            seen.push((c, item));
        }
    }
    drop(sse);
    let last = seen.last().unwrap().0;
    let mut again = s.sse("/global/event", Some(last)).await;
    again.next(TURN).await.unwrap();
    let rest = again.until(TURN, |i| idle(&i["payload"])).await;
    seen.extend(rest.into_iter().filter_map(|(c, i)| c.map(|c| (c, i))));
    // Compare with a full replay from the start: same items, none lost or repeated.
    let mut full = s.sse("/global/event", Some(0)).await;
    full.next(TURN).await.unwrap();
    let all: Vec<_> = full
        .until(TURN, |i| idle(&i["payload"]))
        .await
        .into_iter()
        .filter_map(|(c, i)| c.map(|c| (c, i)))
        .collect();
    let all: Vec<_> = all.into_iter().filter(|(c, _)| *c >= seen[0].0).collect();
    let ids = |v: &[(i64, serde_json::Value)]| -> Vec<String> {
        v.iter()
            .map(|(_, i)| format!("{}/{}", i["payload"]["id"], i["payload"]["type"]))
            .collect()
    };
    assert_eq!(ids(&seen), ids(&all));
    s.shutdown().await;
}

#[tokio::test]
async fn a_client_that_falls_behind_is_dropped_and_resumes_with_its_cursor() {
    let s = server(vec![]).start().await;
    let id = s.session().await;
    let mut slow = s
        .core
        .subscribe(strata_server::core::EventFilter::All, None);
    // Registered (nothing arrives yet), then never read while the events pile up.
    let nothing = tokio::time::timeout(std::time::Duration::from_millis(50), slow.next()).await;
    assert!(nothing.is_err());
    let total = strata_server::core::hub::CLIENT_QUEUE + 200;
    for n in 0..total {
        s.core
            .store()
            .record_event(
                &id,
                "todo.updated",
                json!({"sessionID": id, "todos": [], "n": n}),
            )
            .unwrap();
    }
    // A fast client is not held back by the slow one.
    let mut fast = s
        .core
        .subscribe(strata_server::core::EventFilter::All, Some(0));
    let mut fast_count = 0;
    while fast_count < total {
        let f = tokio::time::timeout(TURN, fast.next())
            .await
            .unwrap()
            .unwrap();
        if matches!(f.envelope.event, ServerEvent::TodoUpdated { .. }) {
            fast_count += 1;
        }
    }
    let mut received = 0;
    let mut last = 0;
    while let Some(frame) = tokio::time::timeout(TURN, slow.next()).await.unwrap() {
        received += 1;
        last = frame.cursor.unwrap();
    }
    assert!(received < total, "the slow client should have been dropped");
    let mut resumed = s
        .core
        .subscribe(strata_server::core::EventFilter::All, Some(last));
    let mut rest = 0;
    while received + rest < total {
        let f = tokio::time::timeout(TURN, resumed.next())
            .await
            .unwrap()
            .unwrap();
        assert!(f.cursor.unwrap() > last);
        rest += 1;
    }
    s.shutdown().await;
}

#[tokio::test]
async fn prompts_queue_per_session_and_sessions_run_concurrently() {
    let s = server(vec![Turn::Hang, Turn::text("second"), Turn::text("other")])
        .start()
        .await;
    let a = s.session().await;
    let b = s.session().await;
    s.post(&format!("/session/{a}/prompt_async"), Server::prompt("one"))
        .await;
    poll_with_timeout("the first turn to call the model", TURN, || async {
        (s.model.recorded().len() == 1).then_some(())
    })
    .await;
    s.post(&format!("/session/{a}/prompt_async"), Server::prompt("two"))
        .await;
    let status = s.get("/session/status").await;
    assert_eq!(status.body, json!({ a.clone(): {"type": "busy"} }));
    // Another session is not held up by the busy one.
    let other = s
        .post(&format!("/session/{b}/message"), Server::prompt("three"))
        .await;
    assert_eq!(other.status, StatusCode::OK);
    // A shell request on the busy session is refused.
    let shell = s
        .post(
            &format!("/session/{a}/shell"),
            json!({"command": "ls", "agent": "build"}),
        )
        .await;
    assert_eq!(shell.status, StatusCode::CONFLICT);
    assert_eq!(shell.body["name"], "SessionBusyError");
    // Abort the hanging turn; the queued one runs next.
    assert_eq!(
        s.post(&format!("/session/{a}/abort"), json!({})).await.body,
        json!(true)
    );
    poll_with_timeout("both turns of the session to end", TURN, || async {
        (s.get("/session/status").await.body == json!({})).then_some(())
    })
    .await;
    let messages = s.get(&format!("/session/{a}/message")).await.body;
    let users: Vec<_> = messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["info"]["role"] == "user")
        .map(|m| m["parts"][0]["text"].clone())
        .collect();
    assert_eq!(users, vec![json!("one"), json!("two")]);
    let aborted = messages
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["info"]["error"]["name"] == "MessageAbortedError");
    let errors = s.core.store().events_since(&a, 0).unwrap();
    assert!(
        aborted
            || errors
                .iter()
                .any(|e| e.data["error"]["name"] == "MessageAbortedError"),
        "the first turn ends as aborted"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn a_turn_goes_on_when_its_client_disconnects() {
    let s = server(vec![Turn::text("finished anyway")]).start().await;
    let id = s.session().await;
    let app = s.app.clone();
    let uri = format!("/session/{id}/message");
    let body = Server::prompt("go").to_string();
    let client = tokio::spawn(async move {
        use tower::ServiceExt;
        let req = axum::http::Request::post(uri)
            .header("content-type", "application/json")
            .body(axum::body::Body::from(body))
            .unwrap();
        app.oneshot(req).await
    });
    poll_with_timeout("the turn to start", TURN, || async {
        s.core.is_busy(&id).then_some(())
    })
    .await;
    // The client goes away mid-turn.
    client.abort();
    poll_with_timeout("the turn to finish without its client", TURN, || async {
        let m = s.get(&format!("/session/{id}/message")).await.body;
        let texts = m.to_string();
        texts.contains("finished anyway").then_some(())
    })
    .await;
    s.shutdown().await;
}
