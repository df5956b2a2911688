//! Strata's floor 4: which tools a model, agent and mode see, and starting the whole graph.
//!
//! - [`ToolRegistry`]: the instance's tools, initialised from the graph; its node's
//!   requirements are every tool's, so graph validation checks the tools are complete.
//! - [`surface`]: the advertised tools for a model, from each tool's declared visibility,
//!   effects and permission key (patch models, flags, backends, plan mode, hidden tools).
//! - [`agents`]: the built-in and custom agents (config, markdown files), one [`Agents`]
//!   service per instance.
//! - [`deferred`]: loaded and deferred tools, `tool_search` and its BM25 index.
//! - [`mcp`]: the tools of the configured MCP servers, adapted to the tool contract.
//! - [`Runtime`] / [`Instance`]: the global tier once, an instance per directory.

pub mod agents;
pub mod deferred;
pub mod execute;
pub mod mcp;
mod registry;
pub mod rules;
mod runtime;
pub mod surface;

pub use agents::{AgentInfo, AgentMode, Agents, UnknownAgent};
pub use deferred::{Deferral, Layout, ToolState};
pub use registry::{RegistryError, ToolRegistry, production};
pub use runtime::{Instance, InstanceBuilder, Runtime};
pub use surface::{SurfaceSpec, is_patch_model};
