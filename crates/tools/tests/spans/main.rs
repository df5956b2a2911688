//! The `Tool.execute` span, seen through a thread-local subscriber: its own binary, apart from
//! `all`, because tracing caches per call site, for the whole process, whether anyone listens.
//! In a process where other tests call tools with no subscriber at the same moment, a call site
//! can be cached as uninteresting and these tests then see no span at all (flaky).

// Test helpers outside `#[test]` functions fail the test by panicking too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod wrapper_otel;
mod wrapper_trace;
