//! The `list_mcp_resources` tool (spec §21): the resources and resource templates of the
//! connected MCP servers that offer resources, every page of each list. Shown only while such
//! a server is connected (the `mcp_resources` backend, which the registry reports).

mod render;
mod tool;

pub use render::{listing, template_parameters};
pub use tool::{ListMcpResources, ListMcpResourcesParams};
