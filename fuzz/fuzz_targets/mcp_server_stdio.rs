//! The MCP server's stdio reader (`strata mcp`, the SDK's server transport): the same messages
//! however the bytes are cut, and no malformed line stops it (`strata_fuzz::jsonrpc`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_fuzz::split_point;

fuzz_target!(|data: &[u8]| {
    let (cut, bytes) = split_point(data);
    strata_fuzz::jsonrpc::check_server(cut, bytes);
});
