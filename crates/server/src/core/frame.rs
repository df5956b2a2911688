//! One item of the event fan-out, as the hub hands it to subscribers and the converter builds
//! it from a stored event.

use std::sync::atomic::{AtomicU64, Ordering};

use strata_protocol::wire::{Envelope, ServerEvent};

/// One item for subscribers: the envelope, the project it belongs to (`None`: every
/// project, e.g. `server.*`), and the resumable cursor of stored events.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub cursor: Option<i64>,
    pub directory: Option<String>,
    pub envelope: Envelope,
}

impl Frame {
    /// A live-only frame (no cursor, no `seq`).
    pub fn live(directory: Option<String>, event: ServerEvent) -> Frame {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        Frame {
            cursor: None,
            directory,
            envelope: Envelope {
                id: format!("evt_live{n:012}"),
                event,
                seq: None,
            },
        }
    }
}
