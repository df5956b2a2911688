//! The edit replacers: a replacement that succeeds puts `newString` in the file, and an
//! `oldString` that stands exactly once (overlaps counted) is replaced there and nowhere else.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_fuzz::fields;
use strata_tools::edit::replace::replace;

fuzz_target!(|data: &[u8]| {
    let [flags, content, old, new] = <[String; 4]>::try_from(fields(data, 4)).unwrap_or_default();
    let all = flags.len() % 2 == 1;
    let Ok(out) = replace(&content, &old, &new, all) else {
        return;
    };
    // Line endings are adapted to the file's, so the checks hold for LF text.
    if content.contains('\r') || new.contains('\r') || old.contains('\r') {
        return;
    }
    assert!(out.contains(&new), "the result lacks the new text");
    // Unique as the spec counts it: the first and the last occurrence are the same one
    // (overlapping occurrences count, so "aa" stands twice in "aaa").
    if !all && content.find(&old).is_some() && content.find(&old) == content.rfind(&old) {
        assert_eq!(
            out,
            content.replacen(&old, &new, 1),
            "an exact, unique match"
        );
    }
});
