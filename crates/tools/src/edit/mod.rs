//! The `edit` tool.

pub mod replace;
