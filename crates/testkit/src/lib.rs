//! Test support for Strata, used by every crate's tests.
//!
//! - [`TestInstance`]: a tmpdir project built from the *production* graph (only the clock and
//!   the data/config directories replaced), disposed even when the test panics.
//! - [`model_server`]: a scripted model server speaking the OpenAI and Anthropic streaming
//!   protocols on 127.0.0.1.
//! - [`mcp_server`]: a scripted MCP server (stdio program `strata-mcp-fixture`, or HTTP).
//! - [`mcp_many`]: an MCP server with many generated tools, listed in pages.
//! - [`FixtureServer`]: any axum router served on 127.0.0.1.
//! - [`poll_with_timeout`], [`poll_within`], [`poll_within_blocking`], [`await_with_timeout`]:
//!   bounded waiting, never a bare sleep.
//! - [`redacted`]: insta settings that turn an instance's temporary paths into stable tokens.
//! - [`fake_lsp`]: a scripted language server (the `strata-fake-lsp` binary) for the Lsp
//!   service's protocol tests.
//! - [`screen::plain`]: a pseudo-terminal's output without its escape sequences.
//! - [`SseReader`]: a server's event stream read as `(cursor, item)` pairs, with `until`.
//! - [`require_external!`]: a test that needs an outside program runs when it is installed,
//!   else says it skipped (or fails under `STRATA_TEST_REQUIRE_EXTERNAL=1`).
//! - [`SmallDisk`]: a few-MiB `tmpfs` to fill up or make read-only (needs root; skips
//!   like a missing program otherwise).

// Test support: a setup that cannot be made must fail the test at once, with its reason.
#![allow(clippy::expect_used, clippy::unwrap_used)]

pub mod fake_lsp;
mod http_server;
mod instance;
pub mod mcp_many;
pub mod mcp_server;
pub mod model_server;
mod poll;
mod programs;
mod redact;
pub mod screen;
mod small_disk;
mod sse;

pub use http_server::FixtureServer;
pub use instance::{ReplyMode, TestInstance, TestInstanceBuilder};
pub use poll::{await_with_timeout, poll_with_timeout, poll_within, poll_within_blocking};
pub use programs::{
    REQUIRE_EXTERNAL, Verdict, external, external_found, external_required, find_on_path,
    process_ended, verdict,
};
pub use redact::redacted;
pub use small_disk::SmallDisk;
pub use sse::{Item as SseItem, SseReader};
