//! Strata's floor 5: providers, the agent loop, sessions and events in SQLite.
//!
//! - [`provider`]: OpenAI-compatible and Anthropic streaming clients.
//! - [`catalogue`]: known models (context window, output limit, reasoning, prices).
//! - [`store`]: sessions, messages, parts and their numbered events.
//! - [`session`]: the agent loop and its parts; [`events`]: what front-ends hear.
//! - [`todos`]: session todo lists kept in the store.
//! - [`undo`]: revert, unrevert and the session's file changes, over the Snapshots service.
//! - [`production`]: the registry's production graph plus the [`Store`](store::Store) and the
//!   todo lists kept in it.

pub mod catalogue;
pub mod doom;
pub mod events;
pub mod provider;
pub mod session;
pub mod store;
pub mod todos;
pub mod undo;

mod production;

pub use production::{production, store_node};
