//! Tool programs: the `execute` tool (spec §17). A program runs in the confined interpreter of
//! [`script`] and calls the read-only built-in tools on the surface (`tools.read(input)`,
//! `tools.grep`, `tools.glob`, `tools.webfetch`, `tools.lsp`) and the permitted MCP tools
//! (`tools.‹server›.‹tool›(input)`); each call goes through that tool's own wrapper and
//! permission ask, with call id `‹callID›/‹n›`. [`bounds`] caps the calls, the wall time and
//! the memory of one program; [`catalogue`] writes the description within a size budget and
//! backs `search()`.
//!
//! Offered when `tool_surface.execute` is `true` (off by default) and at least one tool is
//! callable. It lives in the
//! registry, not with the built-in tools, because its description and its bridge are made from
//! the surface, which only the registry knows.

pub mod bounds;
pub mod catalogue;
mod run;
pub mod script;

use std::sync::Arc;

use serde_json::json;
use strata_services::config::ToolSurfaceConfig;
use strata_services::permission::hidden_tools;
use strata_tools::contract::DynamicTool;
use strata_tools::{Effects, ErasedTool, Visibility};

use crate::SurfaceSpec;
use crate::mcp::{McpTools, UNTRUSTED};
use bounds::Bounds;
use catalogue::{BUDGET, BUILTINS, Callee, Finder, listing};

/// The tool id and permission key.
pub const ID: &str = "execute";

/// Whether config offers `execute`: `tool_surface.execute`, off unless set.
pub(crate) fn enabled(config: &ToolSurfaceConfig) -> bool {
    config.execute.unwrap_or(false)
}

/// The `execute` tool over `callees`, behind the standard wrapper.
pub(crate) fn tool(callees: Vec<Callee>, mcp: &McpTools, bounds: Bounds) -> ErasedTool {
    // A program that can only read is itself read-only: it may run beside other reads and in
    // plan mode.
    let effects = if callees.iter().all(|c| c.tool.effects.read_only) {
        Effects {
            open_world: callees.iter().any(|c| c.tool.effects.open_world),
            ..Effects::READ_ONLY
        }
    } else {
        UNTRUSTED
    };
    let def = DynamicTool {
        id: ID,
        permission: ID,
        visibility: Visibility::Always,
        description: description(&callees, &bounds),
        schema: json!({
            "type": "object",
            "properties": {"code": {
                "type": "string",
                "description": "The body of an async JavaScript function to run."
            }},
            "required": ["code"],
        }),
        effects,
        // The MCP tools a script calls carry their own hooks.
        hooks: strata_tools::layers::hooks::HooksLayer::off(),
    };
    let call = run::Execute {
        finder: Finder::new(&callees),
        tools: Arc::new(callees),
        bounds,
    };
    ErasedTool::dynamic_fn(
        def,
        mcp.truncate.clone(),
        &mcp.limits,
        call,
        run::Execute::run,
    )
}

/// `execute` and where it goes on `surface` (before the first MCP tool, else after the
/// built-in ones), when config offers it, rules allow it and some tool is callable. In plan
/// mode only read-only tools are callable.
pub(crate) fn surfaced(
    mcp: &McpTools,
    config: &ToolSurfaceConfig,
    builtins: &[ErasedTool],
    surface: &[ErasedTool],
    spec: &SurfaceSpec,
) -> Option<(usize, ErasedTool)> {
    if !enabled(config) || !hidden_tools(&[(ID, ID)], &spec.ruleset).is_empty() {
        return None;
    }
    let on_surface = |t: &ErasedTool| surface.iter().any(|s| s.id == t.id);
    let mut callees: Vec<Callee> = surface
        .iter()
        .filter(|t| BUILTINS.contains(&t.id))
        .map(Callee::builtin)
        .collect();
    let taken: Vec<&str> = builtins.iter().map(|t| t.id).collect();
    let first_mcp = surface.iter().position(|t| !taken.contains(&t.id));
    callees.extend(
        mcp.callables(&taken)
            .into_iter()
            .filter(|c| on_surface(&c.tool))
            // An MCP server named like a built-in tool would hide it under `tools.‹name›`.
            .filter(|c| !BUILTINS.contains(&crate::mcp::sanitize(&c.mcp.server).as_str()))
            .map(Callee::mcp),
    );
    if spec.plan_mode {
        callees.retain(|c| c.tool.effects.read_only);
    }
    if callees.is_empty() {
        return None;
    }
    let bounds = Bounds {
        wall: config.execute_timeout,
        ..Bounds::default()
    };
    let at = first_mcp.unwrap_or(surface.len());
    Some((at, tool(callees, mcp, bounds)))
}

/// Our summary, the bounds, then the callable tools within the budget.
fn description(callees: &[Callee], bounds: &Bounds) -> String {
    let mut out = include_str!("description.md").trim_end().to_string();
    out.push_str("\n\n");
    out.push_str(&bounds.describe());
    out.push_str("\n\nAvailable tools:");
    out.push_str(&listing(callees, BUDGET));
    out
}

#[cfg(test)]
mod tests;
