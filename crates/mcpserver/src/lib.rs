//! Strata's tools served over the Model Context Protocol (issue 11), with the official SDK
//! (`rmcp`): the tools an agent would see for one project, run through the same wrapper,
//! permission rules and effects as in a run.
//!
//! - [`StrataMcp`]: the server handler for one instance and agent ([`ServeOptions`]).
//! - [`serve_stdio`]: MCP on stdin/stdout (`strata mcp`); logs belong on stderr.
//! - [`http_service`] / [`router`] / [`serve_http`]: the streamable-HTTP transport as a tower
//!   service to mount at `/mcp` (`strata serve`), or served alone (`strata mcp --http`).
//!
//! Nobody can answer a permission ask over MCP: asks that the rules leave open are refused with
//! a message saying how to allow the tool, unless the server was started with `--yes`.

mod asks;
mod convert;
mod server;
mod transport;

pub use asks::refusal;
pub use convert::{annotations, result_content};
pub use server::{CONSUMER, DEFAULT_MODEL, Needs, ServeError, ServeOptions, StrataMcp};
pub use transport::{bind, http_service, router, serve_http, serve_stdio};
