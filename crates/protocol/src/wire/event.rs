//! The event stream: [`ServerEvent`] is every event type a client handles, [`Envelope`] one
//! item of `GET /event`, [`GlobalEnvelope`] one item of `GET /global/event`. Adding an event
//! is one variant here, and every `match` over it fails to compile until it is handled.

use serde::{Deserialize, Serialize};

use crate::event::{HookRecord, SessionStatus};
use crate::message::ErrorInfo;

use super::request::{FileDiff, PermissionReply, PermissionRequest, QuestionRequest, Todo};
use super::view::{MessageView, PartView, SessionInfo};

/// Every event the server publishes: `{"type": …, "properties": {…}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", content = "properties")]
pub enum ServerEvent {
    /// The first item of every stream.
    #[serde(rename = "server.connected")]
    ServerConnected {},
    /// Every 10 s, so idle connections stay open through proxies.
    #[serde(rename = "server.heartbeat")]
    ServerHeartbeat {},
    /// The project's instance was shut down; clients bootstrap again.
    #[serde(rename = "server.instance.disposed")]
    InstanceDisposed { directory: String },

    #[serde(rename = "session.created")]
    SessionCreated {
        #[serde(rename = "sessionID")]
        session_id: String,
        info: SessionInfo,
    },
    #[serde(rename = "session.updated")]
    SessionUpdated {
        #[serde(rename = "sessionID")]
        session_id: String,
        info: SessionInfo,
    },
    #[serde(rename = "session.deleted")]
    SessionDeleted {
        #[serde(rename = "sessionID")]
        session_id: String,
        info: SessionInfo,
    },
    /// Busy, idle or waiting to retry.
    #[serde(rename = "session.status")]
    SessionStatus {
        #[serde(rename = "sessionID")]
        session_id: String,
        status: SessionStatus,
    },
    /// Sent with `session.status` idle, for clients that still listen for it.
    #[serde(rename = "session.idle")]
    SessionIdle {
        #[serde(rename = "sessionID")]
        session_id: String,
    },
    #[serde(rename = "session.error")]
    SessionError {
        #[serde(rename = "sessionID", default, skip_serializing_if = "Option::is_none")]
        session_id: Option<String>,
        error: ErrorInfo,
    },
    /// The session's file changes so far.
    #[serde(rename = "session.diff")]
    SessionDiff {
        #[serde(rename = "sessionID")]
        session_id: String,
        diff: Vec<FileDiff>,
    },
    /// Strata's addition: a hook command ran (opencode's clients skip the unknown type).
    #[serde(rename = "session.hook")]
    SessionHook {
        #[serde(rename = "sessionID")]
        session_id: String,
        hook: HookRecord,
    },

    #[serde(rename = "message.updated")]
    MessageUpdated {
        #[serde(rename = "sessionID")]
        session_id: String,
        info: MessageView,
    },
    #[serde(rename = "message.removed")]
    MessageRemoved {
        #[serde(rename = "sessionID")]
        session_id: String,
        #[serde(rename = "messageID")]
        message_id: String,
    },
    /// A part was created or changed: replace it whole (by id).
    #[serde(rename = "message.part.updated")]
    PartUpdated {
        #[serde(rename = "sessionID")]
        session_id: String,
        part: PartView,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        time: Option<i64>,
    },
    /// Append `delta` to the part's string `field` (`text`); live only, never stored.
    #[serde(rename = "message.part.delta")]
    PartDelta {
        #[serde(rename = "sessionID")]
        session_id: String,
        #[serde(rename = "messageID")]
        message_id: String,
        #[serde(rename = "partID")]
        part_id: String,
        field: String,
        delta: String,
    },
    #[serde(rename = "message.part.removed")]
    PartRemoved {
        #[serde(rename = "sessionID")]
        session_id: String,
        #[serde(rename = "messageID")]
        message_id: String,
        #[serde(rename = "partID")]
        part_id: String,
    },

    /// A tool call waits for a permission reply.
    #[serde(rename = "permission.asked")]
    PermissionAsked(PermissionRequest),
    #[serde(rename = "permission.replied")]
    PermissionReplied {
        #[serde(rename = "sessionID")]
        session_id: String,
        #[serde(rename = "requestID")]
        request_id: String,
        reply: PermissionReply,
    },
    /// The model asked the user questions and waits for the answers.
    #[serde(rename = "question.asked")]
    QuestionAsked(QuestionRequest),
    #[serde(rename = "question.replied")]
    QuestionReplied {
        #[serde(rename = "sessionID")]
        session_id: String,
        #[serde(rename = "requestID")]
        request_id: String,
        answers: Vec<Vec<String>>,
    },
    #[serde(rename = "question.rejected")]
    QuestionRejected {
        #[serde(rename = "sessionID")]
        session_id: String,
        #[serde(rename = "requestID")]
        request_id: String,
    },

    /// The session's todo list was replaced.
    #[serde(rename = "todo.updated")]
    TodoUpdated {
        #[serde(rename = "sessionID")]
        session_id: String,
        todos: Vec<Todo>,
    },
}

impl ServerEvent {
    /// The session the event is about, if any.
    pub fn session_id(&self) -> Option<&str> {
        use ServerEvent::*;
        match self {
            ServerConnected {} | ServerHeartbeat {} | InstanceDisposed { .. } => None,
            SessionError { session_id, .. } => session_id.as_deref(),
            PermissionAsked(r) => Some(&r.session_id),
            QuestionAsked(r) => Some(&r.session_id),
            SessionCreated { session_id, .. }
            | SessionUpdated { session_id, .. }
            | SessionDeleted { session_id, .. }
            | SessionStatus { session_id, .. }
            | SessionIdle { session_id }
            | SessionDiff { session_id, .. }
            | SessionHook { session_id, .. }
            | MessageUpdated { session_id, .. }
            | MessageRemoved { session_id, .. }
            | PartUpdated { session_id, .. }
            | PartDelta { session_id, .. }
            | PartRemoved { session_id, .. }
            | PermissionReplied { session_id, .. }
            | QuestionReplied { session_id, .. }
            | QuestionRejected { session_id, .. }
            | TodoUpdated { session_id, .. } => Some(session_id),
        }
    }
}

/// One item of `GET /event`: `{"id": "evt_…", "type", "properties", "seq"?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Envelope {
    pub id: String,
    #[serde(flatten)]
    pub event: ServerEvent,
    /// Strata's addition: the event's number within its session (stored events only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<i64>,
}

/// One item of `GET /global/event`: the project it came from and the event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GlobalEnvelope {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directory: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    pub payload: Envelope,
}

/// A stream item read leniently: servers may send event types this build does not know.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    /// Boxed: an envelope is many times the size of the skip marker.
    Known(Box<Envelope>),
    /// An event of type `kind`, skipped.
    Unknown { kind: String },
}

impl Decoded {
    /// Reads one `/event` item (the JSON after `data:`).
    pub fn event(json: &str) -> Result<Decoded, serde_json::Error> {
        Self::from_value(serde_json::from_str(json)?)
    }

    /// Reads one `/global/event` item; the directory comes with the event.
    pub fn global(json: &str) -> Result<(Option<String>, Decoded), serde_json::Error> {
        let mut value: serde_json::Value = serde_json::from_str(json)?;
        let directory = value
            .get("directory")
            .and_then(|d| d.as_str())
            .map(str::to_string);
        let payload = value
            .get_mut("payload")
            .map(serde_json::Value::take)
            .unwrap_or_default();
        Ok((directory, Self::from_value(payload)?))
    }

    fn from_value(value: serde_json::Value) -> Result<Decoded, serde_json::Error> {
        let kind = value
            .get("type")
            .and_then(|t| t.as_str())
            .unwrap_or_default()
            .to_string();
        match serde_json::from_value::<Envelope>(value) {
            Ok(envelope) => Ok(Decoded::Known(Box::new(envelope))),
            // A known type with a bad body is an error; an unknown type is skipped.
            Err(e) if KNOWN.contains(&kind.as_str()) => Err(e),
            Err(_) => Ok(Decoded::Unknown { kind }),
        }
    }
}

/// The `type` of every [`ServerEvent`] variant.
pub const KNOWN: &[&str] = &[
    "server.connected",
    "server.heartbeat",
    "server.instance.disposed",
    "session.created",
    "session.updated",
    "session.deleted",
    "session.status",
    "session.idle",
    "session.error",
    "session.diff",
    "session.hook",
    "message.updated",
    "message.removed",
    "message.part.updated",
    "message.part.delta",
    "message.part.removed",
    "permission.asked",
    "permission.replied",
    "question.asked",
    "question.replied",
    "question.rejected",
    "todo.updated",
];

#[cfg(test)]
#[path = "event_tests.rs"]
mod tests;
