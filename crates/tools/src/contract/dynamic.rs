//! Tools known only at run time (MCP tools): described by data instead of a `Tool` type, and
//! wrapped in the same layers as the built-in tools. Arguments decode into a JSON value; the
//! schema the model sees is the one given here.

use std::collections::HashSet;
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;
use strata_services::config::ToolOutput;
use strata_services::truncate::Truncate;

use super::def::{ErasedTool, layered};
use super::effects::Effects;
use super::error::ToolError;
use super::result::ToolResult;
use super::tool::Decoded;
use super::visibility::Visibility;
use crate::layers::diff_budget::DiffBudgetLayer;
use crate::layers::hooks::HooksLayer;

/// What a run-time tool is, as the registry lists it.
#[derive(Debug, Clone)]
pub struct DynamicTool {
    pub id: &'static str,
    pub permission: &'static str,
    pub visibility: Visibility,
    pub description: String,
    pub schema: Value,
    pub effects: Effects,
    /// The tool hooks around it ([`HooksLayer::off`] for none).
    pub hooks: HooksLayer,
}

impl ErasedTool {
    /// Wraps `service` (which receives the arguments as a JSON value) in the standard layers:
    /// span, decoding, cancellation, truncation within `limits`.
    pub fn dynamic<S>(
        tool: DynamicTool,
        truncate: Truncate,
        limits: &ToolOutput,
        service: S,
    ) -> Self
    where
        S: tower_service::Service<Decoded<Value>, Response = ToolResult, Error = ToolError>
            + Clone
            + Send
            + Sync
            + 'static,
        S::Future: Send + 'static,
    {
        ErasedTool {
            id: tool.id,
            permission: tool.permission,
            visibility: tool.visibility,
            description: tool.description,
            schema: Arc::new(tool.schema),
            effects: tool.effects,
            effects_of: None,
            for_rules: None,
            // MCP servers change files out of our sight: no undo point, no diff budget.
            service: layered::<Value, _>(
                tool.id,
                truncate,
                limits,
                (tool.hooks, None, DiffBudgetLayer::off()),
                service,
            ),
        }
    }
}

impl ErasedTool {
    /// [`dynamic`](Self::dynamic) for work that is always ready: each call runs `run` on a
    /// clone of `state` (the tool's own handles) with the decoded arguments.
    pub fn dynamic_fn<T, F>(
        tool: DynamicTool,
        truncate: Truncate,
        limits: &ToolOutput,
        state: T,
        run: fn(T, Decoded<Value>) -> F,
    ) -> Self
    where
        T: Clone + Send + Sync + 'static,
        F: Future<Output = Result<ToolResult, ToolError>> + Send + 'static,
    {
        let service = tower::service_fn(move |req| run(state.clone(), req));
        Self::dynamic(tool, truncate, limits, service)
    }
}

/// A `&'static str` for a run-time name. Tool ids are `&'static str` everywhere (spans, the
/// registry, permission keys); each distinct name is stored once for the life of the process,
/// and MCP servers offer a bounded set of names, so the memory kept is small and fixed.
pub fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(known) = names.get(name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.insert(leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_returns_the_same_str_for_the_same_name() {
        let a = intern(&format!("srv_{}", "echo"));
        let b = intern("srv_echo");
        assert!(std::ptr::eq(a, b));
        assert_eq!(a, "srv_echo");
    }
}
