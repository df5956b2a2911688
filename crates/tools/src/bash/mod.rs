//! The `bash` tool.

pub mod arity;
pub mod scan;
