//! The `websearch` tool (spec §9): a query sent to an Exa-compatible MCP endpoint over HTTP
//! (JSON-RPC `tools/call` of `web_search_exa`), answered in JSON or as server-sent events.
//! Shown only when a search backend is configured (see `strata_services::config::websearch`).

mod reply;
mod tool;

pub use reply::{Reply, parse_reply};
pub use tool::{Livecrawl, SearchType, TIMEOUT, Websearch, WebsearchParams};
