//! The `glob` tool: files whose path matches a glob, newest first (spec §5).

mod tool;

pub use tool::{Glob, GlobParams, LIMIT};
