//! End-to-end tests of the `strata` binary live in `tests/`; this crate holds no code.
