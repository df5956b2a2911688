//! Tests of the MCP server with rmcp's own client, in process: over streamable HTTP on
//! 127.0.0.1 and over an in-memory duplex pipe (the stdio transport's byte stream).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod serve;
