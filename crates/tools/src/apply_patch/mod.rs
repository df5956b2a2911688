//! The `apply_patch` tool.

pub mod parse;
pub mod seek;
