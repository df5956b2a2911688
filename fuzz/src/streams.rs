//! The stream assemblers' property: whatever a vendor sends, a call is only ever handed over
//! as ready with arguments that parse as JSON, and a stream that ends well ends with exactly
//! one `Finish`, after every ready call.

use strata_agent::provider::{DecodeState, StreamEvent, Wire};
use strata_protocol::sse::SseParser;

/// Decodes `body` as protocol `W` the way the stream driver does, delivered in two pieces cut
/// at `cut`, and checks the property.
pub fn check<W: Wire>(body: &[u8], cut: usize) {
    let cut = cut.min(body.len());
    let mut state = DecodeState::new("http://127.0.0.1:1/fuzz".into());
    let mut out = Vec::new();
    let mut parser = SseParser::new();
    let mut events = parser.push(&body[..cut]);
    events.extend(parser.push(&body[cut..]));
    let mut failed = false;
    for ev in events {
        if W::decode(ev, &mut state, &mut out).is_err() {
            failed = true;
            break;
        }
        if state.done {
            break;
        }
    }
    if !failed && state.end(None, &mut out).is_err() {
        failed = true;
    }
    for event in &out {
        if let StreamEvent::ToolCallReady(call) = event {
            assert!(
                serde_json::from_str::<serde_json::Value>(&call.arguments).is_ok(),
                "a ready call {} has arguments that are not JSON: {:?}",
                call.id,
                call.arguments
            );
        }
    }
    let finishes = out
        .iter()
        .filter(|e| matches!(e, StreamEvent::Finish { .. }))
        .count();
    if failed {
        assert_eq!(finishes, 0, "a failed stream also finished: {out:?}");
    } else {
        assert_eq!(
            finishes, 1,
            "a stream that ended well finishes once: {out:?}"
        );
        assert!(
            matches!(out.last(), Some(StreamEvent::Finish { .. })),
            "Finish is the last event: {out:?}"
        );
    }
}
