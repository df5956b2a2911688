//! Skill and agent frontmatter: any file splits into YAML and body or is refused with an
//! error, and the body is the end of the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_services::frontmatter::{parse, split};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(parts) = split(&text) {
        assert!(
            text.ends_with(parts.body),
            "the body is not the end of the file"
        );
    }
    let _ = parse::<serde_json::Value>(&text);
});
