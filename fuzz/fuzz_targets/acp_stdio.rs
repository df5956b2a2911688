//! The ACP agent's stdio reader (`strata acp`): a request after any bytes is still answered,
//! and every line the agent writes is JSON-RPC (`strata_fuzz::acp`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_fuzz::split_point;

fuzz_target!(|data: &[u8]| {
    let (cut, bytes) = split_point(data);
    strata_fuzz::acp::check(cut, bytes);
});
