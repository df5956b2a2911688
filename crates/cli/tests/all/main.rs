//! End-to-end tests of the built `strata` binary (`CARGO_BIN_EXE_strata`), run as a user would,
//! one binary (each module was once its own test file).

// Test helpers outside `#[test]` functions fail the test by panicking too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli_acp;
mod cli_auth_models;
mod cli_basics;
mod cli_mcp;
mod cli_mcp_serve;
mod cli_sandbox;
mod cli_startup;
mod cli_tool;
mod cli_tool_writes;
mod cli_tools;
mod common;
mod e2e_agents;
mod e2e_attach;
mod e2e_background;
mod e2e_cache;
mod e2e_config;
mod e2e_crash;
mod e2e_crash_support;
mod e2e_headless;
mod e2e_hooks;
mod e2e_opencode;
mod e2e_providers;
mod e2e_reasoning_cost;
mod e2e_run;
mod e2e_run_session;
mod e2e_run_support;
mod e2e_schemathesis;
mod e2e_serve;
mod e2e_serve_support;
mod e2e_signals;
mod e2e_skills;
mod e2e_task;
mod e2e_telemetry;
mod e2e_todo_question;
mod e2e_tui;
mod e2e_web;
mod e2e_worktree;
mod scenario_prompts;
mod scenarios;
mod tty_driver;
mod tui_transports;
