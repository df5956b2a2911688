//! Subagents: the agent loop's side of the `task` tool. The tool holds the
//! [`Subagents`](strata_services::subagents::Subagents) handle; this module implements it.
//!
//! - [`runs`]: the runs alive in this process by session id, so a child can be started with
//!   its parent's model, options and front-end;
//! - [`rules`]: a child's session rules, derived from its parent's (spec §14 step 4);
//! - [`host`]: checks, child sessions in the store, and the child's run;
//! - [`isolate`]: `isolation: worktree`, a child in a git worktree of its own.

pub mod host;
pub mod isolate;
pub mod rules;
pub mod runs;

pub use host::{StoredSubagents, subagents_node};
pub use runs::{LiveRun, RunContext, SubagentRuns, subagent_runs_node};
