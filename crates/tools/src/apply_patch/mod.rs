//! The `apply_patch` tool: the file-oriented patch envelope of Codex-style models (spec §4).
//! Pure parts: `parse` (grammar) and `seek` (locating and applying chunks); `write` writes a
//! verified patch all or nothing.

pub mod parse;
pub mod seek;
mod tool;
mod write;

pub use tool::{ApplyPatch, ApplyPatchParams};
