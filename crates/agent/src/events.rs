//! What the agent loop tells front-ends, and the JSON views of stored rows they render.
//!
//! The loop writes every state change to the [`Store`](crate::store::Store), which commits it
//! with a numbered event. A front-end gets the same events live as [`LoopEvent::Stored`], in
//! commit order, plus the assistant's text as it streams ([`LoopEvent::TextDelta`], not stored:
//! the text part is stored whole when it ends). A front-end that falls behind or restarts reads
//! the rest with [`Store::events_since`](crate::store::Store::events_since).
//!
//! The shapes themselves live in `strata-protocol`, which the server and the TUI share; this
//! module re-exports them under the names the loop's front-ends have always used.

pub use strata_protocol::event::{ErrorEvent, LoopEvent, SessionStatus, StatusEvent, kinds};
pub use strata_protocol::part::kinds as part_kinds;
pub use strata_protocol::view::{message_json, part_json, session_json};

use crate::store::{Event, Part};

/// The part carried by a `message.part.updated` event, if that is what `event` is.
pub fn event_part(event: &Event) -> Option<Part> {
    event.part()
}
