//! The `edit` tool: replace one exact (or tolerantly matched) piece of a file (spec §3).

pub mod replace;
mod tool;

pub use tool::{Edit, EditParams};
