//! The store's live channel: every event committed through this handle and every piece of
//! streamed text, in the one order they happened. Both are sent while the connection is held,
//! so a delta produced between two commits sits between their notes in the channel, and a
//! reader taking the channel in order never sees a part finished before its text streamed.

use rusqlite::{OptionalExtension, params};

use super::server::GlobalEvent;
use super::{SqlResult, Store, StoreError};

/// One item of the live channel ([`Store::subscribe`]). Boxed, so the channel's slots, which
/// every process that opens a store allocates, stay small.
#[derive(Debug, Clone, PartialEq)]
pub enum Live {
    /// An event just committed, with its place in the global order.
    Stored(Box<GlobalEvent>),
    /// Assistant text streamed before its part is stored whole (never stored itself).
    Delta(Box<TextDelta>),
}

impl Live {
    /// The committed event, when this is one.
    pub fn stored(&self) -> Option<&GlobalEvent> {
        match self {
            Live::Stored(e) => Some(e.as_ref()),
            Live::Delta(_) => None,
        }
    }
}

/// A piece of a text part's text, and where its session's stored events stood when it was
/// produced: a reader that sends stored events and deltas together sends every stored event
/// up to `gseq` first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextDelta {
    pub session_id: String,
    pub message_id: String,
    pub part_id: String,
    pub delta: String,
    /// The session's last stored seq (0 before its first event).
    pub seq: i64,
    /// The global number of that event (0 when there is none).
    pub gseq: i64,
}

impl Store {
    /// Sends a piece of text of part `part_id` to the live channel, after every event already
    /// committed. Nothing is stored; without a subscriber nothing is read either.
    pub fn stream_text(
        &self,
        session_id: &str,
        message_id: &str,
        part_id: &str,
        delta: &str,
    ) -> Result<(), StoreError> {
        if self.inner.live.receiver_count() == 0 {
            return Ok(());
        }
        // Held until the send, so no commit comes between the read and the send.
        let conn = self.conn();
        let last: Option<(i64, i64)> = conn
            .query_row(
                "SELECT seq, COALESCE(gseq, 0) FROM events WHERE session_id = ?1
                 ORDER BY seq DESC LIMIT 1",
                [session_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .op(self.path(), "reading a session's last event")?;
        let (seq, gseq) = last.unwrap_or((0, 0));
        let _ = self.inner.live.send(Live::Delta(Box::new(TextDelta {
            session_id: session_id.to_string(),
            message_id: message_id.to_string(),
            part_id: part_id.to_string(),
            delta: delta.to_string(),
            seq,
            gseq,
        })));
        drop(conn);
        Ok(())
    }
}

/// The global number of the event `(session_id, seq)` just inserted in `conn`'s transaction.
pub(super) fn inserted_gseq(
    conn: &rusqlite::Connection,
    session_id: &str,
    seq: i64,
) -> rusqlite::Result<i64> {
    conn.query_row(
        "SELECT COALESCE(gseq, 0) FROM events WHERE session_id = ?1 AND seq = ?2",
        params![session_id, seq],
        |r| r.get(0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_channel_slot_holds_a_pointer_not_an_event() {
        // Every store allocates `SUBSCRIBER_BUFFER` of these up front, used or not.
        assert!(std::mem::size_of::<Live>() <= 2 * std::mem::size_of::<usize>());
    }
}
