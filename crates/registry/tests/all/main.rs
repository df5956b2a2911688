//! The registry's integration tests, one binary as in every crate.

mod surface;
