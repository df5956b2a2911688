//! Strata's floor 1: the Effect-style service graph.
//!
//! - [`Service`]: a cheap-to-clone handle with a stable `KEY`.
//! - [`Context`]: an immutable map from service type to value; [`Missing`] names what is absent.
//! - [`Deps`]: a tuple of services, from which a consumer's requirements are derived.
//! - [`Node`]: builds one service from its `Deps` inside a [`Scope`]; identity is the `Arc`.
//! - [`Graph`]: validated before any build ([`ValidationReport`] lists every problem at once),
//!   built in dependency order with independent nodes concurrently, memoized in a [`MemoMap`].
//! - [`Tier`]: global (per process) or instance (per project directory).
//!
//! This crate knows nothing of files, tools or models.

mod context;
mod deps;
mod graph;
mod memo;
mod node;
mod scope;
mod service;
mod validate;

pub use context::{Context, Missing};
pub use deps::{Deps, Requirement};
pub use graph::{BuildError, Graph, ReplaceError};
pub use memo::MemoMap;
pub use node::{BoxError, Node};
pub use scope::Scope;
pub use service::{Service, Tier};
pub use validate::{Available, Problem, ValidationReport};

#[cfg(test)]
mod tests;
