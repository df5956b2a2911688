//! The LSP client's JSON-RPC frame reader: any bytes, however they arrive, give the same
//! messages, and every message it returns (without fractions) encodes and reads back as itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_fuzz::split_point;
use strata_services::lsp::rpc::{Decoder, encode};

fn read_all(pieces: &[&[u8]]) -> Vec<Result<serde_json::Value, String>> {
    let mut decoder = Decoder::default();
    let mut out = Vec::new();
    for piece in pieces {
        decoder.push(piece);
        loop {
            match decoder.next_message() {
                Ok(Some(m)) => out.push(Ok(m)),
                Ok(None) => break,
                Err(e) => {
                    out.push(Err(e.to_string()));
                    return out;
                }
            }
        }
    }
    out
}

fn has_fraction(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Number(n) => n.is_f64(),
        serde_json::Value::Array(items) => items.iter().any(has_fraction),
        serde_json::Value::Object(map) => map.values().any(has_fraction),
        _ => false,
    }
}

fuzz_target!(|data: &[u8]| {
    let (cut, bytes) = split_point(data);
    let whole = read_all(&[bytes]);
    let pieces = read_all(&[&bytes[..cut], &bytes[cut..]]);
    assert_eq!(whole, pieces, "cut at {cut}");
    // serde_json reads decimal fractions to the nearest double only within a tolerance, so a
    // message with one may not read back bit for bit; the framing is what is checked here.
    for message in whole.into_iter().flatten().filter(|m| !has_fraction(m)) {
        let again = read_all(&[&encode(&message)]);
        assert_eq!(again, vec![Ok(message)]);
    }
});
