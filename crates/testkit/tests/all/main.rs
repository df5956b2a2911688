//! The testkit's integration tests, one binary: the `TestInstance` itself, and the Lsp
//! service's protocol against the scripted language server (`strata-fake-lsp`, whose path
//! only this crate's tests get from Cargo).

// Test helpers outside `#[test]` functions fail the test by panicking too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod instance;
mod lsp_service;
