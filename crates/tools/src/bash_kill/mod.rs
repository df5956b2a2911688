//! The `bash_kill` tool: ends a background shell and its process group (spec §7.7).

mod tool;

pub use tool::{BashKill, BashKillParams};
