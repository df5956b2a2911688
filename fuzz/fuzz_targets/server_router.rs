//! The server's request bodies through its real router: never a 500, never a panic, and
//! `/doc` still answers (`strata_fuzz::router`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| strata_fuzz::router::check(data));
