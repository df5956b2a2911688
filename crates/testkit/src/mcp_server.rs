//! A scripted MCP server built with the SDK's server side, for the MCP client tests: over stdio
//! as the `strata-mcp-fixture` program (a real child process), or over streamable HTTP on
//! 127.0.0.1 in the test process.
//!
//! Tools: `echo` (returns `message`), `picture` (text and a PNG), `fail` (an `isError`
//! result), `crash` (the process exits mid-call), `hang` (never answers), `grow` (adds the
//! tool `extra` and announces `notifications/tools/list_changed`), `note` (`readOnlyHint`).
//!
//! With resources and prompts on ([`FixtureMcp::with_resources`], `--resources` for the
//! program), it also offers, a few per page so that clients must follow `nextCursor`:
//! [`NOTES`] text resources `fixture://note/N` and the PNG `fixture://pixel`, three resource
//! templates, and [`PROMPTS`] prompts (`greet` with `name` required and `mood` optional, then
//! `p01`…). The tool `more` adds the prompt `late` and announces
//! `notifications/prompts/list_changed`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptArgument,
    PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, Role, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};

use crate::FixtureServer;

/// A one-pixel PNG, base64.
pub const PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/// How many `fixture://note/N` resources the rich fixture lists.
pub const NOTES: usize = 23;
/// How many prompts the rich fixture lists (before `more`).
pub const PROMPTS: usize = 12;
/// Items per page of every list of the rich fixture.
pub const PAGE: usize = 5;

/// The fixture's handler; `extra` turns on with the `grow` tool, `late` with `more`.
#[derive(Debug, Clone, Default)]
pub struct FixtureMcp {
    extra: Arc<AtomicBool>,
    late: Arc<AtomicBool>,
    rich: bool,
}

/// Items `cursor..cursor + PAGE` of `all`, with the cursor of the next page.
fn page<T: Clone>(all: &[T], params: Option<PaginatedRequestParams>) -> (Vec<T>, Option<String>) {
    let from: usize = params
        .and_then(|p| p.cursor)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let to = (from + PAGE).min(all.len());
    let next = (to < all.len()).then(|| to.to_string());
    (all.get(from..to).unwrap_or_default().to_vec(), next)
}

fn schema(props: Value) -> Arc<Map<String, Value>> {
    let Value::Object(map) = json!({"type": "object", "properties": props}) else {
        unreachable!("a JSON object literal")
    };
    Arc::new(map)
}

impl FixtureMcp {
    /// The fixture with resources, templates and prompts as well as tools.
    pub fn with_resources() -> Self {
        FixtureMcp {
            rich: true,
            ..FixtureMcp::default()
        }
    }

    fn resources() -> Vec<Resource> {
        let mut all: Vec<Resource> = (1..=NOTES)
            .map(|i| {
                Resource::new(format!("fixture://note/{i}"), format!("note {i}"))
                    .with_mime_type("text/plain")
            })
            .collect();
        all.push(
            Resource::new("fixture://pixel", "pixel")
                .with_description("A one-pixel PNG.")
                .with_mime_type("image/png"),
        );
        all
    }

    fn templates() -> Vec<ResourceTemplate> {
        vec![
            ResourceTemplate::new("fixture://note/{id}", "note by id")
                .with_description("One note; `id` is a number."),
            ResourceTemplate::new("fixture://search{?q,limit}", "search"),
            ResourceTemplate::new("fixture://pixel/{size}", "pixel of a size")
                .with_mime_type("image/png"),
            ResourceTemplate::new("fixture://{+path}", "any path"),
            ResourceTemplate::new("fixture://day/{year}/{month}", "a day"),
            ResourceTemplate::new("fixture://last", "the last one"),
        ]
    }

    fn prompts(&self) -> Vec<Prompt> {
        let greet = Prompt::new(
            "greet",
            Some("Greets someone."),
            Some(vec![
                PromptArgument::new("name")
                    .with_description("Who to greet")
                    .with_required(true),
                PromptArgument::new("mood").with_description("How"),
            ]),
        );
        let mut all = vec![greet];
        all.extend((1..PROMPTS).map(|i| Prompt::new(format!("p{i:02}"), None::<String>, None)));
        if self.late.load(Ordering::SeqCst) {
            all.push(Prompt::new("late", Some("Added by more."), None));
        }
        all
    }

    fn read(uri: &str) -> Result<ReadResourceResult, ErrorData> {
        let contents = if uri == "fixture://pixel" {
            ResourceContents::blob(PIXEL_PNG, uri).with_mime_type("image/png")
        } else if let Some(n) = uri.strip_prefix("fixture://note/") {
            ResourceContents::text(format!("This is note {n}."), uri)
        } else {
            let msg = format!("no resource {uri}");
            return Err(ErrorData::resource_not_found(msg, None));
        };
        Ok(ReadResourceResult::new(vec![contents]))
    }

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
        if self.rich {
            tools.push(Tool::new("more", "Adds a prompt.", none()));
        }
        if self.extra.load(Ordering::SeqCst) {
            tools.push(Tool::new("extra", "Added by grow.", none()));
        }
        tools
    }
}

impl ServerHandler for FixtureMcp {
    fn get_info(&self) -> ServerConfig {
        let caps = if self.rich {
            ServerCapabilities::builder()
                .enable_prompts()
                .enable_prompts_list_changed()
                .enable_resources()
                .enable_tools()
                .enable_tool_list_changed()
                .build()
        } else {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build()
        };
        ServerConfig::new(caps)
    }

    async fn list_resources(
        &self,
        params: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let (items, next) = page(&Self::resources(), params);
        let mut result = ListResourcesResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        params: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let (items, next) = page(&Self::templates(), params);
        let mut result = ListResourceTemplatesResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn read_resource(
        &self,
        req: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        Self::read(&req.uri).map(Into::into)
    }

    async fn list_prompts(
        &self,
        params: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let (items, next) = page(&self.prompts(), params);
        let mut result = ListPromptsResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_prompt(
        &self,
        req: GetPromptRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let args = req.arguments.unwrap_or_default();
        let arg = |k: &str| args.get(k).and_then(Value::as_str).map(str::to_string);
        let text = match req.name.as_str() {
            "greet" => {
                let name = arg("name")
                    .ok_or_else(|| ErrorData::invalid_params("greet needs `name`", None))?;
                let mood = arg("mood").unwrap_or_else(|| "plainly".into());
                format!("Greet {name} {mood}.")
            }
            other => format!("This is the prompt {other}."),
        };
        let messages = vec![PromptMessage::new_text(Role::User, text)];
        Ok(GetPromptResult::new(messages).into())
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
            "more" => {
                self.late.store(true, Ordering::SeqCst);
                let _ = cx.peer.notify_prompt_list_changed().await;
                CallToolResult::success(text("more prompts"))
            }
            other => CallToolResult::error(text(&format!("no tool {other}"))),
        };
        Ok(result.into())
    }
}

/// Serves the fixture over streamable HTTP at `/mcp` on 127.0.0.1.
pub async fn serve_http() -> FixtureServer {
    serve_http_of(FixtureMcp::default).await
}

/// Like [`serve_http`], with resources and prompts on ([`FixtureMcp::with_resources`]).
pub async fn serve_http_with_resources() -> FixtureServer {
    serve_http_of(FixtureMcp::with_resources).await
}

async fn serve_http_of(make: fn() -> FixtureMcp) -> FixtureServer {
    let service = StreamableHttpService::new(
        move || Ok(make()),
        LocalSessionManager::default().into(),
        Default::default(),
    );
    FixtureServer::start(axum::Router::new().nest_service("/mcp", service))
        .await
        .expect("bind a loopback port for the MCP fixture")
}
