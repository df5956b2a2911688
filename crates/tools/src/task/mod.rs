//! The `task` tool: hand a piece of work to a subagent that runs in a child session (spec §14).

mod tool;

pub use tool::{TaskParams, TaskTool, describe, result_block};
