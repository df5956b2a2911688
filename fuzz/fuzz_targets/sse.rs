//! The SSE decoder: any body gives the same events however it is cut into chunks.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_fuzz::split_point;
use strata_protocol::sse::SseParser;

fuzz_target!(|data: &[u8]| {
    let (cut, body) = split_point(data);
    let mut whole = SseParser::new();
    let mut expected = whole.push(body);
    expected.extend(whole.finish());
    let mut pieces = SseParser::new();
    let mut got = pieces.push(&body[..cut]);
    got.extend(pieces.push(&body[cut..]));
    got.extend(pieces.finish());
    assert_eq!(got, expected, "cut at {cut}");
});
