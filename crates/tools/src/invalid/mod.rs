//! The `invalid` tool: never advertised; the loop sends calls it cannot run here (an unknown
//! tool name) so the model gets an answer it can act on (spec §15).

mod tool;

pub use tool::{Invalid, InvalidParams};
