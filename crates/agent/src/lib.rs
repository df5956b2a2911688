//! Strata's floor 5: providers, the agent loop, sessions and events in SQLite.

pub mod provider;
pub mod store;
