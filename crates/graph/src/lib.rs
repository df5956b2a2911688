//! Strata's floor 1: the Effect-style service graph.
//!
//! - [`Service`]: a cheap-to-clone handle with a stable `KEY`.
//! - [`Context`]: an immutable map from service type to value; [`Missing`] names what is absent.
//! - [`Deps`]: a tuple of services, from which a consumer's requirements are derived.
//! - [`Node`]: builds one service from its `Deps` inside a [`Scope`]; identity is the `Arc`.
//!   A node made of [`Part`]s (e.g. the tools of a registry) has validation name the part.
//! - [`Graph`]: validated before any build ([`ValidationReport`] lists every problem at once),
//!   built in dependency order with independent nodes concurrently, memoized in a [`MemoMap`].
//! - [`Tier`]: global (per process) or instance (per project directory).
//!
//! This crate knows nothing of files, tools or models.

mod consumer;
mod context;
mod deps;
mod error;
mod graph;
mod memo;
mod node;
mod scope;
mod service;
mod validate;

pub use consumer::{Consumer, resolve};
pub use context::{Context, Missing};
pub use deps::{Deps, Part, PartName, Requirement};
pub use error::{BoxError, BuildError, Problem, ReplaceError, ValidationReport};
pub use graph::Graph;
pub use memo::MemoMap;
pub use node::Node;
pub use scope::Scope;
pub use service::{Service, Tier};
pub use validate::Available;

#[cfg(test)]
mod tests;
