//! The UTF-8 byte-order mark: `edit`, `write`, `apply_patch` and the formatter's re-sync keep
//! a file's BOM state (spec §2 step 3, §3.1 step 6).

/// U+FEFF, which a file may start with.
pub(crate) const BOM: char = '\u{FEFF}';

/// Split a leading byte-order mark off `text`: (had one, the rest).
pub fn split_bom(text: &str) -> (bool, &str) {
    match text.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, text),
    }
}

/// `body` with a byte-order mark in front when `bom` is set.
pub(crate) fn with_bom(bom: bool, body: &str) -> String {
    if bom {
        format!("{BOM}{body}")
    } else {
        body.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_leading_mark_counts_and_it_round_trips() {
        assert_eq!(split_bom("\u{FEFF}x"), (true, "x"));
        assert_eq!(split_bom("x\u{FEFF}"), (false, "x\u{FEFF}"));
        assert_eq!(with_bom(true, "x"), "\u{FEFF}x");
        assert_eq!(with_bom(false, "x"), "x");
    }
}
