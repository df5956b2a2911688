//! The testkit's integration tests, one binary: the `TestInstance` itself, the Lsp service's
//! protocol against the scripted language server (`strata-fake-lsp`) and the MCP client against
//! the scripted MCP server (`strata-mcp-fixture`). Only this crate's tests get those programs'
//! paths from Cargo, which is why these tests live here.

// Test helpers outside `#[test]` functions fail the test by panicking too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod code_mode;
mod deferred_tools;
mod instance;
mod lsp_service;
mod mcp_client;
mod mcp_resources;
