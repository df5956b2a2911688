//! The `grep` tool: a regular expression over file contents, newest files first (spec §6).

mod search;
mod tool;

pub use search::{LIMIT, MAX_LINE_CHARS};
pub use tool::{Grep, GrepParams};
