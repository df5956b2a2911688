//! `GET /session/:id/tools` with the testkit's 120-tool MCP server on loopback HTTP: the
//! built-ins and `tool_search` loaded, the MCP tools deferred and the counts matching the list;
//! after a turn whose `tool_search` selected one, that tool counts as loaded; an unknown
//! session is a 404.

use axum::http::StatusCode;
use serde_json::{Value, json};
use strata_testkit::mcp_many::serve_many_http;
use strata_testkit::model_server::Turn;

use super::fixture::{Server, server};

/// `(id, state)` of each tool the route lists, and the two counts it gives.
async fn tools(s: &Server, id: &str) -> (Vec<(String, String)>, u64, u64) {
    let a = s.get(&format!("/session/{id}/tools")).await;
    assert_eq!(a.status, StatusCode::OK, "{a:?}");
    let listed = a.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let field = |k: &str| t[k].as_str().unwrap().to_string();
            (field("id"), field("state"))
        })
        .collect();
    let count = |k: &str| a.body[k].as_u64().unwrap();
    assert_eq!(a.body["model"], "openai/scripted-model");
    (listed, count("loaded"), count("deferred"))
}

fn in_state<'a>(listed: &'a [(String, String)], state: &str) -> Vec<&'a str> {
    listed
        .iter()
        .filter(|(_, s)| s == state)
        .map(|(id, _)| id.as_str())
        .collect()
}

#[tokio::test]
async fn the_tools_route_counts_loaded_and_deferred_tools_and_follows_tool_search() {
    let mcp = serve_many_http(120, 50).await;
    let select = json!({"query": "select:many_get_payment"}).to_string();
    let s = server(vec![
        Turn::tool_call("c1", "tool_search", &select),
        Turn::text("found it"),
    ])
    .config(
        json!({"mcp": {"many": {"type": "remote", "url": mcp.url("/mcp"),
        "timeout": 10_000}}}),
    )
    .start()
    .await;
    let id = s.session().await;

    let (listed, loaded, deferred) = tools(&s, &id).await;
    let (on, off) = (in_state(&listed, "loaded"), in_state(&listed, "deferred"));
    assert_eq!((on.len(), off.len()), (loaded as usize, deferred as usize));
    // 120 generated tools and `grow`, listed 50 at a time.
    assert_eq!(deferred, 121, "{off:?}");
    assert!(off.iter().all(|t| t.starts_with("many_")), "{off:?}");
    assert!(on.contains(&"read") && on.contains(&"bash"), "{on:?}");
    assert_eq!(on.last(), Some(&"tool_search"), "after the built-ins");
    assert!(!on.iter().any(|t| t.starts_with("many_")), "{on:?}");

    let turn = s
        .post(&format!("/session/{id}/message"), Server::prompt("pay"))
        .await;
    assert_eq!(turn.status, StatusCode::OK, "{turn:?}");
    let (listed, now_loaded, now_deferred) = tools(&s, &id).await;
    assert_eq!((now_loaded, now_deferred), (loaded + 1, deferred - 1));
    let state: Value = json!(listed.iter().find(|(t, _)| t == "many_get_payment"));
    assert_eq!(state, json!(["many_get_payment", "loaded"]));

    let unknown = s.get("/session/ses_nope/tools").await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND, "{unknown:?}");
    s.shutdown().await;
}
