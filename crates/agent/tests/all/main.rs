//! The agent crate's integration tests, one binary (each module was once its own test file).

// Test helpers outside `#[test]` functions fail the test by panicking too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agents_plan;
mod background_shells;
mod bench_caching;
mod bench_programs;
mod diff_budget;
mod long_history;
mod loop_basics;
mod loop_compact;
mod loop_deferred;
mod loop_effects;
mod loop_failures;
mod loop_hooks;
mod loop_hooks_events;
mod loop_hooks_output;
mod loop_prompt;
mod loop_reasoning;
mod loop_skills;
mod loop_streaming;
mod loop_support;
mod provider_responses;
mod provider_streams;
mod store_concurrency;
mod store_faults;
mod store_sessions;
mod store_todos;
mod task_subagents;
mod task_worktrees;
mod todo_question;
mod undo;
mod wire_corpus;
mod wire_dialects;
mod wire_reader;
