//! Code mode: the `execute` tool (spec §17). A script runs in the confined interpreter of
//! [`script`] and calls the permitted MCP tools as `tools.‹server›.‹tool›(input)`; each call
//! goes through that MCP tool's own wrapper and permission ask, with call id `‹callID›/‹n›`.
//!
//! It lives in the registry, not with the built-in tools, because its description and its
//! bridge are made from the MCP tools the surface permits, which only the registry knows.

pub mod script;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};
use strata_services::config::ToolOutput;
use strata_services::flags::Flag;
use strata_services::truncate::Truncate;
use strata_tools::contract::{Decoded, DynamicTool};
use strata_tools::{Attachment, ErasedTool, ToolError, ToolResult, Visibility};
use tokio::sync::{mpsc, oneshot};

use crate::SurfaceSpec;
use crate::mcp::{Callable, McpTools, UNTRUSTED, sanitize};
use script::{Entry, Limits, Outcome};
use strata_services::permission::hidden_tools;

/// The tool id and permission key.
pub const ID: &str = "execute";

/// The `execute` tool over `tools` (the permitted MCP tools), behind the standard wrapper.
pub(crate) fn tool(
    tools: Vec<Callable>,
    truncate: Truncate,
    limits: &ToolOutput,
    script_limits: Limits,
) -> ErasedTool {
    let def = DynamicTool {
        id: ID,
        permission: ID,
        visibility: Visibility::Flag(Flag::ExperimentalCodeMode),
        description: description(&tools),
        schema: json!({
            "type": "object",
            "properties": {"code": {
                "type": "string",
                "description": "The body of an async JavaScript function to run."
            }},
            "required": ["code"],
        }),
        effects: UNTRUSTED,
        // The MCP tools a script calls carry their own hooks.
        hooks: strata_tools::layers::hooks::HooksLayer::off(),
    };
    let call = Execute {
        tools: Arc::new(tools),
        limits: script_limits,
    };
    ErasedTool::dynamic_fn(def, truncate, limits, call, Execute::run)
}

/// `execute` and where it goes on `surface`, when code mode is on, rules and mode allow it,
/// and at least one MCP tool is on the surface (the ones it may call).
pub(crate) fn surfaced(
    mcp: &McpTools,
    builtins: &[ErasedTool],
    surface: &[ErasedTool],
    spec: &SurfaceSpec,
) -> Option<(usize, ErasedTool)> {
    if !spec.flags.contains(&Flag::ExperimentalCodeMode) || spec.plan_mode {
        return None;
    }
    if !hidden_tools(&[(ID, ID)], &spec.ruleset).is_empty() {
        return None;
    }
    let taken: Vec<&str> = builtins.iter().map(|t| t.id).collect();
    let callable: Vec<Callable> = mcp
        .callables(&taken)
        .into_iter()
        .filter(|c| surface.iter().any(|t| t.id == c.tool.id))
        .collect();
    let first = callable.first()?.tool.id;
    let at = surface.iter().position(|t| t.id == first)?;
    let execute = tool(
        callable,
        mcp.truncate.clone(),
        &mcp.limits,
        Limits::default(),
    );
    Some((at, execute))
}

/// Our summary, then each tool as `tools.server.tool(input: {...})` with its description.
fn description(tools: &[Callable]) -> String {
    let mut out = include_str!("description.md").trim_end().to_string();
    for c in tools {
        let first = c.mcp.description.lines().next().unwrap_or_default();
        out.push_str(&format!(
            "\n- `tools.{}.{}(input: {})`: {first}",
            sanitize(&c.mcp.server),
            c.mcp.name,
            signature(&c.mcp.schema)
        ));
    }
    out
}

/// `{ city: string, days?: number }` from a JSON schema's properties.
fn signature(schema: &Value) -> String {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema["properties"].as_object() else {
        return "{}".into();
    };
    let fields: Vec<String> = props
        .iter()
        .map(|(k, v)| {
            let ty = v["type"].as_str().unwrap_or("any");
            let ty = if ty == "integer" { "number" } else { ty };
            let opt = if required.contains(&k.as_str()) {
                ""
            } else {
                "?"
            };
            format!("{k}{opt}: {ty}")
        })
        .collect();
    if fields.is_empty() {
        "{}".into()
    } else {
        format!("{{ {} }}", fields.join(", "))
    }
}

#[derive(Clone)]
struct Execute {
    tools: Arc<Vec<Callable>>,
    limits: Limits,
}

/// A bridge call from the script thread to the async side.
struct Bridge {
    id: String,
    input: String,
    reply: oneshot::Sender<Result<String, String>>,
}

impl Execute {
    async fn run(self, req: Decoded<Value>) -> Result<ToolResult, ToolError> {
        let Some(code) = req.params.get("code").and_then(Value::as_str) else {
            return Err(ToolError::InvalidArguments {
                tool: ID.into(),
                detail: "`code` must be a string holding the script".into(),
            });
        };
        let code = code.to_string();
        let entries: Vec<Entry> = self
            .tools
            .iter()
            .map(|c| {
                let server = sanitize(&c.mcp.server);
                (server, c.mcp.name.clone(), c.tool.id.to_string())
            })
            .collect();
        let cancelled = Arc::new(AtomicBool::new(false));
        let (tx, mut rx) = mpsc::channel::<Bridge>(1);
        let flag = cancelled.clone();
        let limits = self.limits;
        let mut script = tokio::task::spawn_blocking(move || {
            let host: script::Host = Box::new(move |id: &str, input: String| {
                let (reply, answer) = oneshot::channel();
                let bridge = Bridge {
                    id: id.to_string(),
                    input,
                    reply,
                };
                if tx.blocking_send(bridge).is_err() {
                    return Err("The execute call has ended.".into());
                }
                answer
                    .blocking_recv()
                    .unwrap_or_else(|_| Err("The execute call has ended.".into()))
            });
            let mut logs = Vec::new();
            let outcome = script::run(&code, &entries, host, limits, flag, &mut logs);
            (outcome, logs)
        });
        let mut attachments: Vec<Attachment> = Vec::new();
        let mut n = 0usize;
        let abort = req.cx.abort.clone();
        let joined = loop {
            tokio::select! {
                done = &mut script => break done,
                () = abort.cancelled(), if !cancelled.load(Ordering::Relaxed) => {
                    cancelled.store(true, Ordering::Relaxed);
                }
                Some(bridge) = rx.recv() => {
                    n += 1;
                    let answer = self.inner_call(&req, &bridge, n, &mut attachments).await;
                    // A cancellation that ended the inner call must reach the script before the
                    // call's error does, or the script could finish as if the tool had failed.
                    if abort.is_cancelled() {
                        cancelled.store(true, Ordering::Relaxed);
                    }
                    let _ = bridge.reply.send(answer);
                }
            }
        };
        let (outcome, logs) =
            joined.map_err(|e| ToolError::fatal(format!("The script thread failed: {e}")))?;
        finish(outcome, logs, attachments)
    }

    async fn inner_call(
        &self,
        req: &Decoded<Value>,
        bridge: &Bridge,
        n: usize,
        attachments: &mut Vec<Attachment>,
    ) -> Result<String, String> {
        let Some(c) = self.tools.iter().find(|c| c.tool.id == bridge.id) else {
            return Err(format!(
                "No tool `{}` is available to this script.",
                bridge.id
            ));
        };
        let mut cx = req.cx.clone();
        cx.call_id = format!("{}/{n}", req.cx.call_id);
        match c.tool.call(bridge.input.clone(), cx).await {
            Ok(r) => {
                let mut text = r.output;
                if !r.attachments.is_empty() {
                    text.push_str(&format!(
                        "\n[{} file(s) attached to the execute result]",
                        r.attachments.len()
                    ));
                    attachments.extend(r.attachments);
                }
                Ok(text)
            }
            Err(e) => Err(e.to_string()),
        }
    }
}

/// The tool result of a finished script.
fn finish(
    outcome: Outcome,
    logs: Vec<String>,
    attachments: Vec<Attachment>,
) -> Result<ToolResult, ToolError> {
    let with_logs = |text: String| {
        if logs.is_empty() {
            text
        } else {
            format!("{text}\n\nLogs:\n{}", logs.join("\n"))
        }
    };
    let output = match outcome {
        Outcome::Done(text) => with_logs(text),
        Outcome::Cancelled => {
            return Ok(ToolResult::new(ID, "Execution cancelled.").meta("error", true));
        }
        Outcome::OpLimit => {
            return Err(ToolError::model(with_logs(
                "The script ran past its operation limit and was stopped. Do less work per \
                 script (fewer iterations), or split it into several calls."
                    .into(),
            )));
        }
        Outcome::MemoryLimit => {
            return Err(ToolError::model(with_logs(
                "The script used more memory than the sandbox allows and was stopped. Keep \
                 less data in memory at once."
                    .into(),
            )));
        }
        Outcome::Threw(message) => {
            return Err(ToolError::model(with_logs(format!(
                "The script threw an error: {message}"
            ))));
        }
    };
    let mut r = ToolResult::new(ID, output);
    for a in attachments {
        r = r.attach(a);
    }
    Ok(r)
}

#[cfg(test)]
mod tests;
