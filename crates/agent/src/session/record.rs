//! `Recorder`: the loop's only way to change session state. Every write is one store
//! transaction with its numbered event, and the committed event is handed to the front-end's
//! sink right after, so what a front-end shows is what the table holds. What it writes is
//! typed (`strata-protocol`), so every stored shape has one definition.
//!
//! Services may commit events of the session too while a tool runs (the todo list's
//! `todo.updated`). The sink gets those as well, in order: an event whose seq skips ahead makes
//! the recorder read the skipped ones from the table and forward them first.
//!
//! Streamed text also goes to the store's live channel, between the commits it came between.

use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;
use serde_json::Value;
use strata_protocol::event::{ErrorEvent, SessionStatus, StatusEvent};
use strata_protocol::message::ErrorInfo;
use strata_protocol::part::PartData;
use tokio::sync::mpsc::UnboundedSender;

use crate::events::{LoopEvent, kinds};
use crate::store::{Event, Message, Part, Role, Store, StoreError};

/// Writes one session's state and forwards each committed event.
#[derive(Debug, Clone)]
pub struct Recorder {
    store: Store,
    session_id: String,
    sink: Option<UnboundedSender<LoopEvent>>,
    /// The seq of the last event forwarded; `None` before the first.
    forwarded: Arc<Mutex<Option<i64>>>,
}

/// The stored form of a protocol value; its types always serialize.
fn value<T: Serialize>(data: &T) -> Value {
    serde_json::to_value(data).unwrap_or(Value::Null)
}

impl Recorder {
    pub fn new(store: Store, session_id: &str, sink: Option<UnboundedSender<LoopEvent>>) -> Self {
        Self {
            store,
            session_id: session_id.to_string(),
            sink,
            forwarded: Arc::new(Mutex::new(None)),
        }
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    fn forward(&self, event: Event) {
        let Some(sink) = &self.sink else {
            return;
        };
        let mut last = self
            .forwarded
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let after = last.unwrap_or(event.seq - 1);
        if event.seq <= after {
            // Already forwarded while catching up on a gap.
            return;
        }
        if event.seq > after + 1 {
            // Committed by someone else meanwhile (e.g. the todo list); a read failure only
            // costs the front-end those events, which stay in the table.
            let skipped = self
                .store
                .events_since(&self.session_id, after)
                .unwrap_or_default();
            for e in skipped.into_iter().filter(|e| e.seq < event.seq) {
                let _ = sink.send(LoopEvent::Stored(e));
            }
        }
        *last = Some(event.seq);
        // A front-end that went away does not stop the run; the table keeps the events.
        let _ = sink.send(LoopEvent::Stored(event));
    }

    /// Adds a message (`UserMessage` or `AssistantMessage` data).
    pub fn message<T: Serialize>(&self, role: Role, data: &T) -> Result<Message, StoreError> {
        let (message, event) =
            self.store
                .append_message_with_event(&self.session_id, role, value(data))?;
        self.forward(event);
        Ok(message)
    }

    pub fn update_message<T: Serialize>(
        &self,
        message_id: &str,
        data: &T,
    ) -> Result<Message, StoreError> {
        let (message, event) =
            self.store
                .update_message_with_event(&self.session_id, message_id, value(data))?;
        self.forward(event);
        Ok(message)
    }

    /// Writes a new part (`part_id` `None`) or replaces one.
    pub fn part(
        &self,
        message_id: &str,
        part_id: Option<&str>,
        data: &PartData,
    ) -> Result<Part, StoreError> {
        let (part, event) = self.store.upsert_part_with_event(
            &self.session_id,
            message_id,
            part_id,
            data.kind(),
            data.to_value(),
        )?;
        self.forward(event);
        Ok(part)
    }

    /// Writes a file the user attached, as a new part of `message_id`.
    pub fn file(
        &self,
        message_id: &str,
        file: &strata_protocol::part::FilePart,
    ) -> Result<Part, StoreError> {
        let (part, event) = self.store.upsert_part_with_event(
            &self.session_id,
            message_id,
            None,
            strata_protocol::part::kinds::FILE,
            value(file),
        )?;
        self.forward(event);
        Ok(part)
    }

    /// Sets the session's title.
    pub fn title(&self, title: &str) -> Result<(), StoreError> {
        let (_, event) = self
            .store
            .update_session_title_with_event(&self.session_id, title)?;
        self.forward(event);
        Ok(())
    }

    /// Records an event that changes no stored row.
    pub fn event(&self, kind: &str, data: Value) -> Result<Event, StoreError> {
        let event = self.store.record_event(&self.session_id, kind, data)?;
        self.forward(event.clone());
        Ok(event)
    }

    /// `session.status`.
    pub fn status(&self, status: SessionStatus) -> Result<Event, StoreError> {
        let data = StatusEvent {
            session_id: self.session_id.clone(),
            status,
        };
        self.event(kinds::SESSION_STATUS, value(&data))
    }

    /// `session.error` with an opencode-style error object.
    pub fn error(&self, name: &str, message: &str) -> Result<Event, StoreError> {
        let data = ErrorEvent {
            session_id: self.session_id.clone(),
            error: ErrorInfo::new(name, message),
        };
        self.event(kinds::SESSION_ERROR, value(&data))
    }

    /// Streams a piece of text that is not stored yet (its part is stored whole later): to the
    /// store's live channel, in order with the commits around it (the server's fan-out reads
    /// that), and to the sink.
    pub fn text_delta(&self, message_id: &str, part_id: &str, delta: &str) {
        let streamed = self
            .store
            .stream_text(&self.session_id, message_id, part_id, delta);
        if let Err(e) = streamed {
            // Only the live view misses this piece; the part is stored whole when it ends.
            tracing::warn!(session = %self.session_id, "a text delta was not streamed: {e}");
        }
        if let Some(sink) = &self.sink {
            let _ = sink.send(LoopEvent::TextDelta {
                session_id: self.session_id.clone(),
                message_id: message_id.to_string(),
                part_id: part_id.to_string(),
                delta: delta.to_string(),
            });
        }
    }
}
