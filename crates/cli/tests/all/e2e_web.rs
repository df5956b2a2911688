//! `webfetch` and `websearch` through the built binary: `strata tool webfetch` and
//! `strata run` against a loopback web server, and `strata tools` listing `websearch` only when
//! a search backend is configured.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail by panicking

use crate::common::Project;
use crate::e2e_run_support::*;
use axum::Router;
use axum::http::header;
use axum::routing::get;
use serde_json::{Value, json};
use strata_testkit::FixtureServer;
use strata_testkit::model_server::{ModelServer, Turn};

const PAGE: &str = "<html><head><title>Fixture</title><script>var hidden = 1;</script></head>\
<body><h1>Hello</h1><p>from the <b>loopback</b> server</p></body></html>";

/// A web server on 127.0.0.1 running on its own runtime (the tests themselves are blocking).
fn web_server() -> (tokio::runtime::Runtime, FixtureServer) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let app = Router::new().route(
        "/page",
        get(|| async { ([(header::CONTENT_TYPE, "text/html")], PAGE) }),
    );
    let server = runtime.block_on(FixtureServer::start(app)).unwrap();
    (runtime, server)
}

#[test]
fn strata_tool_webfetch_prints_the_page_in_the_asked_format() {
    let (_rt, web) = web_server();
    let p = Project::new();
    let url = web.url("/page");
    let run = p.strata(&[
        "tool",
        "webfetch",
        &json!({"url": url, "format": "text"}).to_string(),
    ]);
    run.expect_code(0);
    assert_eq!(run.stdout, "Fixture\nHello\nfrom the loopback server\n");
    let run = p.strata(&["tool", "webfetch", &json!({"url": url}).to_string()]);
    run.expect_code(0);
    assert!(run.stdout.contains("# Hello"), "{}", run.stdout);
    assert!(
        run.stdout.contains("from the **loopback** server"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("hidden"), "{}", run.stdout);
}

#[test]
fn strata_tool_webfetch_refuses_other_schemes() {
    let p = Project::new();
    let run = p.strata(&["tool", "webfetch", r#"{"url":"file:///etc/hostname"}"#]);
    run.expect_code(1);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(run.stderr.contains("https://"), "{}", run.stderr);
}

#[test]
fn strata_run_fetches_a_page_for_the_model() {
    let (_rt, web) = web_server();
    let p = Project::new();
    let url = web.url("/page");
    let server = ModelServer::start(vec![
        Turn::tool_call(
            "c1",
            "webfetch",
            &json!({"url": url, "format": "markdown"}).to_string(),
        ),
        Turn::text("The page says hello."),
    ]);
    let run = run(
        &p,
        &server,
        &["--format", "json", "what does the page say?"],
    );
    run.expect_code(0);
    let events = json_lines(&run);
    let tool = events
        .iter()
        .find(|e| e["type"] == "tool_use")
        .expect("a tool_use event");
    let state = &tool["part"]["state"];
    assert_eq!(tool["part"]["tool"], "webfetch");
    assert_eq!(state["status"], "completed", "{state}");
    assert_eq!(state["title"], format!("{url} (text/html)"));
    let output = state["output"].as_str().unwrap();
    assert!(output.contains("# Hello"), "{output}");
    assert!(output.contains("from the **loopback** server"), "{output}");
    assert_eq!(state["metadata"]["truncated"], false);
    // The model got the page as the tool result of its call.
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let sent = requests[1]["messages"].to_string();
    assert!(sent.contains("from the **loopback** server"), "{sent}");
}

fn listed(run: &crate::common::Run) -> Vec<String> {
    let doc: Value = serde_json::from_str(&run.stdout).unwrap();
    doc["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn strata_tools_lists_websearch_only_with_a_backend() {
    let args = ["tools", "--model", "openai/gpt-5", "--format", "json"];
    let p = Project::new();
    let run = p.strata(&args);
    run.expect_code(0);
    let ids = listed(&run);
    assert!(ids.iter().any(|i| i == "webfetch"), "{ids:?}");
    assert!(!ids.iter().any(|i| i == "websearch"), "{ids:?}");

    let run = p.strata_env(&args, &[("STRATA_WEBSEARCH_URL", "http://127.0.0.1:9/mcp")]);
    run.expect_code(0);
    assert!(listed(&run).iter().any(|i| i == "websearch"));
    let run = p.strata_env(&args, &[("EXA_API_KEY", "k")]);
    run.expect_code(0);
    assert!(listed(&run).iter().any(|i| i == "websearch"));

    let configured = Project::new();
    configured.file("strata.json", r#"{"websearch": {"enabled": true}}"#);
    let run = configured.strata(&args);
    run.expect_code(0);
    let ids = listed(&run);
    let web: Vec<&String> = ids.iter().filter(|i| i.starts_with("web")).collect();
    assert_eq!(web, ["webfetch", "websearch"]);
}

#[test]
fn a_bad_websearch_config_is_refused_naming_the_key() {
    let p = Project::new();
    p.file("strata.json", r#"{"websearch": {"url": "mcp.example"}}"#);
    let run = p.strata(&["tools", "--model", "openai/gpt-5"]);
    run.expect_code(1);
    assert!(run.stderr.contains("websearch.url"), "{}", run.stderr);
}
