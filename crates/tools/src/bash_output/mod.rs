//! The `bash_output` tool: the new output of a background shell (spec §7.7).

mod tool;

pub use tool::{BashOutput, BashOutputParams};
