//! The TUI's event reducer, fed numbered event sequences of the open session: a replayed
//! event changes nothing, and any arrival order gives the in-order state
//! (`strata_fuzz::reducer`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| strata_fuzz::reducer::check(data));
