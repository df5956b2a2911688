//! Strata's floor 3: the tool contract, the tower layers around every tool, and the tools.
//!
//! - [`contract`]: `Tool`, `ToolCx`, `ToolResult`, `ToolError`, `ToolDef` (erasure + layers).
//! - [`layers`]: tracing, argument decoding, cancellation and output truncation, one module each.
//! - one module per built-in tool, listed once in [`builtin`].

pub mod apply_patch;
pub mod bash;
pub mod bash_kill;
pub mod bash_output;
mod common;
pub mod contract;
pub mod diff;
pub mod edit;
pub mod glob;
pub mod grep;
pub mod invalid;
pub mod layers;
pub mod list_mcp_resources;
pub mod lsp;
pub mod plan_exit;
pub mod question;
pub mod read;
pub mod read_mcp_resource;
pub mod skill;
pub mod task;
pub mod todowrite;
pub mod transaction;
pub mod webfetch;
pub mod websearch;
pub mod write;

pub use contract::{
    Ask, Attachment, Effects, ErasedTool, Tool, ToolCall, ToolCx, ToolDef, ToolError, ToolResult,
    Visibility,
};

/// Every built-in tool, in registration order (spec §0.7). Adding a tool is one module and
/// one line here.
pub fn builtin() -> Vec<ToolDef> {
    vec![
        ToolDef::of::<invalid::Invalid>(),
        ToolDef::of::<question::QuestionTool>(),
        ToolDef::of::<bash::Bash>(),
        ToolDef::of::<bash_output::BashOutput>(),
        ToolDef::of::<bash_kill::BashKill>(),
        ToolDef::of::<read::Read>(),
        ToolDef::of::<glob::Glob>(),
        ToolDef::of::<grep::Grep>(),
        ToolDef::of::<edit::Edit>(),
        ToolDef::of::<write::Write>(),
        ToolDef::of::<transaction::Transaction>(),
        ToolDef::of::<task::TaskTool>(),
        ToolDef::of::<webfetch::Webfetch>(),
        ToolDef::of::<todowrite::TodoWrite>(),
        ToolDef::of::<websearch::Websearch>(),
        ToolDef::of::<skill::SkillTool>(),
        ToolDef::of::<apply_patch::ApplyPatch>(),
        ToolDef::of::<lsp::LspTool>(),
        ToolDef::of::<plan_exit::PlanExit>(),
        ToolDef::of::<list_mcp_resources::ListMcpResources>(),
        ToolDef::of::<read_mcp_resource::ReadMcpResource>(),
    ]
}
