//! A scripted MCP server with many tools, for the deferred-tools tests and figures: `count`
//! tools made from twelve subjects and ten verbs (`list_invoices`, `create_calendar_event`,
//! …), each with a description and five described parameters, like the tools of real
//! servers. `tools/list` answers in pages of `page` tools (a cursor is the next offset); the
//! tool `grow` adds tools named `extra_‹n›` and announces `notifications/tools/list_changed`.
//! Every call answers `‹tool› ran with ‹arguments›`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};

use crate::FixtureServer;

/// `(name, what it is)`: the things the tools act on.
const SUBJECTS: [(&str, &str); 12] = [
    (
        "invoice",
        "a billing invoice with its line items, totals and due date",
    ),
    (
        "customer",
        "a customer record with contact details and account status",
    ),
    (
        "calendar_event",
        "an event in a shared calendar, with attendees and a time slot",
    ),
    (
        "weather_forecast",
        "the weather forecast of a city: temperature, wind and rain by hour",
    ),
    (
        "repository",
        "a source code repository with its branches and settings",
    ),
    (
        "pull_request",
        "a pull request with its diff, reviews and checks",
    ),
    (
        "ticket",
        "a support ticket with its priority, assignee and conversation",
    ),
    (
        "deployment",
        "a deployment of a service to an environment, with its logs",
    ),
    (
        "database_table",
        "a table of the analytics database, with its columns and rows",
    ),
    (
        "chat_message",
        "a message in a team chat channel, with its thread",
    ),
    (
        "shared_file",
        "a file in the shared drive, with its owner and permissions",
    ),
    (
        "payment",
        "a card or bank payment with its status and refunds",
    ),
];

/// `(verb, what doing it means)`.
const VERBS: [(&str, &str); 10] = [
    ("list", "Lists every"),
    ("get", "Fetches one"),
    ("create", "Creates a new"),
    ("update", "Changes the fields of an existing"),
    ("delete", "Deletes an existing"),
    ("search", "Searches by keywords for"),
    ("archive", "Moves to the archive an old"),
    ("export", "Exports as CSV or JSON a chosen"),
    ("import", "Imports from a CSV or JSON file a"),
    ("summarize", "Writes a short summary of a"),
];

/// The generated tool number `i` (0-based): its name, description and schema.
pub fn generated(i: usize) -> (String, String, Value) {
    let (subject, about) = SUBJECTS[i % SUBJECTS.len()];
    let (verb, doing) = VERBS[(i / SUBJECTS.len()) % VERBS.len()];
    let round = i / (SUBJECTS.len() * VERBS.len());
    let name = if round == 0 {
        format!("{verb}_{subject}")
    } else {
        format!("{verb}_{subject}_{round}")
    };
    let plain = subject.replace('_', " ");
    let description = format!(
        "{doing} {plain}: {about}. Use it when the user asks about a {plain}; results come \
         back as JSON, newest first, and the call fails with a clear message when the account \
         has no access."
    );
    let schema = json!({
        "type": "object",
        "properties": {
            format!("{subject}_id"): {"type": "string", "description": format!("The id of the {plain}, as shown in its URL or in a list result.")},
            "account": {"type": "string", "description": "The account or workspace to act in; the default account when left out."},
            "limit": {"type": "integer", "description": "The most results to return, between 1 and 100 (default 20)."},
            "fields": {"type": "array", "items": {"type": "string"}, "description": "Which fields to include in each result; all of them when left out."},
            "dry_run": {"type": "boolean", "description": "Report what would happen without changing anything."},
        },
        "required": [format!("{subject}_id")],
    });
    (name, description, schema)
}

/// The many-tools handler.
#[derive(Debug, Clone)]
pub struct ManyMcp {
    count: usize,
    page: usize,
    extra: Arc<AtomicUsize>,
}

impl ManyMcp {
    /// `count` tools, listed `page` at a time.
    pub fn new(count: usize, page: usize) -> ManyMcp {
        ManyMcp {
            count,
            page: page.max(1),
            extra: Arc::default(),
        }
    }

    fn tools(&self) -> Vec<Tool> {
        let object = |v: Value| match v {
            Value::Object(m) => Arc::new(m),
            _ => Arc::new(Map::new()),
        };
        let mut tools: Vec<Tool> = (0..self.count)
            .map(|i| {
                let (name, description, schema) = generated(i);
                Tool::new(name, description, object(schema))
            })
            .collect();
        tools.push(Tool::new(
            "grow",
            "Adds two tools to this server.",
            object(json!({"type": "object", "properties": {}})),
        ));
        for n in 0..self.extra.load(Ordering::SeqCst) {
            tools.push(Tool::new(
                format!("extra_{n}"),
                format!("An added tool, number {n}, that reports the tide tables."),
                object(json!({"type": "object", "properties": {"harbour": {"type": "string"}}})),
            ));
        }
        tools
    }
}

impl ServerHandler for ManyMcp {
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
        req: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let all = self.tools();
        let from: usize = req
            .and_then(|r| r.cursor)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let to = (from + self.page).min(all.len());
        let mut result = ListToolsResult::with_all_items(all[from.min(to)..to].to_vec());
        result.next_cursor = (to < all.len()).then(|| to.to_string());
        Ok(result)
    }

    async fn call_tool(
        &self,
        req: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if req.name == "grow" {
            self.extra.fetch_add(2, Ordering::SeqCst);
            let _ = cx.peer.notify_tool_list_changed().await;
            return Ok(CallToolResult::success(vec![ContentBlock::text("grown")]).into());
        }
        let args = Value::Object(req.arguments.unwrap_or_default());
        let text = format!("{} ran with {args}", req.name);
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

/// Serves `count` tools (pages of `page`) over streamable HTTP at `/mcp` on 127.0.0.1.
pub async fn serve_many_http(count: usize, page: usize) -> FixtureServer {
    let service = StreamableHttpService::new(
        move || Ok(ManyMcp::new(count, page)),
        LocalSessionManager::default().into(),
        Default::default(),
    );
    FixtureServer::start(axum::Router::new().nest_service("/mcp", service))
        .await
        .expect("bind a loopback port for the many-tools MCP fixture")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_read_like_real_tools() {
        let names: Vec<String> = (0..130).map(|i| generated(i).0).collect();
        assert_eq!(names[0], "list_invoice");
        assert_eq!(names[13], "get_customer");
        assert_eq!(names[120], "list_invoice_1");
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len());
    }
}
