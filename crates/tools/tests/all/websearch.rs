//! `websearch` against a loopback Exa-compatible endpoint (spec §9, §19 websearch): the
//! request, JSON and event-stream answers, errors, empty results, the ask, and when the tool
//! is shown.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Path, RawQuery};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use strata_registry::{SurfaceSpec, ToolRegistry};
use strata_services::config::Config;
use strata_services::flags::RuntimeFlags;
use strata_testkit::{FixtureServer, TestInstance};
use strata_tools::{ToolError, ToolResult};

/// One request as the endpoint saw it.
#[derive(Debug, Clone)]
struct Seen {
    query: Option<String>,
    headers: HeaderMap,
    body: Value,
}

type Log = Arc<Mutex<Vec<Seen>>>;

const RESULTS: &str = "Title: Strata\nURL: https://example.com/strata\nText: A coding agent.";

fn rpc_result(text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": text}]}})
}

/// `/{mode}/mcp` answers the way `mode` says.
async fn endpoint(log: Log) -> FixtureServer {
    let app = Router::new().route(
        "/{mode}/mcp",
        post(
            move |Path(mode): Path<String>,
                  RawQuery(query): RawQuery,
                  headers: HeaderMap,
                  axum::Json(body): axum::Json<Value>| {
                let log = log.clone();
                async move {
                    log.lock().unwrap().push(Seen {
                        query,
                        headers,
                        body,
                    });
                    answer(&mode)
                }
            },
        ),
    );
    FixtureServer::start(app).await.unwrap()
}

fn answer(mode: &str) -> Response {
    let json = |v: Value| axum::Json(v).into_response();
    match mode {
        "json" => json(rpc_result(RESULTS)),
        "sse" => (
            [(header::CONTENT_TYPE, "text/event-stream")],
            format!(
                "event: message\ndata: ping\n\ndata: {}\n\n",
                rpc_result(RESULTS)
            ),
        )
            .into_response(),
        "error" => json(json!({
            "jsonrpc": "2.0", "id": 1,
            "error": {"code": -32602, "message": "numResults is out of range"}
        })),
        "empty" => json(json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}})),
        _ => (StatusCode::SERVICE_UNAVAILABLE, "try later").into_response(),
    }
}

/// An instance whose config points `websearch.url` at `url` (plus `extra` keys), and asks
/// before every search (every tool is allowed by default; asking makes the request visible).
fn configured(url: &str, extra: Value) -> strata_testkit::TestInstanceBuilder {
    let mut section = json!({"url": url});
    if let (Some(s), Some(e)) = (section.as_object_mut(), extra.as_object()) {
        s.extend(e.clone());
    }
    TestInstance::builder()
        .config(json!({"websearch": section, "permission": {"websearch": "ask"}}))
}

async fn search(t: &TestInstance, args: Value) -> Result<ToolResult, ToolError> {
    t.call("websearch", args).await
}

#[tokio::test]
async fn a_json_answer_gives_the_result_text() {
    let log = Log::default();
    let s = endpoint(log.clone()).await;
    configured(&s.url("/json/mcp"), json!({}))
        .run(|t| async move {
            let r = search(&t, json!({"query": "strata agent"})).await.unwrap();
            assert_eq!(r.output, RESULTS);
            assert_eq!(r.title, "Exa web search: strata agent");
            assert_eq!(
                Value::Object(r.metadata),
                json!({"provider": "exa", "truncated": false})
            );
            let seen = log.lock().unwrap().clone();
            assert_eq!(seen.len(), 1);
            insta::assert_json_snapshot!("websearch_request_defaults", seen[0].body);
            assert_eq!(seen[0].query, None, "no key configured, none sent");
            assert_eq!(
                seen[0].headers[header::ACCEPT],
                "application/json, text/event-stream"
            );
            assert!(
                seen[0].headers[header::CONTENT_TYPE]
                    .to_str()
                    .unwrap()
                    .starts_with("application/json")
            );
        })
        .await;
}

#[tokio::test]
async fn given_options_and_the_key_reach_the_endpoint() {
    let log = Log::default();
    let s = endpoint(log.clone()).await;
    configured(&s.url("/json/mcp"), json!({"apiKey": "k 1&2"}))
        .run(|t| async move {
            search(
                &t,
                json!({"query": "q", "numResults": 3, "livecrawl": "preferred",
                       "type": "deep", "contextMaxCharacters": 5000}),
            )
            .await
            .unwrap();
            let seen = log.lock().unwrap().clone();
            assert_eq!(
                seen[0].body["params"]["arguments"],
                json!({"query": "q", "type": "deep", "numResults": 3,
                       "livecrawl": "preferred", "contextMaxCharacters": 5000})
            );
            assert_eq!(seen[0].query.as_deref(), Some("exaApiKey=k+1%262"));
            let asks = t.asked_for("websearch");
            assert_eq!(asks.len(), 1);
            assert_eq!(asks[0].patterns, ["q"]);
            assert_eq!(asks[0].always, ["*"]);
            assert_eq!(
                asks[0].metadata,
                json!({"query": "q", "type": "deep", "numResults": 3, "livecrawl": "preferred",
                       "contextMaxCharacters": 5000, "provider": "exa"})
            );
        })
        .await;
}

#[tokio::test]
async fn an_event_stream_answer_is_read_from_its_data_lines() {
    let s = endpoint(Log::default()).await;
    configured(&s.url("/sse/mcp"), json!({}))
        .run(|t| async move {
            let r = search(&t, json!({"query": "q"})).await.unwrap();
            assert_eq!(r.output, RESULTS);
        })
        .await;
}

#[tokio::test]
async fn a_json_rpc_error_is_a_tool_error_with_its_message() {
    let s = endpoint(Log::default()).await;
    configured(&s.url("/error/mcp"), json!({}))
        .run(|t| async move {
            let err = search(&t, json!({"query": "q"})).await.unwrap_err();
            assert!(matches!(err, ToolError::Model(_)), "{err:?}");
            insta::assert_snapshot!("websearch_rpc_error", err.to_string());
        })
        .await;
}

#[tokio::test]
async fn an_empty_result_says_nothing_was_found() {
    let s = endpoint(Log::default()).await;
    configured(&s.url("/empty/mcp"), json!({}))
        .run(|t| async move {
            let r = search(&t, json!({"query": "q"})).await.unwrap();
            insta::assert_snapshot!("websearch_empty", r.output);
        })
        .await;
}

#[tokio::test]
async fn a_failing_status_is_an_error_that_never_shows_the_key() {
    let s = endpoint(Log::default()).await;
    let url = s.url("/down/mcp");
    configured(&url, json!({"apiKey": "sekrit"}))
        .run(|t| async move {
            let err = search(&t, json!({"query": "q"})).await.unwrap_err();
            let msg = err.to_string();
            assert!(msg.contains("503") && msg.contains(&url), "{msg}");
            assert!(!msg.contains("sekrit"), "{msg}");
        })
        .await;
    // Nothing listening: the connection error names the endpoint, not the key.
    let gone = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/mcp", l.local_addr().unwrap())
    };
    configured(&gone, json!({"apiKey": "sekrit"}))
        .run(|t| async move {
            let msg = search(&t, json!({"query": "q"}))
                .await
                .unwrap_err()
                .to_string();
            assert!(msg.contains(&gone) && !msg.contains("sekrit"), "{msg}");
        })
        .await;
}

#[tokio::test]
async fn bad_arguments_are_named() {
    TestInstance::builder()
        .run(|t| async move {
            for (args, field) in [
                (json!({}), "query"),
                (json!({"query": "q", "type": "slow"}), "type"),
                (json!({"query": "q", "livecrawl": "never"}), "livecrawl"),
                (json!({"query": "q", "numResults": "8"}), "numResults"),
            ] {
                let err = search(&t, args.clone()).await.unwrap_err();
                assert!(
                    matches!(err, ToolError::InvalidArguments { .. }),
                    "{args}: {err}"
                );
                assert!(err.to_string().contains(field), "{args}: {err}");
            }
            assert!(t.asked_for("websearch").is_empty());
        })
        .await;
}

fn shown(t: &TestInstance) -> bool {
    let registry = t.get::<ToolRegistry>();
    let spec = SurfaceSpec {
        model: "anthropic/claude-sonnet-4".into(),
        ruleset: t.ruleset(),
        backends: registry.configured_backends(&t.get::<Config>(), &t.get::<RuntimeFlags>()),
        ..SurfaceSpec::default()
    };
    registry
        .surface(&spec)
        .iter()
        .any(|tool| tool.id == "websearch")
}

#[tokio::test]
async fn shown_only_with_a_backend_configured() {
    TestInstance::builder()
        .run(|t| async move {
            assert!(!shown(&t), "no backend: hidden");
            // Still registered, so `strata tool websearch` can run it.
            assert!(t.get::<ToolRegistry>().get("websearch").is_some());
        })
        .await;
    for config in [
        json!({"websearch": {"enabled": true}}),
        json!({"websearch": {"url": "http://127.0.0.1:9/mcp"}}),
        json!({"websearch": {"apiKey": "k"}}),
    ] {
        TestInstance::builder()
            .config(config.clone())
            .run(|t| async move { assert!(shown(&t), "{config}") })
            .await;
    }
    TestInstance::builder()
        .flags(|f| f.exa_api_key = Some("k".into()))
        .run(|t| async move { assert!(shown(&t), "EXA_API_KEY") })
        .await;
    TestInstance::builder()
        .flags(|f| f.websearch_url = Some("http://127.0.0.1:9/mcp".into()))
        .run(|t| async move { assert!(shown(&t), "STRATA_WEBSEARCH_URL") })
        .await;
    TestInstance::builder()
        .config(json!({"websearch": {"enabled": false, "apiKey": "k"}}))
        .run(|t| async move { assert!(!shown(&t), "switched off") })
        .await;
}

#[tokio::test]
async fn the_description_names_the_current_year() {
    TestInstance::builder()
        .manual_clock(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_780_000_000))
        .run(|t| async move {
            let registry = t.get::<ToolRegistry>();
            let d = &registry.get("websearch").unwrap().description;
            assert!(d.contains("The current year is 2026."), "{d}");
        })
        .await;
}
