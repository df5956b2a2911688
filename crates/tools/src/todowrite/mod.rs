//! The `todowrite` tool: replace the session's todo list (spec §10).

mod tool;

pub use tool::{TodoItem, TodoWrite, TodoWriteParams};
