//! The TUI's markdown renderer: no panic, every line fits the width, the letters survive
//! (`strata_fuzz::markdown`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| strata_fuzz::markdown::check(data));
