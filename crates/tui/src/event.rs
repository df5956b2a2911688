//! The server's events as the UI consumes them, decoded from the SSE envelope
//! `{id, type, properties, seq?}` (or its `/global/event` wrapper `{directory, payload}`).
//! Decoding is the only place that knows the wire shape; the reducer sees [`ServerEvent`]s.

use serde::Deserialize;
use serde_json::Value;

use crate::model::{
    Busy, ErrorBody, MessageInfo, PartInfo, PermissionRequest, QuestionRequest, SessionInfo, Todo,
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

/// Decodes one SSE `data:` payload; `None` for JSON that is not an event at all.
pub fn decode(data: &str) -> Option<Envelope> {
    let v: Value = serde_json::from_str(data).ok()?;
    decode_value(&v)
}

/// Decodes an event value, unwrapping the `/global/event` form.
pub fn decode_value(v: &Value) -> Option<Envelope> {
    let v = v.get("payload").unwrap_or(v);
    let kind = v.get("type")?.as_str()?;
    let props = v.get("properties").cloned().unwrap_or(Value::Null);
    let seq = v
        .get("seq")
        .or_else(|| props.get("seq"))
        .and_then(Value::as_u64);
    Some(Envelope {
        seq,
        event: decode_kind(kind, &props).unwrap_or_else(|| ServerEvent::Other(kind.to_string())),
    })
}

fn str_of(p: &Value, k: &str) -> String {
    p.get(k)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn typed<T: for<'de> Deserialize<'de>>(v: Option<&Value>) -> Option<T> {
    T::deserialize(v?).ok()
}

fn decode_kind(kind: &str, p: &Value) -> Option<ServerEvent> {
    let sid = || str_of(p, "sessionID");
    Some(match kind {
        "server.connected" => ServerEvent::Connected,
        "server.heartbeat" => ServerEvent::Heartbeat,
        "server.instance.disposed" => ServerEvent::Disposed,
        "session.created" | "session.updated" => ServerEvent::SessionUpdated(typed(p.get("info"))?),
        "session.deleted" => {
            let info: SessionInfo = typed(p.get("info"))?;
            ServerEvent::SessionDeleted(info.id)
        }
        "session.status" => ServerEvent::SessionStatus {
            session_id: sid(),
            status: busy(p.get("status")?),
        },
        "session.idle" => ServerEvent::SessionStatus {
            session_id: sid(),
            status: Busy::Idle,
        },
        "session.error" => {
            let error: ErrorBody = typed(p.get("error")).unwrap_or_default();
            ServerEvent::SessionError {
                session_id: p
                    .get("sessionID")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                message: error.text().to_string(),
            }
        }
        "message.updated" => ServerEvent::MessageUpdated(message_info(p.get("info")?)?),
        "message.removed" => ServerEvent::MessageRemoved {
            session_id: sid(),
            message_id: str_of(p, "messageID"),
        },
        "message.part.updated" => ServerEvent::PartUpdated(PartInfo::from_json(p.get("part")?)?),
        "message.part.delta" => ServerEvent::PartDelta {
            session_id: sid(),
            message_id: str_of(p, "messageID"),
            part_id: str_of(p, "partID"),
            field: str_of(p, "field"),
            delta: str_of(p, "delta"),
        },
        "message.part.removed" => ServerEvent::PartRemoved {
            session_id: sid(),
            message_id: str_of(p, "messageID"),
            part_id: str_of(p, "partID"),
        },
        "permission.asked" => ServerEvent::PermissionAsked(typed(Some(p))?),
        "permission.replied" => ServerEvent::PermissionReplied {
            session_id: sid(),
            request_id: str_of(p, "requestID"),
        },
        "question.asked" => ServerEvent::QuestionAsked(typed(Some(p))?),
        "question.replied" | "question.rejected" => ServerEvent::QuestionDone {
            session_id: sid(),
            request_id: str_of(p, "requestID"),
        },
        "todo.updated" => ServerEvent::TodoUpdated {
            session_id: sid(),
            todos: typed(p.get("todos")).unwrap_or_default(),
        },
        _ => return None,
    })
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

/// Reads `{type: "idle" | "busy" | "retry", attempt?, message?}`.
pub fn busy(v: &Value) -> Busy {
    match v.get("type").and_then(Value::as_str) {
        Some("busy") => Busy::Busy,
        Some("retry") => Busy::Retry {
            attempt: v.get("attempt").and_then(Value::as_u64).unwrap_or(0) as u32,
            message: str_of(v, "message"),
        },
        _ => Busy::Idle,
    }
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
