//! Reading part and event rows: the column lists and the row-to-type conversions that every
//! query over `parts` and `events` shares, so a column change is made once.

use std::path::Path;

use rusqlite::Row;
use serde_json::Value;

use super::types::{Event, Part, StoreError};

/// A row's JSON `data` column, or a `Corrupt` error naming the table.
pub(super) fn json_of(path: &Path, table: &'static str, text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt {
        path: path.to_path_buf(),
        table,
        detail: format!("a data column is not JSON: {e}"),
    })
}

/// The columns [`raw_part`] reads, in its order.
pub(super) const PART_COLUMNS: &str = "id, message_id, session_id, seq, kind, data, updated_ms";

pub(super) type RawPart = (String, String, String, i64, String, String, i64);

pub(super) fn raw_part(r: &Row<'_>) -> rusqlite::Result<RawPart> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
        r.get(6)?,
    ))
}

pub(super) fn part_of(path: &Path, raw: RawPart) -> Result<Part, StoreError> {
    let (id, message_id, session_id, seq, kind, data, updated_ms) = raw;
    Ok(Part {
        id,
        message_id,
        session_id,
        seq,
        kind,
        data: json_of(path, "parts", &data)?,
        updated_ms,
    })
}

/// The columns [`raw_event`] reads, in its order; a query may select more after them.
pub(super) const EVENT_COLUMNS: &str = "session_id, seq, kind, data, created_ms";

pub(super) type RawEvent = (String, i64, String, String, i64);

pub(super) fn raw_event(r: &Row<'_>) -> rusqlite::Result<RawEvent> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
}

pub(super) fn event_of(path: &Path, raw: RawEvent) -> Result<Event, StoreError> {
    let (session_id, seq, kind, data, created_ms) = raw;
    Ok(Event {
        session_id,
        seq,
        kind,
        data: json_of(path, "events", &data)?,
        created_ms,
    })
}
