//! Deferred tools in the loop (spec §24), against the testkit's 120-tool MCP server over
//! loopback HTTP: the first request names the deferred tools in one line and sends
//! `tool_search` instead of their schemas; a search loads tools from the next step on, after
//! the others; a direct call of an unloaded deferred tool runs and loads it; a resumed session
//! keeps what it loaded. The figure at the end (`bench/deferral.sh`) prints the first
//! request's tool bytes and estimated tokens with deferral on and off.

use serde_json::{Value, json};
use strata_agent::session::SessionTarget;
use strata_testkit::TestInstance;
use strata_testkit::mcp_many::serve_many_http;
use strata_testkit::model_server::{ModelServer, Turn};
use tokio_util::sync::CancellationToken;

use crate::loop_support::{MODEL, options, run, run_in, runner, services, tool_parts};

const TOOLS: usize = 120;

fn config(url: &str, extra: Value) -> Value {
    let mut c = json!({"mcp": {"many": {"type": "remote", "url": url, "timeout": 10_000}}});
    if let (Some(c), Value::Object(extra)) = (c.as_object_mut(), extra) {
        c.extend(extra);
    }
    c
}

/// Tool names of a request body, any protocol.
fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| {
                    t.pointer("/function/name")
                        .or_else(|| t.get("name"))
                        .and_then(Value::as_str)
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The system prompt of a chat-completions request.
fn system(body: &Value) -> String {
    body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Each request as: the tools after the built-in ones, and the system prompt's last line.
fn render(t: &TestInstance, bodies: &[Value]) -> String {
    let builtin: Vec<String> = services(t)
        .registry
        .ids()
        .into_iter()
        .filter(|id| !id.starts_with("many_"))
        .map(str::to_string)
        .collect();
    let mut out = String::new();
    for (n, body) in bodies.iter().enumerate() {
        let extra: Vec<String> = tool_names(body)
            .into_iter()
            .filter(|name| !builtin.contains(name))
            .collect();
        let sys = system(body);
        let last = sys.lines().last().unwrap_or_default();
        let shown: String = if last.len() > 160 {
            format!("{}… ({} bytes)", &last[..160], last.len())
        } else {
            last.to_string()
        };
        out.push_str(&format!(
            "## request {}\ntools beyond the built-ins: {}\nsystem ends: {shown}\n",
            n + 1,
            extra.join(", ")
        ));
    }
    out
}

#[tokio::test]
async fn a_session_finds_a_deferred_tool_and_calls_it_and_a_resumed_one_keeps_it() {
    let mcp = serve_many_http(TOOLS, 50).await;
    let url = mcp.url("/mcp");
    TestInstance::builder()
        .config(config(&url, json!({})))
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::tool_call("c1", "tool_search", r#"{"query":"weather forecast"}"#),
                Turn::tool_call(
                    "c2",
                    "many_get_weather_forecast",
                    r#"{"weather_forecast_id":"paris"}"#,
                ),
                Turn::text("It will rain."),
                Turn::text("Still loaded."),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "what is the weather in paris?").await;
            assert_eq!(ran.report.steps, 3);
            let parts = tool_parts(&services(&t).store, &ran.session_id);
            let search = &parts[0]["state"];
            assert_eq!(search["status"], "completed", "{search}");
            let loaded = search["metadata"]["loadedTools"].as_array().unwrap();
            assert!(
                loaded.contains(&json!("many_get_weather_forecast")),
                "{loaded:?}"
            );
            assert!(loaded.len() <= 8);
            assert!(
                search["output"]
                    .as_str()
                    .unwrap()
                    .contains("\"weather_forecast_id\""),
                "the full schema comes back"
            );
            assert_eq!(
                parts[1]["state"]["output"],
                r#"get_weather_forecast ran with {"weather_forecast_id":"paris"}"#
            );
            // A resumed session: its first request already carries what the first run loaded.
            run_in(
                &t,
                &runner,
                SessionTarget::Id(ran.session_id.clone()),
                "and tomorrow?",
                CancellationToken::new(),
            )
            .await;
            let bodies = server.requests();
            assert_eq!(bodies.len(), 4);
            let first = tool_names(&bodies[0]);
            assert!(first.contains(&"tool_search".to_string()));
            assert!(!first.iter().any(|n| n.starts_with("many_")), "{first:?}");
            let line = system(&bodies[0]);
            let line = line.lines().last().unwrap();
            assert!(line.starts_with("Deferred tools"), "{line}");
            assert_eq!(
                line.matches("many_").count(),
                TOOLS + 1,
                "one name each, and `grow`"
            );
            // From the step after the search on, the found tools come last, in the search's order.
            let second = tool_names(&bodies[1]);
            let n = second.len();
            assert_eq!(
                second[..n - loaded.len()],
                first[..],
                "the prefix is unchanged"
            );
            let tail: Vec<&str> = second[n - loaded.len()..]
                .iter()
                .map(String::as_str)
                .collect();
            let want: Vec<&str> = loaded.iter().map(|v| v.as_str().unwrap()).collect();
            assert_eq!(tail, want);
            assert_eq!(
                tool_names(&bodies[3]),
                second,
                "the resumed session kept them"
            );
            assert!(!system(&bodies[1]).contains("many_get_weather_forecast,"));
            let mut settings = insta::Settings::clone_current();
            settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots"));
            settings.set_prepend_module_to_snapshot(false);
            settings
                .bind(|| insta::assert_snapshot!("deferred_search_then_call", render(&t, &bodies)));
        })
        .await;
    drop(mcp);
}

#[tokio::test]
async fn calling_an_unloaded_deferred_tool_runs_it_and_loads_it() {
    let mcp = serve_many_http(TOOLS, 200).await;
    let url = mcp.url("/mcp");
    TestInstance::builder()
        .config(config(&url, json!({})))
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::tool_call("c1", "many_list_payment", r#"{"payment_id":"p1"}"#),
                Turn::text("Done."),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "list my payments").await;
            let parts = tool_parts(&services(&t).store, &ran.session_id);
            let state = &parts[0]["state"];
            assert_eq!(parts[0]["tool"], "many_list_payment", "not `invalid`");
            assert_eq!(state["status"], "completed");
            let output = state["output"].as_str().unwrap();
            assert!(output.starts_with("list_payment ran with"), "{output}");
            assert!(
                output.contains("was a deferred tool; this call loaded it"),
                "{output}"
            );
            assert_eq!(
                state["metadata"]["loadedTools"],
                json!(["many_list_payment"])
            );
            let bodies = server.requests();
            let second = tool_names(&bodies[1]);
            assert_eq!(second.last().map(String::as_str), Some("many_list_payment"));
        })
        .await;
    drop(mcp);
}

#[tokio::test]
async fn below_the_threshold_or_with_defer_never_every_schema_is_sent() {
    let mcp = serve_many_http(TOOLS, 200).await;
    let url = mcp.url("/mcp");
    for extra in [
        json!({"tool_surface": {"defer_threshold": 10_000_000}}),
        json!({"mcp": {"many": {"type": "remote", "url": url, "defer": "never"}}}),
    ] {
        TestInstance::builder()
            .config(config(&url, extra.clone()))
            .run(|t| async move {
                let server = ModelServer::start(vec![Turn::text("Hi.")]);
                let runner = runner(&t, &server, MODEL, options());
                run(&t, &runner, "hello").await;
                let body = &server.requests()[0];
                let names = tool_names(body);
                assert!(!names.contains(&"tool_search".to_string()), "{names:?}");
                assert_eq!(
                    names.iter().filter(|n| n.starts_with("many_")).count(),
                    TOOLS + 1
                );
                assert!(!system(body).contains("Deferred tools"));
            })
            .await;
    }
    drop(mcp);
}

/// The figure: the first request of the same session with deferral on and off.
#[tokio::test]
async fn figure_first_request_tool_bytes_with_deferral_on_and_off() {
    let mcp = serve_many_http(TOOLS, 50).await;
    let url = mcp.url("/mcp");
    let mut figures = Vec::new();
    for (label, extra) in [
        ("on", json!({})),
        (
            "off",
            json!({"tool_surface": {"defer_threshold": 100_000_000}}),
        ),
    ] {
        let out = std::sync::Arc::new(std::sync::Mutex::new(None));
        let sink = out.clone();
        TestInstance::builder()
            .config(config(&url, extra))
            .run(|t| async move {
                // With deferral off the model sees the tool at once and needs no search.
                let mut script = vec![
                    Turn::tool_call("c2", "many_create_invoice", r#"{"invoice_id":"new"}"#),
                    Turn::text("Created."),
                ];
                if label == "on" {
                    let search = r#"{"query":"create invoice"}"#;
                    script.insert(0, Turn::tool_call("c1", "tool_search", search));
                }
                let server = ModelServer::start(script);
                let runner = runner(&t, &server, MODEL, options());
                let ran = run(&t, &runner, "create an invoice").await;
                let bodies = server.requests();
                let tools = bodies[0]["tools"].to_string().len();
                let system = system(&bodies[0]).len();
                let whole = bodies[0].to_string().len();
                let parts = tool_parts(&services(&t).store, &ran.session_id);
                let called = parts.iter().any(|p| {
                    p["tool"] == "many_create_invoice" && p["state"]["status"] == "completed"
                });
                *sink.lock().unwrap() = Some((tools, system, whole, bodies.len(), called));
            })
            .await;
        let (tools, system, whole, requests, called) = out.lock().unwrap().take().unwrap();
        assert!(
            called,
            "{label}: the session found and called many_create_invoice"
        );
        println!(
            "deferral {label}: first request tools {tools} bytes (~{} tokens), system prompt \
             {system} bytes, whole request {whole} bytes (~{} tokens); {requests} requests",
            tools.div_ceil(4),
            whole.div_ceil(4)
        );
        figures.push(tools);
    }
    assert!(
        figures[0] * 5 < figures[1],
        "deferral cuts the tool bytes: {figures:?}"
    );
    drop(mcp);
}
