//! The `read_mcp_resource` tool (spec §22): reads one resource from a connected MCP server by
//! URI. Text comes back as the output; binary contents come back as attachments. Shown only
//! while a server that offers resources is connected.

mod render;
mod tool;

pub use render::contents;
pub use tool::{ReadMcpResource, ReadMcpResourceParams};
