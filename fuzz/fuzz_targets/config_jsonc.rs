//! Config loading: JSONC is read as the JSON it means (plain JSON passes through untouched, the
//! stripped text keeps its length), and any parsed document is checked field by field without
//! a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_services::config::{Config, strip_jsonc};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let stripped = strip_jsonc(&text);
    assert_eq!(stripped.len(), text.len(), "stripping keeps positions");
    if serde_json::from_str::<serde_json::Value>(&text).is_ok() {
        assert_eq!(stripped, text.as_ref(), "plain JSON passes through");
    }
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(&stripped) {
        let _ = Config::from_value(value);
    }
});
