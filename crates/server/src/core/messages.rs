//! A session's messages through the core: a page of the newest before a cursor (opencode's
//! `limit` and `before`, with the cursor of the page before it), the whole list read in
//! chunks in order (so a long session is streamed, never held whole), and one message. Each
//! assistant message names the user message it answers (`parentID`), found in the store when
//! the prompt lies before the window read.

use strata_agent::store::{Entry, MessageText, Role, Store, StoreError};
use strata_protocol::wire::PartView;

use super::convert::message_view_of;
use super::message_json::{Context, write_entry};
use super::{CoreError, MessageEntry, ServerCore};

/// Messages a [`MessageReader`] reads at a time: a few hundred kilobytes of JSON.
pub const CHUNK: usize = 200;

/// Some of a session's messages, oldest first, and the cursor that asks for the ones before
/// them (`before=`), when there are any.
#[derive(Debug, Clone, PartialEq)]
pub struct MessagePage {
    pub messages: Vec<MessageEntry>,
    pub next: Option<String>,
}

/// The whole list of a session's messages, in order, a chunk at a time.
#[derive(Debug)]
pub struct MessageReader {
    store: Store,
    session: String,
    dir: String,
    /// The last message read, where the next chunk starts after.
    after: Option<String>,
    /// The latest user message read (the `parentID` of the assistant messages after it).
    parent: Option<String>,
    done: bool,
}

impl MessageReader {
    /// The next chunk of at most [`CHUNK`] messages; `None` once all were read.
    pub fn next_chunk(&mut self) -> Result<Option<Vec<MessageEntry>>, CoreError> {
        if self.done {
            return Ok(None);
        }
        let rows = self
            .store
            .messages_after(&self.session, self.after.as_deref(), CHUNK)?;
        self.done = rows.len() < CHUNK;
        if rows.is_empty() {
            return Ok(None);
        }
        self.after = rows.last().map(|(m, _)| m.id.clone());
        Ok(Some(entries(rows, &self.dir, &mut self.parent)))
    }
}

impl MessageReader {
    /// The next chunk of at most [`CHUNK`] messages as JSON text, the entries joined by
    /// commas (the JSON of [`next_chunk`](Self::next_chunk)'s entries, written from the
    /// stored data without reading it into values); `None` once all were read.
    pub fn next_chunk_json(&mut self) -> Result<Option<Vec<u8>>, CoreError> {
        if self.done {
            return Ok(None);
        }
        let rows = self
            .store
            .messages_after_text(&self.session, self.after.as_deref(), CHUNK)?;
        self.done = rows.len() < CHUNK;
        let Some(last) = rows.last() else {
            return Ok(None);
        };
        self.after = Some(last.id.clone());
        let mut out = Vec::with_capacity(rows.iter().map(text_size).sum::<usize>() + 1024);
        for (i, m) in rows.iter().enumerate() {
            if m.role == Role::User {
                self.parent = Some(m.id.clone());
            }
            if i > 0 {
                out.push(b',');
            }
            let cx = Context {
                parent: self.parent.as_deref(),
                dir: &self.dir,
                db: self.store.path(),
            };
            write_entry(&mut out, m, &cx)?;
        }
        Ok(Some(out))
    }
}

/// About what a message's JSON takes: its data and its parts' data, and their envelopes.
fn text_size(m: &MessageText) -> usize {
    m.data.len() + 200 + m.parts.iter().map(|p| p.data.len() + 120).sum::<usize>()
}

/// The wire entries of `rows`, in order; `parent` is the latest user message before them and
/// follows along.
fn entries(rows: Vec<Entry>, dir: &str, parent: &mut Option<String>) -> Vec<MessageEntry> {
    rows.into_iter()
        .map(|(m, parts)| {
            if m.role == Role::User {
                *parent = Some(m.id.clone());
            }
            MessageEntry {
                info: message_view_of(m, parent.as_deref(), Some(dir)),
                parts: parts.into_iter().map(PartView::from_part).collect(),
            }
        })
        .collect()
}

impl ServerCore {
    /// The session's messages with their parts, oldest first, all of them (read a chunk at a
    /// time; [`message_page`](Self::message_page) reads a window).
    pub fn messages(&self, id: &str) -> Result<Vec<MessageEntry>, CoreError> {
        let mut reader = self.message_reader(id)?;
        let mut out = Vec::new();
        while let Some(chunk) = reader.next_chunk()? {
            out.extend(chunk);
        }
        Ok(out)
    }

    /// The last `limit` messages before the message named by cursor `before` (of the whole
    /// list when `None`), oldest first, with the cursor of the messages before them.
    pub fn message_page(
        &self,
        id: &str,
        limit: usize,
        before: Option<&str>,
    ) -> Result<MessagePage, CoreError> {
        let dir = self.session_dir(id)?;
        let page = self
            .store()
            .message_page(id, limit, before)
            .map_err(|e| match (e, before) {
                (
                    StoreError::NotFound {
                        what: "message", ..
                    },
                    Some(cursor),
                ) => CoreError::BadRequest(format!(
                    "before: `{cursor}` is not a cursor of session `{id}`; pass the \
                         X-Next-Cursor of the previous page, or leave it out for the newest"
                )),
                (e, _) => CoreError::Store(e),
            })?;
        let next = page
            .messages
            .first()
            .filter(|_| page.more)
            .map(|(m, _)| m.id.clone());
        let mut parent = self.parent_of(page.messages.first())?;
        Ok(MessagePage {
            messages: entries(page.messages, &dir, &mut parent),
            next,
        })
    }

    /// Reads the session's whole list in order, a chunk at a time.
    pub fn message_reader(&self, id: &str) -> Result<MessageReader, CoreError> {
        Ok(MessageReader {
            store: self.store().clone(),
            session: id.to_string(),
            dir: self.session_dir(id)?,
            after: None,
            parent: None,
            done: false,
        })
    }

    /// One message with its parts.
    pub fn message(&self, id: &str, message_id: &str) -> Result<MessageEntry, CoreError> {
        let dir = self.session_dir(id)?;
        let entry = self
            .store()
            .message_with_parts(id, message_id)
            .map_err(|e| match e {
                StoreError::NotFound { .. } => CoreError::not_found("message", message_id),
                other => CoreError::Store(other),
            })?;
        let mut parent = self.parent_of(Some(&entry))?;
        Ok(entries(vec![entry], &dir, &mut parent).remove(0))
    }

    /// The session's last assistant message with its parts (what a blocking prompt returns).
    pub fn last_assistant(&self, session_id: &str) -> Result<Option<MessageEntry>, CoreError> {
        match self.store().last_message(session_id, Role::Assistant)? {
            Some(m) => self.message(session_id, &m.id).map(Some),
            None => Ok(None),
        }
    }

    fn session_dir(&self, id: &str) -> Result<String, CoreError> {
        Ok(self
            .session_row(id)?
            .directory
            .to_string_lossy()
            .into_owned())
    }

    /// The user message the first of a window answers, when it is an assistant message (a
    /// user message is its own parent for what follows).
    fn parent_of(&self, first: Option<&Entry>) -> Result<Option<String>, CoreError> {
        match first {
            Some((m, _)) if m.role == Role::Assistant => {
                Ok(self
                    .store()
                    .user_message_before(&m.session_id, m.created_ms, &m.id)?)
            }
            _ => Ok(None),
        }
    }
}
