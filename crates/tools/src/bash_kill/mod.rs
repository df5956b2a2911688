//! The `bash_kill` tool: ends a background shell and its process group (spec §7.8).

mod tool;

pub use tool::{BashKill, BashKillParams};
