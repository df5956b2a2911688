//! `strata acp`: Strata as an agent of the Agent Client Protocol, the JSON-RPC protocol editors
//! (Zed, JetBrains, Neovim, Emacs) use to drive coding agents over a process's stdio.
//!
//! A thin adapter over the server core, like the HTTP server and the MCP server beside it:
//! sessions live in the same store, prompts are queued as turns by the core, the session's
//! events are translated into ACP updates ([`updates`](crate::updates)), and permission asks
//! are answered through the core's reply path. Nothing here runs a model or a tool itself.
//!
//! ```ignore
//! let core = ServerCore::start(CoreOptions::new(dir)).await?;
//! strata_acp::serve_stdio(core.clone()).await?;   // until the editor closes stdin
//! core.shutdown().await;
//! ```

mod agent;
mod asks;
mod editor_fs;
mod mcp;
mod models;
mod modes;
mod prompt;
mod state;
mod stdio;
mod tool_call;
mod turn;
mod updates;

pub use agent::agent;
pub use stdio::{serve, serve_stdio};
