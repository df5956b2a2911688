//! The apply_patch parser and the chunk applier: any patch text parses or is refused with an
//! error, and an update either applies to a file or is refused; a result ends with a newline
//! unless it is empty.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_fuzz::fields;
use strata_tools::apply_patch::parse::{Section, parse_patch};
use strata_tools::apply_patch::seek::apply_chunks;

fuzz_target!(|data: &[u8]| {
    let [patch, content] = <[String; 2]>::try_from(fields(data, 2)).unwrap_or_default();
    let Ok(parsed) = parse_patch(&patch) else {
        return;
    };
    for section in &parsed.sections {
        if let Section::Update { chunks, path, .. } = section {
            if let Ok(out) = apply_chunks(&content, chunks, path) {
                assert!(out.is_empty() || out.ends_with('\n'), "{out:?}");
            }
        }
    }
});
