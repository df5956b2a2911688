//! The tool contract: what a tool is, what it gets, what it returns, how it fails.

mod cx;
mod def;
mod dynamic;
mod effects;
mod error;
pub mod lenient;
mod result;
pub mod schema;
mod tool;
mod visibility;

pub use cx::{Ask, MetadataUpdate, ToolCx, ToolCxBuilder};
pub use def::{ErasedTool, ToolCall, ToolDef};
pub use dynamic::{DynamicTool, intern};
pub use effects::Effects;
pub use error::ToolError;
pub use result::{Attachment, ToolResult};
pub use tool::{Decoded, Tool, ToolService};
pub use visibility::Visibility;
