//! The MCP client's stdio reader (the stdout line filter, then the SDK's client transport):
//! the same lines and messages however the bytes are cut (`strata_fuzz::jsonrpc`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_fuzz::split_point;

fuzz_target!(|data: &[u8]| {
    let (cut, bytes) = split_point(data);
    strata_fuzz::jsonrpc::check_client(cut, bytes);
});
