//! The `skill` tool (spec §13): loads one discovered skill's instructions by name.
//!
//! Discovery is the [`Skills`](strata_services::skills::Skills) service's job; the list of
//! skills reaches the model through the system prompt, so this tool's description never changes.

mod render;
mod tool;

pub use render::{FILE_SAMPLE, render};
pub use tool::{SkillParams, SkillTool};
