//! The `write` tool: create a file or replace its whole content (spec §2).

mod tool;

pub use tool::{Write, WriteParams};
