//! The server's events as the UI receives them: the protocol's [`Envelope`] and
//! [`ServerEvent`], decoded here from one SSE `data:` payload (a `/event` item or its
//! `/global/event` wrapper `{directory, payload}`). Event types this build does not know are
//! skipped at decoding, so the reducer sees known events only.

use strata_protocol::wire::Decoded;

pub use strata_protocol::wire::{Envelope, ServerEvent};

/// Decodes one SSE `data:` payload; `None` for JSON that is not an event this client reads
/// (an unknown type, or a known type whose body does not fit).
pub fn decode(data: &str) -> Option<Envelope> {
    let decoded = if data.contains("\"payload\"") {
        Decoded::global(data).ok()?.1
    } else {
        Decoded::event(data).ok()?
    };
    match decoded {
        Decoded::Known(envelope) => Some(*envelope),
        Decoded::Unknown { .. } => None,
    }
}

/// The event's per-session sequence number, when the server numbers it.
pub fn seq(envelope: &Envelope) -> Option<u64> {
    envelope.seq.and_then(|s| u64::try_from(s).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_global_wrapper_and_the_plain_envelope_decode_alike() {
        let plain = r#"{"id":"evt_1","type":"message.part.delta","seq":7,"properties":{"sessionID":"s","messageID":"m","partID":"p","field":"text","delta":"Do"}}"#;
        let global = format!(r#"{{"directory":"/x","payload":{plain}}}"#);
        let a = decode(plain).unwrap();
        assert_eq!(a, decode(&global).unwrap());
        assert_eq!(seq(&a), Some(7));
        assert_eq!(a.event.session_id(), Some("s"));
        assert!(decode(r#"{"payload":{"type":"sync","syncEvent":{}}}"#).is_none());
        assert!(decode("not json").is_none());
    }
}
