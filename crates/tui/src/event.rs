//! The server's events as the UI consumes them, decoded from the SSE envelope
//! `{id, type, properties, seq?}` (or its `/global/event` wrapper `{directory, payload}`),
//! read with the protocol's wire types. This is the only module that knows the wire; the
//! reducer sees [`ServerEvent`]s.

use serde::Deserialize;
use serde_json::Value;

use strata_protocol::event::SessionStatus;
use strata_protocol::message::ErrorInfo;
use strata_protocol::wire::{self, Decoded, ServerEvent as W};

use crate::model::{
    Busy, MessageInfo, PartInfo, PermissionRequest, QuestionRequest, SessionInfo, Todo,
};

/// One event with its per-session sequence number, when the server numbers it.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    pub seq: Option<u64>,
    pub event: ServerEvent,
}

/// What happened on the server.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerEvent {
    Connected,
    Heartbeat,
    /// The server instance went away: everything must be fetched again.
    Disposed,
    SessionUpdated(SessionInfo),
    SessionDeleted(String),
    SessionStatus {
        session_id: String,
        status: Busy,
    },
    SessionError {
        session_id: Option<String>,
        message: String,
    },
    MessageUpdated(MessageInfo),
    MessageRemoved {
        session_id: String,
        message_id: String,
    },
    PartUpdated(PartInfo),
    PartDelta {
        session_id: String,
        message_id: String,
        part_id: String,
        field: String,
        delta: String,
    },
    PartRemoved {
        session_id: String,
        message_id: String,
        part_id: String,
    },
    PermissionAsked(PermissionRequest),
    PermissionReplied {
        session_id: String,
        request_id: String,
    },
    QuestionAsked(QuestionRequest),
    QuestionDone {
        session_id: String,
        request_id: String,
    },
    TodoUpdated {
        session_id: String,
        todos: Vec<Todo>,
    },
    /// A kind this client ignores.
    Other(String),
}

impl ServerEvent {
    /// The session the event belongs to, for the ones that belong to one.
    pub fn session_id(&self) -> Option<&str> {
        Some(match self {
            ServerEvent::SessionUpdated(s) => &s.id,
            ServerEvent::SessionDeleted(id) => id,
            ServerEvent::SessionStatus { session_id, .. }
            | ServerEvent::MessageRemoved { session_id, .. }
            | ServerEvent::PartDelta { session_id, .. }
            | ServerEvent::PartRemoved { session_id, .. }
            | ServerEvent::PermissionReplied { session_id, .. }
            | ServerEvent::QuestionDone { session_id, .. }
            | ServerEvent::TodoUpdated { session_id, .. } => session_id,
            ServerEvent::SessionError { session_id, .. } => session_id.as_deref()?,
            ServerEvent::MessageUpdated(m) => &m.session_id,
            ServerEvent::PartUpdated(p) => &p.session_id,
            ServerEvent::PermissionAsked(p) => &p.session_id,
            ServerEvent::QuestionAsked(q) => &q.session_id,
            ServerEvent::Connected
            | ServerEvent::Heartbeat
            | ServerEvent::Disposed
            | ServerEvent::Other(_) => return None,
        })
    }
}

/// Decodes one SSE `data:` payload (a `/global/event` or `/event` item); `None` for JSON
/// that is not an event this client can read.
pub fn decode(data: &str) -> Option<Envelope> {
    let decoded = if data.contains("\"payload\"") {
        Decoded::global(data).ok()?.1
    } else {
        Decoded::event(data).ok()?
    };
    Some(from_wire(decoded))
}

/// Decodes an event value, unwrapping the `/global/event` form.
pub fn decode_value(v: &Value) -> Option<Envelope> {
    decode(&v.to_string())
}

/// The UI's view of a wire event.
pub fn from_wire(decoded: Decoded) -> Envelope {
    match decoded {
        Decoded::Known(e) => Envelope {
            seq: e.seq.and_then(|s| u64::try_from(s).ok()),
            event: from_event(e.event),
        },
        Decoded::Unknown { kind } => Envelope {
            seq: None,
            event: ServerEvent::Other(kind),
        },
    }
}

/// Re-reads a wire value with this crate's lenient reader.
fn lenient<T: for<'de> Deserialize<'de> + Default>(v: &impl serde::Serialize) -> T {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| T::deserialize(v).ok())
        .unwrap_or_default()
}

fn session(info: &wire::SessionInfo) -> SessionInfo {
    SessionInfo {
        id: info.id.clone(),
        title: info.title.clone(),
        parent_id: info.parent_id.clone(),
        directory: info.directory.clone(),
        time: crate::model::SessionTime {
            created: info.time.created,
            updated: info.time.updated,
        },
        sandbox: info
            .extra
            .get("sandbox")
            .and_then(|v| v.as_str())
            .map(String::from),
    }
}

fn from_event(e: W) -> ServerEvent {
    match e {
        W::ServerConnected {} => ServerEvent::Connected,
        W::ServerHeartbeat {} => ServerEvent::Heartbeat,
        W::InstanceDisposed { .. } => ServerEvent::Disposed,
        W::SessionCreated { info, .. } | W::SessionUpdated { info, .. } => {
            ServerEvent::SessionUpdated(session(&info))
        }
        W::SessionDeleted { session_id, .. } => ServerEvent::SessionDeleted(session_id),
        W::SessionStatus { session_id, status } => ServerEvent::SessionStatus {
            session_id,
            status: busy(status),
        },
        W::SessionIdle { session_id } => ServerEvent::SessionStatus {
            session_id,
            status: Busy::Idle,
        },
        W::SessionError { session_id, error } => ServerEvent::SessionError {
            session_id,
            message: error_text(error),
        },
        W::SessionDiff { .. } => ServerEvent::Other("session.diff".into()),
        other => message_event(other),
    }
}

/// Message and part events.
fn message_event(e: W) -> ServerEvent {
    match e {
        W::MessageUpdated { info, .. } => ServerEvent::MessageUpdated(
            (serde_json::to_value(&info).ok().as_ref())
                .and_then(message_info)
                .unwrap_or_default(),
        ),
        W::MessageRemoved {
            session_id,
            message_id,
        } => ServerEvent::MessageRemoved {
            session_id,
            message_id,
        },
        W::PartUpdated { part, .. } => part_updated(&part),
        W::PartDelta {
            session_id,
            message_id,
            part_id,
            field,
            delta,
        } => ServerEvent::PartDelta {
            session_id,
            message_id,
            part_id,
            field,
            delta,
        },
        W::PartRemoved {
            session_id,
            message_id,
            part_id,
        } => ServerEvent::PartRemoved {
            session_id,
            message_id,
            part_id,
        },
        other => ask_event(other),
    }
}

/// What a turn asks and tracks: permissions, questions, todos. Anything else (nothing, once
/// the two functions above took theirs) is passed on by its type.
fn ask_event(e: W) -> ServerEvent {
    match e {
        W::PermissionAsked(r) => ServerEvent::PermissionAsked(lenient(&r)),
        W::PermissionReplied {
            session_id,
            request_id,
            ..
        } => ServerEvent::PermissionReplied {
            session_id,
            request_id,
        },
        W::QuestionAsked(r) => ServerEvent::QuestionAsked(lenient(&r)),
        W::QuestionReplied {
            session_id,
            request_id,
            ..
        }
        | W::QuestionRejected {
            session_id,
            request_id,
        } => ServerEvent::QuestionDone {
            session_id,
            request_id,
        },
        W::TodoUpdated { session_id, todos } => ServerEvent::TodoUpdated {
            session_id,
            todos: todos.iter().map(lenient).collect(),
        },
        other => ServerEvent::Other(
            serde_json::to_value(&other)
                .ok()
                .and_then(|v| Some(v.get("type")?.as_str()?.to_string()))
                .unwrap_or_default(),
        ),
    }
}

/// The session's state, as the status line shows it.
fn busy(status: SessionStatus) -> Busy {
    match status {
        SessionStatus::Busy => Busy::Busy,
        SessionStatus::Idle => Busy::Idle,
        SessionStatus::Retry {
            attempt, message, ..
        } => Busy::Retry { attempt, message },
    }
}

/// An error's message, else its name.
fn error_text(error: ErrorInfo) -> String {
    if error.data.message.is_empty() {
        error.name
    } else {
        error.data.message
    }
}

/// A stored part as the conversation shows it; a kind the UI does not know stays `Other`.
fn part_updated(part: &impl serde::Serialize) -> ServerEvent {
    match (serde_json::to_value(part).ok().as_ref()).and_then(PartInfo::from_json) {
        Some(p) => ServerEvent::PartUpdated(p),
        None => ServerEvent::Other("message.part.updated".into()),
    }
}

fn str_of(p: &Value, k: &str) -> String {
    p.get(k)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Reads a message's info; a user message names its model as `model: {providerID, modelID}`.
pub fn message_info(v: &Value) -> Option<MessageInfo> {
    let mut info = MessageInfo::deserialize(v).ok()?;
    if info.model_id.is_empty()
        && let Some(m) = v.get("model")
    {
        info.provider_id = str_of(m, "providerID");
        info.model_id = str_of(m, "modelID");
    }
    Some(info)
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
        assert_eq!(a.seq, Some(7));
        assert_eq!(a.event.session_id(), Some("s"));
        let sync = decode(r#"{"payload":{"type":"sync","syncEvent":{}}}"#).unwrap();
        assert_eq!(sync.event, ServerEvent::Other("sync".into()));
        assert!(decode("not json").is_none());
    }
}
