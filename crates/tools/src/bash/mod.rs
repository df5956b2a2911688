//! The `bash` tool.

pub mod arity;
pub(crate) mod background;
mod capture;
pub mod output;
mod render;
pub mod scan;
mod shell;
mod tool;
mod view;

pub(crate) use render::Ending;
pub use shell::Shell;
pub use tool::{Bash, BashParams, DEFAULT_TIMEOUT_MS};
