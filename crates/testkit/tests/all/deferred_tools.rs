//! Deferred tools and `tool_search` (spec §24) in the registry, against the 120-tool fixture
//! over stdio (`strata-mcp-fixture --many 120`): paginated listing read to the end, the
//! threshold and the per-server `defer` modes, the BM25 search and `select:`, deny rules, the
//! order of loaded tools, and `tools/list_changed` reaching the deferred index.

use std::time::Duration;

use serde_json::{Value, json};
use strata_registry::{Deferral, Layout, SurfaceSpec, ToolRegistry};
use strata_testkit::{TestInstance, poll_with_timeout};

const FIXTURE: &str = env!("CARGO_BIN_EXE_strata-mcp-fixture");
const LIMIT: Duration = Duration::from_secs(20);
/// The scripted model's window is unknown, so a 64k window: the threshold is 6,400 tokens.
const WINDOW: u64 = 64_000;

fn many(page: usize, defer: &str) -> Value {
    let command = [FIXTURE, "--many", "120", "--page", &page.to_string()];
    json!({"type": "local", "command": command, "timeout": 10_000, "defer": defer})
}

fn small(defer: &str) -> Value {
    json!({"type": "local", "command": [FIXTURE], "timeout": 10_000, "defer": defer})
}

fn layout(t: &TestInstance, loaded: &[&str]) -> Layout {
    let spec = SurfaceSpec {
        model: "anthropic/claude-sonnet-4".into(),
        ruleset: t.ruleset(),
        ..SurfaceSpec::default()
    };
    let deferral = Deferral {
        context_window: WINDOW,
        loaded: loaded.iter().map(|s| s.to_string()).collect(),
    };
    t.get::<ToolRegistry>().layout(&spec, &deferral)
}

fn ids(tools: &[strata_tools::ErasedTool]) -> Vec<&'static str> {
    tools.iter().map(|t| t.id).collect()
}

async fn search(t: &TestInstance, l: &Layout, query: &str) -> (Vec<String>, String) {
    let tool = l.tools.iter().find(|x| x.id == "tool_search").unwrap();
    let out = tool
        .call(json!({"query": query}).to_string(), t.cx().build())
        .await
        .unwrap();
    let names = out.metadata["loadedTools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    (names, out.output)
}

#[tokio::test]
async fn past_the_threshold_mcp_tools_are_deferred_after_a_paged_listing() {
    TestInstance::builder()
        .config(json!({"mcp": {"many": many(25, "auto")}}))
        .run(|t| async move {
            let l = layout(&t, &[]);
            // 120 tools and `grow`, listed 25 at a time: every page was read.
            assert_eq!(l.deferred.len(), 121, "{:?}", ids(&l.deferred));
            let names = ids(&l.tools);
            assert!(!names.iter().any(|n| n.starts_with("many_")), "{names:?}");
            assert_eq!(names.last(), Some(&"tool_search"), "after the built-ins");
            let line = l.deferred_line().unwrap();
            assert!(
                line.contains("many_list_invoice, many_list_customer,"),
                "{line}"
            );
            assert!(!line.contains('\n'), "one line");
        })
        .await;
    // Nothing deferred: no `tool_search`.
    TestInstance::builder()
        .config(json!({
            "mcp": {"many": many(200, "auto")},
            "tool_surface": {"defer_threshold": 1_000_000},
        }))
        .run(|t| async move {
            let l = layout(&t, &[]);
            assert!(l.deferred.is_empty() && l.deferred_line().is_none());
            let names = ids(&l.tools);
            assert!(!names.contains(&"tool_search"));
            assert_eq!(names.iter().filter(|n| n.starts_with("many_")).count(), 121);
        })
        .await;
}

#[tokio::test]
async fn each_server_can_force_or_forbid_deferral() {
    TestInstance::builder()
        .config(json!({"mcp": {
            "many": many(200, "never"),
            "fix": small("always"),
        }}))
        .run(|t| async move {
            let l = layout(&t, &[]);
            let deferred = ids(&l.deferred);
            assert!(
                deferred.iter().all(|n| n.starts_with("fix_")),
                "{deferred:?}"
            );
            assert!(deferred.contains(&"fix_echo"));
            let names = ids(&l.tools);
            assert_eq!(names.iter().filter(|n| n.starts_with("many_")).count(), 121);
            assert!(names.contains(&"tool_search"));
        })
        .await;
    // A small server alone stays loaded under `auto`.
    TestInstance::builder()
        .config(json!({"mcp": {"fix": small("auto")}}))
        .run(|t| async move {
            let l = layout(&t, &[]);
            assert!(l.deferred.is_empty());
            assert!(ids(&l.tools).contains(&"fix_echo"));
        })
        .await;
}

#[tokio::test]
async fn tool_search_ranks_selects_and_never_returns_a_denied_tool() {
    TestInstance::builder()
        .config(json!({
            "mcp": {"many": many(200, "auto")},
            "permission": {"many_delete_*": "deny"},
        }))
        .run(|t| async move {
            let l = layout(&t, &[]);
            let (found, text) = search(&t, &l, "weather forecast for a city").await;
            assert_eq!(found.len(), 8, "{found:?}");
            assert!(found[0].contains("weather_forecast"), "{found:?}");
            assert!(text.contains("<tool name=\"many_"), "{text}");
            assert!(text.contains("\"weather_forecast_id\""), "{text}");
            let (picked, _) = search(&t, &l, "select:many_get_payment, many_list_ticket").await;
            assert_eq!(picked, ["many_get_payment", "many_list_ticket"]);
            let (none, text) = search(&t, &l, "select:many_nothing").await;
            assert!(none.is_empty());
            assert!(text.contains("many_nothing"), "{text}");
            // `delete_*` is denied: not deferred, not found, not selectable.
            assert!(
                !ids(&l.deferred)
                    .iter()
                    .any(|n| n.starts_with("many_delete"))
            );
            let (found, _) = search(&t, &l, "delete deletes an existing").await;
            assert!(
                !found.iter().any(|n| n.starts_with("many_delete")),
                "{found:?}"
            );
            let (picked, _) = search(&t, &l, "select:many_delete_invoice").await;
            assert!(picked.is_empty());
        })
        .await;
    // `tool_search` itself denied: nothing can load a deferred tool, so nothing is deferred.
    TestInstance::builder()
        .config(json!({
            "mcp": {"many": many(200, "auto")},
            "permission": {"tool_search": "deny"},
        }))
        .run(|t| async move {
            let l = layout(&t, &[]);
            assert!(l.deferred.is_empty());
            assert!(!ids(&l.tools).contains(&"tool_search"));
        })
        .await;
}

#[tokio::test]
async fn loaded_tools_come_last_in_the_order_they_were_loaded() {
    TestInstance::builder()
        .config(json!({"mcp": {"many": many(200, "auto")}}))
        .run(|t| async move {
            let before = ids(&layout(&t, &[]).tools);
            let l = layout(&t, &["many_get_payment", "gone_tool", "many_list_invoice"]);
            let names = ids(&l.tools);
            assert_eq!(names[..before.len()], before[..], "the prefix stays");
            assert_eq!(
                names[before.len()..],
                ["many_get_payment", "many_list_invoice"]
            );
            assert_eq!(l.deferred.len(), 119);
            assert!(l.deferred_tool("many_get_payment").is_none());
            // Loaded tools are not searched again.
            let (found, _) = search(&t, &l, "select:many_get_payment").await;
            assert!(found.is_empty());
        })
        .await;
}

#[tokio::test]
async fn list_changed_reaches_the_deferred_index() {
    TestInstance::builder()
        .config(json!({"mcp": {"many": many(50, "auto")}}))
        .run(|t| async move {
            assert!(layout(&t, &[]).deferred_tool("many_extra_0").is_none());
            t.call("many_grow", json!({})).await.unwrap();
            let l = poll_with_timeout("many_extra_0 after list_changed", LIMIT, || {
                let l = layout(&t, &[]);
                async move { l.deferred_tool("many_extra_0").is_some().then_some(l) }
            })
            .await;
            assert_eq!(l.deferred.len(), 123);
            let (found, _) = search(&t, &l, "tide tables harbour").await;
            assert_eq!(found[..2], ["many_extra_0", "many_extra_1"], "{found:?}");
        })
        .await;
}
