//! What the next request reads of a session, without reading the session whole: after a
//! compaction, the history starts from its summary (see
//! [`chat_history`](crate::session::history::chat_history)), so the messages before it are
//! not needed, except the user's request that the summary repeats. Whatever reads this slice
//! (the history, [`due`](super::due), [`prune`](super::prune), the agent's reminders) sees
//! what it would see in the whole conversation.

use super::summary::last_summary;
use crate::session::history::request_text;
use crate::store::{Entry, Message, Role, Store, StoreError};
use crate::undo::Shown;

/// Messages read at a time while looking back for the user's request.
const LOOK_BACK: usize = 16;

/// The visible conversation from the user's request before the last compaction summary on:
/// that request, the summary and every message after it. Without a summary, all of it (as
/// [`conversation`](crate::undo::conversation)).
pub fn conversation(store: &Store, session_id: &str) -> Result<Vec<Entry>, StoreError> {
    let shown = Shown::of(store, session_id)?;
    let Some(summary) = last_summary_entry(store, session_id, &shown)? else {
        return crate::undo::conversation(store, session_id);
    };
    let after = store.messages_after(session_id, Some(&summary.0.id), usize::MAX)?;
    let mut out: Vec<Entry> = request_before(store, session_id, &summary.0, &shown)?
        .into_iter()
        .collect();
    out.push(summary);
    out.extend(after.into_iter().filter(|(m, _)| shown.keeps(m)));
    Ok(out)
}

/// The newest shown message that [`last_summary`] would pick, with its parts.
fn last_summary_entry(
    store: &Store,
    session_id: &str,
    shown: &Shown,
) -> Result<Option<Entry>, StoreError> {
    for message in store.compaction_messages(session_id)? {
        if !shown.keeps(&message) {
            continue;
        }
        let entry = store.message_with_parts(session_id, &message.id)?;
        if last_summary(std::slice::from_ref(&entry)).is_some() {
            return Ok(Some(entry));
        }
    }
    Ok(None)
}

/// The newest shown user message before `summary` with text: the request a history after
/// the summary repeats.
fn request_before(
    store: &Store,
    session_id: &str,
    summary: &Message,
    shown: &Shown,
) -> Result<Option<Entry>, StoreError> {
    let mut cursor = summary.id.clone();
    loop {
        let page = store.message_page(session_id, LOOK_BACK, Some(&cursor))?;
        let found = page.messages.iter().rev().find(|(m, parts)| {
            m.role == Role::User && shown.keeps(m) && !request_text(parts).is_empty()
        });
        if let Some(entry) = found {
            return Ok(Some(entry.clone()));
        }
        match page.messages.first() {
            Some((oldest, _)) if page.more => cursor.clone_from(&oldest.id),
            _ => return Ok(None),
        }
    }
}
