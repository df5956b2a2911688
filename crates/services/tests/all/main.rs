//! The services crate's integration tests, one binary (each module was once its own test file).

// Test helpers outside `#[test]` functions fail the test by panicking too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod config_load;
mod config_opencode;
mod faults_disk;
mod hooks_run;
mod http_client;
mod lsp_clangd;
mod sandbox_kernel;
mod sandbox_protect;
mod snapshot;
mod snapshot_store;
mod truncate_service;
mod worktree_git;
