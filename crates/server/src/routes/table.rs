//! Every route the server answers with its body and answer types, and the OpenAPI document
//! built from them (`GET /doc`): the schemas come from the types themselves (schemars), so the
//! document cannot drift from what the handlers decode and encode.

use std::collections::BTreeMap;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value, json};
use strata_protocol::event::SessionStatus;
use strata_protocol::wire::{
    ApiError, Envelope, FileDiff, GlobalEnvelope, PermissionReplyBody, PermissionRequest,
    PromptBody, QuestionReplyBody, QuestionRequest, SessionCreateBody, SessionInfo, Todo,
};

use crate::core::convert::VERSION;
use crate::core::{MessageEntry, SessionUpdate};

use super::keys::AuthBody;
use super::message::ShellBody;
use super::session::{ForkBody, OldReplyBody, RevertBody};

type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

fn of<T: JsonSchema>(g: &mut SchemaGenerator) -> Schema {
    g.subschema_for::<T>()
}

/// Free-form JSON (the context routes answer opencode's shapes as built JSON).
fn any(_: &mut SchemaGenerator) -> Schema {
    Schema::default()
}

/// What an answer is.
#[derive(Debug, Clone, Copy)]
pub enum Answer {
    Json(SchemaFn),
    /// 204, no body.
    Empty,
    /// `text/event-stream` of these items.
    Events(SchemaFn),
}

/// One route.
#[derive(Debug, Clone, Copy)]
pub struct Route {
    pub method: &'static str,
    /// opencode's `{param}` syntax.
    pub path: &'static str,
    pub summary: &'static str,
    pub body: Option<SchemaFn>,
    pub answer: Answer,
}

const fn r(
    method: &'static str,
    path: &'static str,
    summary: &'static str,
    body: Option<SchemaFn>,
    answer: Answer,
) -> Route {
    Route {
        method,
        path,
        summary,
        body,
        answer,
    }
}

use Answer::{Empty, Events, Json};

/// Every route, in the order of the route modules.
pub const ROUTES: &[Route] = &[
    r(
        "get",
        "/session",
        "List the project's sessions",
        None,
        Json(of::<Vec<SessionInfo>>),
    ),
    r(
        "post",
        "/session",
        "Create a session",
        Some(of::<SessionCreateBody>),
        Json(of::<SessionInfo>),
    ),
    r(
        "get",
        "/session/status",
        "Busy sessions",
        None,
        Json(of::<BTreeMap<String, SessionStatus>>),
    ),
    r(
        "get",
        "/session/{id}",
        "Get a session",
        None,
        Json(of::<SessionInfo>),
    ),
    r(
        "patch",
        "/session/{id}",
        "Update a session",
        Some(of::<SessionUpdate>),
        Json(of::<SessionInfo>),
    ),
    r(
        "delete",
        "/session/{id}",
        "Delete a session and its children",
        None,
        Json(of::<bool>),
    ),
    r(
        "get",
        "/session/{id}/children",
        "Child sessions",
        None,
        Json(of::<Vec<SessionInfo>>),
    ),
    r(
        "get",
        "/session/{id}/todo",
        "The session's todo list",
        None,
        Json(of::<Vec<Todo>>),
    ),
    r(
        "get",
        "/session/{id}/diff",
        "The session's file changes",
        None,
        Json(of::<Vec<FileDiff>>),
    ),
    r(
        "post",
        "/session/{id}/revert",
        "Revert the session to before a message: files restored, later messages hidden",
        Some(of::<RevertBody>),
        Json(of::<SessionInfo>),
    ),
    r(
        "post",
        "/session/{id}/unrevert",
        "Undo the session's revert",
        None,
        Json(of::<SessionInfo>),
    ),
    r(
        "post",
        "/session/{id}/fork",
        "Fork a session",
        Some(of::<ForkBody>),
        Json(of::<SessionInfo>),
    ),
    r(
        "post",
        "/session/{id}/abort",
        "Abort the running turn",
        None,
        Json(of::<bool>),
    ),
    r(
        "post",
        "/session/{id}/shell",
        "Run a command as the user's own bash call (409 while busy)",
        Some(of::<ShellBody>),
        Json(of::<MessageEntry>),
    ),
    r(
        "post",
        "/session/{id}/permissions/{permission}",
        "Reply to a permission request (older form)",
        Some(of::<OldReplyBody>),
        Json(of::<bool>),
    ),
    r(
        "get",
        "/session/{id}/message",
        "Messages with their parts",
        None,
        Json(of::<Vec<MessageEntry>>),
    ),
    r(
        "post",
        "/session/{id}/message",
        "Prompt and wait for the turn to end",
        Some(of::<PromptBody>),
        Json(of::<MessageEntry>),
    ),
    r(
        "get",
        "/session/{id}/message/{message}",
        "One message with its parts",
        None,
        Json(of::<MessageEntry>),
    ),
    r(
        "post",
        "/session/{id}/prompt_async",
        "Prompt without waiting",
        Some(of::<PromptBody>),
        Empty,
    ),
    r(
        "get",
        "/event",
        "The project's events (SSE, resumable with Last-Event-ID)",
        None,
        Events(of::<Envelope>),
    ),
    r(
        "get",
        "/global/event",
        "Every project's events (SSE, resumable with Last-Event-ID)",
        None,
        Events(of::<GlobalEnvelope>),
    ),
    r(
        "get",
        "/permission",
        "Pending permission requests",
        None,
        Json(of::<Vec<PermissionRequest>>),
    ),
    r(
        "post",
        "/permission/{id}/reply",
        "Reply to a permission request",
        Some(of::<PermissionReplyBody>),
        Json(of::<bool>),
    ),
    r(
        "get",
        "/question",
        "Pending questions",
        None,
        Json(of::<Vec<QuestionRequest>>),
    ),
    r(
        "post",
        "/question/{id}/reply",
        "Answer a question",
        Some(of::<QuestionReplyBody>),
        Json(of::<bool>),
    ),
    r(
        "post",
        "/question/{id}/reject",
        "Dismiss a question",
        None,
        Json(of::<bool>),
    ),
    r("get", "/path", "The project's paths", None, Json(any)),
    r(
        "get",
        "/config",
        "The merged configuration",
        None,
        Json(any),
    ),
    r("get", "/agent", "Agents", None, Json(any)),
    r("get", "/provider", "Providers", None, Json(any)),
    r(
        "get",
        "/config/providers",
        "Configured providers and default models",
        None,
        Json(any),
    ),
    r("get", "/vcs", "The checked-out branch", None, Json(any)),
    r(
        "get",
        "/project/current",
        "The current project",
        None,
        Json(any),
    ),
    r(
        "get",
        "/project/{id}/directories",
        "The project's directories",
        None,
        Json(any),
    ),
    r("get", "/command", "Commands", None, Json(any)),
    r("get", "/lsp", "Language servers", None, Json(any)),
    r("get", "/formatter", "Formatters", None, Json(any)),
    r("get", "/skill", "Skills", None, Json(any)),
    r("get", "/mcp", "MCP server status", None, Json(any)),
    r(
        "put",
        "/auth/{providerID}",
        "Store a provider's API key in the server's data directory",
        Some(of::<AuthBody>),
        Json(of::<bool>),
    ),
    r(
        "delete",
        "/auth/{providerID}",
        "Remove a provider's stored API key (false when none was stored)",
        None,
        Json(of::<bool>),
    ),
    r(
        "get",
        "/provider/auth",
        "Provider sign-in methods",
        None,
        Json(any),
    ),
    r(
        "get",
        "/experimental/capabilities",
        "Server capabilities",
        None,
        Json(any),
    ),
    r(
        "get",
        "/experimental/console",
        "Console state",
        None,
        Json(any),
    ),
    r(
        "get",
        "/experimental/resource",
        "Resources",
        None,
        Json(any),
    ),
    r(
        "get",
        "/experimental/workspace",
        "Workspaces",
        None,
        Json(any),
    ),
    r(
        "get",
        "/experimental/workspace/status",
        "Workspace status",
        None,
        Json(any),
    ),
    r(
        "get",
        "/api/location",
        "The project's location",
        None,
        Json(any),
    ),
    r(
        "get",
        "/api/skill",
        "Skills, with the project's location",
        None,
        Json(any),
    ),
    r(
        "get",
        "/api/{rest}",
        "Newer catalog routes: the location and an empty list",
        None,
        Json(any),
    ),
    r(
        "get",
        "/global/health",
        "Health and version",
        None,
        Json(any),
    ),
    r("get", "/doc", "This document", None, Json(any)),
];

fn params(path: &str) -> Vec<Value> {
    let mut out: Vec<Value> = path
        .split('/')
        .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
        .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
        .collect();
    out.push(json!({"name": "directory", "in": "query", "required": false, "schema": {"type": "string"}}));
    out
}

/// The OpenAPI 3.1 document.
pub fn openapi() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.definitions_path = "/components/schemas".into();
    let mut g = settings.into_generator();
    let error = of::<ApiError>(&mut g).to_value();
    let mut paths: BTreeMap<&str, Map<String, Value>> = BTreeMap::new();
    for route in ROUTES {
        let ok = match route.answer {
            Json(schema) => {
                json!({"200": {"description": "OK", "content": {"application/json": {"schema": schema(&mut g).to_value()}}}})
            }
            Empty => json!({"204": {"description": "Accepted"}}),
            Events(schema) => {
                json!({"200": {"description": "Server-sent events; each `data:` line is one item", "content": {"text/event-stream": {"schema": schema(&mut g).to_value()}}}})
            }
        };
        let mut responses = ok.as_object().cloned().unwrap_or_default();
        for (code, what) in [("400", "Bad request"), ("404", "Not found")] {
            responses.insert(
                code.into(),
                json!({"description": what, "content": {"application/json": {"schema": error}}}),
            );
        }
        let mut op = json!({
            "summary": route.summary,
            "parameters": params(route.path),
            "responses": responses,
        });
        if let Some(body) = route.body {
            op["requestBody"] =
                json!({"content": {"application/json": {"schema": body(&mut g).to_value()}}});
        }
        paths
            .entry(route.path)
            .or_default()
            .insert(route.method.into(), op);
    }
    json!({
        "openapi": "3.1.0",
        "info": {"title": "Strata server", "version": VERSION},
        "paths": paths,
        "components": {
            "schemas": g.take_definitions(true),
            "securitySchemes": {"basic": {"type": "http", "scheme": "basic"}},
        },
    })
}
