//! Strata's floor 5: providers, the agent loop, sessions and events in SQLite.
//!
//! - [`provider`]: OpenAI-compatible and Anthropic streaming clients.
//! - [`catalogue`]: known models (context window, output limit, reasoning, prices).
//! - [`store`]: sessions, messages, parts and their numbered events.
//! - [`session`]: the agent loop and its parts; [`events`]: what front-ends hear.
//! - [`todos`]: session todo lists kept in the store.
//! - [`subagents`]: child sessions started by the `task` tool.
//! - [`undo`]: revert, unrevert and the session's file changes, over the Snapshots service.
//! - [`owned`]: which process runs a session and which process groups its tools started;
//!   [`recover`]: closing what a killed process left behind.
//! - [`production`]: the registry's production graph plus the [`Store`](store::Store) and the
//!   todo lists kept in it.

pub mod catalogue;
pub mod doom;
pub mod events;
pub mod owned;
pub mod provider;
pub mod recover;
pub mod session;
pub mod store;
pub mod subagents;
pub mod todos;
pub mod undo;

mod production;

pub use production::{production, recording_spawner_node, store_node};
