//! The properties the fuzz targets check, as plain functions: each target only turns its input
//! into arguments and calls one of these, so a property can also be run on a saved input from
//! a unit test. A broken property panics, which libFuzzer reports as a crash.

pub mod acp;
pub mod core;
pub mod jsonrpc;
pub mod markdown;
pub mod patch_files;
pub mod reducer;
pub mod reference;
pub mod router;
pub mod streams;

/// Splits `data` in two at a point the input itself chooses (its first byte), so one input
/// exercises both a whole buffer and a boundary inside it.
pub fn split_point(data: &[u8]) -> (usize, &[u8]) {
    match data.split_first() {
        Some((first, rest)) if !rest.is_empty() => (*first as usize % (rest.len() + 1), rest),
        Some((_, rest)) => (0, rest),
        None => (0, data),
    }
}

/// The UTF-8 text of `data` split in fields at NUL bytes (at most `n`, the last one keeps the
/// rest), so one input can carry several strings.
pub fn fields(data: &[u8], n: usize) -> Vec<String> {
    let text = String::from_utf8_lossy(data);
    let mut out: Vec<String> = text.splitn(n, '\0').map(str::to_string).collect();
    out.resize(n, String::new());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_point_stays_inside_the_rest() {
        assert_eq!(split_point(&[7, 1, 2, 3]), (3, &[1u8, 2, 3][..]));
        assert_eq!(split_point(&[2, 9]), (0, &[9u8][..]));
        assert_eq!(split_point(&[]), (0, &[][..]));
    }

    #[test]
    fn fields_are_cut_at_nul_and_padded() {
        assert_eq!(fields(b"a\0b\0c\0d", 3), ["a", "b", "c\0d"]);
        assert_eq!(fields(b"only", 2), ["only", ""]);
    }
}
