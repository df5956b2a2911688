//! A scripted MCP server built with the SDK's server side, for the MCP client tests: over stdio
//! as the `strata-mcp-fixture` program (a real child process), or over streamable HTTP on
//! 127.0.0.1 in the test process.
//!
//! Tools: `echo` (returns `message`), `picture` (text and a PNG), `fail` (an `isError`
//! result), `crash` (the process exits mid-call), `hang` (never answers), `grow` (adds the
//! tool `extra` and announces `notifications/tools/list_changed`), `note` (`readOnlyHint`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};

use crate::FixtureServer;

/// A one-pixel PNG, base64.
pub const PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/// The fixture's handler; `extra` turns on with the `grow` tool.
#[derive(Debug, Clone, Default)]
pub struct FixtureMcp {
    extra: Arc<AtomicBool>,
}

fn schema(props: Value) -> Arc<Map<String, Value>> {
    let Value::Object(map) = json!({"type": "object", "properties": props}) else {
        unreachable!("a JSON object literal")
    };
    Arc::new(map)
}

impl FixtureMcp {
    fn tools(&self) -> Vec<Tool> {
        let none = || schema(json!({}));
        let mut tools = vec![
            Tool::new(
                "echo",
                "Returns the message.",
                schema(json!({"message": {"type": "string"}})),
            ),
            Tool::new("picture", "Returns a picture.", none()),
            Tool::new("fail", "Always fails.", none()),
            Tool::new("crash", "Exits mid-call.", none()),
            Tool::new("hang", "Never answers.", none()),
            Tool::new("grow", "Adds a tool.", none()),
            Tool::new("note", "Reads a note.", none())
                .with_annotations(ToolAnnotations::new().read_only(true)),
        ];
        if self.extra.load(Ordering::SeqCst) {
            tools.push(Tool::new("extra", "Added by grow.", none()));
        }
        tools
    }
}

impl ServerHandler for FixtureMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn call_tool(
        &self,
        req: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = |s: &str| vec![ContentBlock::text(s)];
        let result = match req.name.as_ref() {
            "echo" => {
                let args = req.arguments.unwrap_or_default();
                let msg = args.get("message").and_then(Value::as_str).unwrap_or("");
                CallToolResult::success(text(&format!("Echo: {msg}")))
            }
            "picture" => CallToolResult::success(vec![
                ContentBlock::text("a pixel"),
                ContentBlock::image(PIXEL_PNG, "image/png"),
            ]),
            "fail" => CallToolResult::error(text("the fixture failed on purpose")),
            "crash" => {
                eprintln!("fixture: crashing on purpose");
                std::process::exit(3)
            }
            "hang" => std::future::pending().await,
            "grow" => {
                self.extra.store(true, Ordering::SeqCst);
                let _ = cx.peer.notify_tool_list_changed().await;
                CallToolResult::success(text("grown"))
            }
            "note" | "extra" => CallToolResult::success(text("a note")),
            other => CallToolResult::error(text(&format!("no tool {other}"))),
        };
        Ok(result.into())
    }
}

/// Serves the fixture over streamable HTTP at `/mcp` on 127.0.0.1.
pub async fn serve_http() -> FixtureServer {
    let service = StreamableHttpService::new(
        || Ok(FixtureMcp::default()),
        LocalSessionManager::default().into(),
        Default::default(),
    );
    FixtureServer::start(axum::Router::new().nest_service("/mcp", service))
        .await
        .expect("bind a loopback port for the MCP fixture")
}
