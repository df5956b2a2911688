//! Server-sent events as the providers stream them: the house's one decoder, from the
//! protocol crate.

pub use strata_protocol::sse::{SseEvent, SseParser};
