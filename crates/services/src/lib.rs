//! Strata's floor 2: every capability as a service, and the production graph.
//!
//! Each service is a trait behind a cheap-to-clone handle with a live implementation.

pub mod background;
pub mod bus;
pub mod clock;
pub mod config;
pub mod diff_budget;
pub mod file_time;
pub mod flags;
pub mod format;
pub mod frontmatter;
pub mod fs;
pub mod hooks;
pub mod http;
pub mod instance;
pub mod instructions;
pub mod lsp;
pub mod mcp;
mod pending;
pub mod permission;
pub mod process;
mod production;
pub mod question;
pub mod skills;
pub mod snapshot;
pub mod subagents;
pub mod todo;
pub mod truncate;
pub mod worktree;

pub use production::production;
