//! The served surface, calls, bad arguments, refused and allowed asks, and images, driven by
//! rmcp's client against a real test instance.

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value, json};
use strata_mcpserver::{ServeOptions, StrataMcp, serve_http};
use strata_testkit::{ReplyMode, TestInstance};
use tokio_util::sync::CancellationToken;

/// One pixel, the same PNG the testkit's MCP fixture sends.
const PIXEL: &str = strata_testkit::mcp_server::PIXEL_PNG;

async fn project(config: Value) -> TestInstance {
    use base64::Engine;
    let png = base64::engine::general_purpose::STANDARD
        .decode(PIXEL)
        .unwrap();
    let t = TestInstance::builder()
        .file("notes.txt", "one\nthe needle is here\n")
        .file("pixel.png", png)
        .config(config)
        .build()
        .await;
    // The server answers asks itself; the testkit's responder stays silent.
    t.reply_mode(ReplyMode::Manual);
    t
}

/// The server on a loopback port over HTTP, and a connected rmcp client.
async fn over_http(
    t: &TestInstance,
    options: ServeOptions,
) -> (RunningService<RoleClient, ()>, CancellationToken) {
    let server = StrataMcp::from_context(t.context(), options).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let cancel = CancellationToken::new();
    tokio::spawn(serve_http(server, listener, cancel.clone()));
    let client = ().serve(StreamableHttpClientTransport::from_uri(url)).await.unwrap();
    (client, cancel)
}

/// The server over an in-memory pipe (what stdio carries), and a connected client.
async fn over_pipe(t: &TestInstance, options: ServeOptions) -> RunningService<RoleClient, ()> {
    let server = StrataMcp::from_context(t.context(), options).unwrap();
    let (a, b) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(a).await.unwrap();
        let _ = running.waiting().await;
    });
    ().serve(b).await.unwrap()
}

async fn call(client: &RunningService<RoleClient, ()>, name: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    client
        .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(args))
        .await
        .unwrap()
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn http_lists_the_agents_surface_with_hints_from_effects() {
    let t = project(json!({})).await;
    let (client, cancel) = over_http(&t, ServeOptions::default()).await;
    let info = client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "strata");
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    // `strata tools`' surface for a run without a terminal: no `question`, no `invalid`.
    assert_eq!(
        names,
        [
            "bash",
            "bash_output",
            "bash_kill",
            "read",
            "glob",
            "grep",
            "edit",
            "write",
            "webfetch",
            "todowrite",
            "skill"
        ]
    );
    let hints = |name: &str| {
        let a = tools
            .iter()
            .find(|t| t.name == name)
            .unwrap()
            .annotations
            .clone()
            .unwrap();
        (a.read_only_hint, a.destructive_hint, a.open_world_hint)
    };
    assert_eq!(hints("read"), (Some(true), Some(false), Some(false)));
    assert_eq!(hints("bash"), (Some(false), Some(true), Some(true)));
    assert_eq!(hints("webfetch"), (Some(true), Some(false), Some(true)));
    let read = tools.iter().find(|t| t.name == "read").unwrap();
    assert_eq!(read.input_schema["required"], json!(["filePath"]));
    client.cancel().await.unwrap();
    cancel.cancel();
    t.dispose().await;
}

#[tokio::test]
async fn http_calls_read_and_grep_and_bad_arguments_are_is_error() {
    let t = project(json!({})).await;
    let (client, cancel) = over_http(&t, ServeOptions::default()).await;
    let read = call(&client, "read", json!({"filePath": "notes.txt"})).await;
    assert_eq!(read.is_error, Some(false));
    assert!(
        text(&read).contains("2: the needle is here"),
        "{}",
        text(&read)
    );
    let grep = call(&client, "grep", json!({"pattern": "needle"})).await;
    assert!(
        text(&grep).contains("Line 2: the needle is here"),
        "{}",
        text(&grep)
    );
    let bad = call(&client, "read", json!({"offset": 2})).await;
    assert_eq!(bad.is_error, Some(true));
    // The same words a model gets from the wrapper.
    assert_eq!(
        text(&bad),
        "The `read` tool received arguments it cannot use: missing field `filePath`. Send the \
         call again with arguments that fit the tool's schema."
    );
    let unknown = client
        .call_tool(CallToolRequestParams::new("nope").with_arguments(Map::new()))
        .await
        .unwrap_err()
        .to_string();
    assert!(unknown.contains("serves no tool named `nope`"), "{unknown}");
    client.cancel().await.unwrap();
    cancel.cancel();
    t.dispose().await;
}

#[tokio::test]
async fn an_open_ask_is_refused_with_how_to_allow_it_unless_yes() {
    let t = project(json!({"permission": {"bash": "ask"}, "sandbox": {"auto_allow": false}})).await;
    let client = over_pipe(&t, ServeOptions::default()).await;
    let r = call(
        &client,
        "bash",
        json!({"command": "echo hi", "description": "say hi"}),
    )
    .await;
    assert_eq!(r.is_error, Some(true));
    let refusal = text(&r);
    assert!(
        refusal.contains("an MCP server has no one to ask"),
        "{refusal}"
    );
    assert!(
        refusal.contains(r#"{"permission": {"bash": {"echo hi": "allow"}}}"#),
        "{refusal}"
    );
    assert!(refusal.contains("strata mcp --yes"), "{refusal}");
    client.cancel().await.unwrap();

    let yes = ServeOptions {
        yes: true,
        ..ServeOptions::default()
    };
    let client = over_pipe(&t, yes).await;
    let r = call(
        &client,
        "bash",
        json!({"command": "echo hi", "description": "say hi"}),
    )
    .await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    assert_eq!(text(&r).trim(), "hi");
    client.cancel().await.unwrap();
    t.dispose().await;
}

#[tokio::test]
async fn a_denied_tool_is_not_served_and_images_come_back_as_image_content() {
    let t = project(json!({"permission": {"bash": "deny"}})).await;
    let client = over_pipe(&t, ServeOptions::default()).await;
    let tools = client.list_all_tools().await.unwrap();
    assert!(!tools.iter().any(|t| t.name == "bash"));
    let r = call(&client, "read", json!({"filePath": "pixel.png"})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let image = r
        .content
        .iter()
        .find_map(|c| c.as_image().cloned())
        .expect("an image block");
    assert_eq!(image.mime_type, "image/png");
    assert_eq!(image.data, PIXEL);
    client.cancel().await.unwrap();
    t.dispose().await;
}

#[tokio::test]
async fn the_agent_option_serves_that_agents_surface_and_unknown_agents_are_refused() {
    let t = project(json!({})).await;
    let plan = ServeOptions {
        agent: "plan".into(),
        ..ServeOptions::default()
    };
    let client = over_pipe(&t, plan).await;
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    // Plan mode offers nothing destructive.
    for gone in ["edit", "write", "bash"] {
        assert!(!names.iter().any(|n| n == gone), "{gone} in {names:?}");
    }
    assert!(names.iter().any(|n| n == "read"), "{names:?}");
    client.cancel().await.unwrap();
    let nobody = ServeOptions {
        agent: "nobody".into(),
        ..ServeOptions::default()
    };
    let err = StrataMcp::from_context(t.context(), nobody)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no agent named `nobody`"), "{err}");
    t.dispose().await;
}
