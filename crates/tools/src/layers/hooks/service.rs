use std::sync::Arc;

use serde_json::{Value, json};
use strata_services::hooks::input::tool_fields;
use strata_services::hooks::{Decision, HookEvent, HookRun};
use strata_services::permission::Action;
use tower_service::Service;

use super::binding::HookBinding;
use super::notes::{combine, with_notes};
use crate::contract::{Ask, ToolCall, ToolCx, ToolError, ToolResult};

/// See [`HooksLayer`](super::HooksLayer).
#[derive(Debug, Clone)]
pub struct RunHooks<S> {
    inner: S,
    binding: Option<Arc<HookBinding>>,
}

impl<S> RunHooks<S> {
    pub fn new(inner: S, binding: Option<Arc<HookBinding>>) -> Self {
        Self { inner, binding }
    }
}

impl<S> Service<ToolCall> for RunHooks<S>
where
    S: Service<ToolCall, Response = ToolResult, Error = ToolError> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    crate::layers::tool_result_service!();

    fn call(&mut self, req: ToolCall) -> Self::Future {
        let binding = self
            .binding
            .clone()
            .filter(|b| b.hooks.has(HookEvent::PreToolUse) || b.hooks.has(HookEvent::PostToolUse));
        // A call whose arguments are not JSON fails in decoding; no hook sees it.
        let input = serde_json::from_str::<Value>(&req.input).ok();
        let (Some(binding), Some(input)) = (binding, input) else {
            return Box::pin(self.inner.call(req));
        };
        // The inner service was polled ready; keep that one and leave a fresh clone behind.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(async move {
            let fields = tool_fields(binding.tool, binding.mcp(), &input);
            let mut req = req;
            let mut notes = before(&binding, &mut req.cx, &fields, &input).await?;
            let cx = req.cx.clone();
            let mut result = inner.call(req).await;
            if let Ok(r) = &mut result {
                notes.extend(after(&binding, &cx, fields, r).await?);
                r.output = with_notes(&r.output, &notes);
            }
            result
        })
    }
}

/// Runs the hooks of `event`, reports them, and stops with the call's abort.
async fn run(
    binding: &HookBinding,
    cx: &ToolCx,
    event: HookEvent,
    fields: Value,
) -> Result<Vec<HookRun>, ToolError> {
    let tool = Some((binding.tool, binding.mcp()));
    let runs = tokio::select! {
        runs = binding.hooks.run(event, tool, &cx.session_id, fields) => runs,
        () = cx.abort.cancelled() => return Err(ToolError::Cancelled),
    };
    for run in &runs {
        if let Some(w) = &run.outcome.warning {
            tracing::warn!(target: "strata::hooks", session = %cx.session_id, "{w}");
        }
    }
    cx.report_hooks(runs.clone());
    Ok(runs)
}

/// `PreToolUse`: refuses the call, or sets the decision its asks are made with (asking once
/// here when a hook said `ask`). Returns the context to add to the result.
async fn before(
    binding: &HookBinding,
    cx: &mut ToolCx,
    fields: &Value,
    input: &Value,
) -> Result<Vec<String>, ToolError> {
    if !binding.hooks.has(HookEvent::PreToolUse) {
        return Ok(Vec::new());
    }
    let runs = run(binding, cx, HookEvent::PreToolUse, fields.clone()).await?;
    let pre = combine(&runs);
    if let Some(refused) = pre.refused {
        return Err(ToolError::model(refused));
    }
    if let Some(stop) = pre.stop {
        return Err(ToolError::fatal(format!(
            "A PreToolUse hook ended the turn before `{}` ran: {stop}",
            binding.tool
        )));
    }
    match pre.decision {
        Some((Decision::Ask, reason)) => {
            cx.set_hook_decision(Some(Action::Ask));
            cx.ask(forced_ask(binding, input, reason.as_deref()))
                .await?;
            // The user approved this call: the tool's own asks do not ask again.
            cx.set_hook_decision(Some(Action::Allow));
        }
        Some((Decision::Allow, _)) => cx.set_hook_decision(Some(Action::Allow)),
        Some((Decision::Deny, _)) | None => {}
    }
    Ok(pre.notes)
}

/// `PostToolUse`: the hooks see the result; their feedback and context are returned.
async fn after(
    binding: &HookBinding,
    cx: &ToolCx,
    mut fields: Value,
    result: &ToolResult,
) -> Result<Vec<String>, ToolError> {
    if !binding.hooks.has(HookEvent::PostToolUse) {
        return Ok(Vec::new());
    }
    if let Value::Object(f) = &mut fields {
        f.insert(
            "tool_response".into(),
            json!({"title": result.title, "output": result.output, "metadata": result.metadata}),
        );
    }
    let runs = run(binding, cx, HookEvent::PostToolUse, fields).await?;
    let post = combine(&runs);
    if let Some(stop) = post.stop {
        return Err(ToolError::fatal(format!(
            "{}\n\nA PostToolUse hook ended the turn after `{}` ran: {stop}",
            with_notes(&result.output, &post.notes),
            binding.tool
        )));
    }
    Ok(post.notes)
}

/// The ask a hook's `ask` makes: under the tool's permission, for what the call touches.
fn forced_ask(binding: &HookBinding, input: &Value, reason: Option<&str>) -> Ask {
    let pattern = ["command", "filePath", "url", "pattern"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .unwrap_or("*")
        .to_string();
    Ask::new(binding.permission, vec![pattern], Vec::new()).metadata(json!({
        "tool": binding.tool,
        "input": input,
        "hook": reason.unwrap_or("a PreToolUse hook asks you to confirm this call"),
    }))
}
