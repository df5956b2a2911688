//! The chat stream decoder and call assembler, fed whole SSE bodies (see `streams::check`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_agent::provider::OpenAiWire;
use strata_fuzz::{split_point, streams};

fuzz_target!(|data: &[u8]| {
    let (cut, body) = split_point(data);
    streams::check::<OpenAiWire>(body, cut);
});
