//! strata-tui's integration tests: one binary, one module per area.

// Test helpers outside `#[test]` functions fail the test by panicking too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod fixtures;
mod http;
mod keys;
mod pty;
mod reducer;
mod views;
