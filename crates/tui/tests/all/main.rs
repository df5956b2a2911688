//! strata-tui's integration tests: one binary, one module per area.

mod fixtures;
mod http;
mod keys;
mod reducer;
mod views;
