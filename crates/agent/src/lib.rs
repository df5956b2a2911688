//! Strata's floor 5: providers, the agent loop, sessions and events in SQLite.
//!
//! - [`provider`]: OpenAI-compatible and Anthropic streaming clients.
//! - [`store`]: sessions, messages, parts and their numbered events.
//! - [`session`]: the agent loop and its parts; [`events`]: what front-ends hear.
//! - [`todos`]: session todo lists kept in the store.
//! - [`subagents`]: child sessions started by the `task` tool.
//! - [`production`]: the registry's production graph plus the [`Store`](store::Store) and the
//!   todo lists kept in it.

pub mod doom;
pub mod events;
pub mod provider;
pub mod session;
pub mod store;
pub mod subagents;
pub mod todos;

mod production;

pub use production::{production, store_node};
