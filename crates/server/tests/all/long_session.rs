//! A long session (2,000 messages written through the store) through
//! `GET /session/:id/message`: `?limit=N` answers the newest N in order with the cursor for
//! the ones before (`X-Next-Cursor`, `Link`), the cursors walk back through the whole list,
//! the unpaged list (streamed a chunk at a time) is that same list, and a cursor that is not
//! one is refused.

use axum::http::StatusCode;
use serde_json::{Value, json};
use strata_agent::store::Role;

use crate::fixture::server;

const EXCHANGES: usize = 1_000;

fn ids(list: &[Value]) -> Vec<&str> {
    list.iter()
        .map(|m| m["info"]["id"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_long_session_pages_back_from_the_newest_and_streams_whole() {
    let s = server(vec![]).start().await;
    let sid = s.session().await;
    let store = s.core.store();
    let mut written = Vec::new();
    for i in 0..EXCHANGES {
        let user = store
            .append_message(
                &sid,
                Role::User,
                json!({"agent": "build", "time": {"created": i}}),
            )
            .unwrap();
        store
            .upsert_part(
                &sid,
                &user.id,
                None,
                "text",
                json!({"text": format!("question {i}")}),
            )
            .unwrap();
        let answer =
            json!({"agent": "build", "providerID": "openai", "modelID": "m", "finish": "stop"});
        let reply = store.append_message(&sid, Role::Assistant, answer).unwrap();
        let text = json!({"text": format!("answer {i}"), "time": {"start": 1, "end": 2}});
        store
            .upsert_part(&sid, &reply.id, None, "text", text)
            .unwrap();
        written.extend([user.id, reply.id]);
    }

    let all = s.get(&format!("/session/{sid}/message")).await;
    assert_eq!(all.status, StatusCode::OK);
    assert!(all.headers.get("x-next-cursor").is_none());
    let all = all.body.as_array().unwrap().clone();
    assert_eq!(ids(&all), written, "every message, in order");
    for pair in all.chunks(2) {
        assert_eq!(pair[1]["info"]["parentID"], pair[0]["info"]["id"]);
        assert_eq!(pair[1]["parts"][0]["messageID"], pair[1]["info"]["id"]);
    }

    // An odd page size: a page may start with an assistant message, which still names the
    // prompt it answers (from before the page).
    let limit = 151;
    let newest = s
        .get(&format!("/session/{sid}/message?limit={limit}"))
        .await;
    assert_eq!(newest.status, StatusCode::OK);
    assert_eq!(
        newest.body.as_array().unwrap()[..],
        all[all.len() - limit..]
    );
    let cursor = newest.headers["x-next-cursor"]
        .to_str()
        .unwrap()
        .to_string();
    let link = newest.headers["link"].to_str().unwrap();
    assert_eq!(
        link,
        format!("</session/{sid}/message?limit={limit}&before={cursor}>; rel=\"next\"")
    );

    // Walking the cursors back gives the whole list, each message once.
    let mut pages = vec![newest.body.as_array().unwrap().clone()];
    let mut next = Some(cursor);
    while let Some(before) = next {
        let page = s
            .get(&format!(
                "/session/{sid}/message?limit={limit}&before={before}"
            ))
            .await;
        assert_eq!(page.status, StatusCode::OK, "{page:?}");
        next = page
            .headers
            .get("x-next-cursor")
            .map(|c| c.to_str().unwrap().to_string());
        pages.push(page.body.as_array().unwrap().clone());
    }
    assert_eq!(pages.len(), (2 * EXCHANGES).div_ceil(limit));
    let walked: Vec<Value> = pages.into_iter().rev().flatten().collect();
    assert_eq!(walked, all);

    // One message alone is what the list shows of it.
    let one = s
        .get(&format!("/session/{sid}/message/{}", written[1001]))
        .await;
    assert_eq!(one.body, all[1001]);

    let bad = s
        .get(&format!(
            "/session/{sid}/message?limit=5&before=msg_unknown"
        ))
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST, "{bad:?}");
    assert!(
        bad.body["data"]["message"]
            .as_str()
            .unwrap()
            .contains("X-Next-Cursor")
    );
}

#[tokio::test]
async fn an_empty_session_lists_no_messages_streamed_or_paged() {
    let s = server(vec![]).start().await;
    let sid = s.session().await;
    for path in ["", "?limit=10"] {
        let list = s.get(&format!("/session/{sid}/message{path}")).await;
        assert_eq!(list.status, StatusCode::OK);
        assert_eq!(list.body, json!([]));
        assert!(list.headers.get("x-next-cursor").is_none());
    }
    let missing = s.get("/session/ses_missing/message").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}
