//! What a running loop tells a front-end, in order: every committed [`Event`] and the
//! assistant's text as it streams ([`LoopEvent`]), plus the kinds and payloads of the events
//! the loop records besides the store's own.

use serde::{Deserialize, Serialize};

use crate::message::ErrorInfo;
use crate::store::Event;

/// Event kinds the loop records besides the store's own (see [`store::kinds`](crate::store::kinds)).
pub mod kinds {
    /// `{"sessionID", "status": SessionStatus}`.
    pub const SESSION_STATUS: &str = "session.status";
    /// `{"sessionID", "error": {"name", "data": {"message"}}}`: the run failed or stopped.
    pub const SESSION_ERROR: &str = "session.error";
}

/// One thing a front-end hears from a running loop, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum LoopEvent {
    /// A committed change, also in the `events` table under the same `seq`.
    Stored(Event),
    /// A piece of assistant text, streamed before its part is stored whole.
    TextDelta {
        session_id: String,
        message_id: String,
        part_id: String,
        delta: String,
    },
}

/// What a session is doing: `{"type": "busy" | "idle" | "retry", …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum SessionStatus {
    Busy,
    Idle,
    /// A model request failed and is tried again after `wait_ms`.
    Retry {
        #[serde(default)]
        attempt: u32,
        #[serde(default)]
        message: String,
        #[serde(rename = "waitMs", default)]
        wait_ms: u64,
    },
}

/// The data of a `session.status` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusEvent {
    #[serde(rename = "sessionID")]
    pub session_id: String,
    pub status: SessionStatus,
}

/// The data of a `session.error` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorEvent {
    #[serde(rename = "sessionID")]
    pub session_id: String,
    pub error: ErrorInfo,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text<T: Serialize>(value: &T) -> String {
        serde_json::to_string(value).unwrap()
    }

    #[test]
    fn statuses_and_errors_keep_their_shapes() {
        let retry = StatusEvent {
            session_id: "s".into(),
            status: SessionStatus::Retry {
                attempt: 1,
                message: "busy".into(),
                wait_ms: 20,
            },
        };
        assert_eq!(
            text(&retry),
            r#"{"sessionID":"s","status":{"type":"retry","attempt":1,"message":"busy","waitMs":20}}"#
        );
        let idle = StatusEvent {
            session_id: "s".into(),
            status: SessionStatus::Idle,
        };
        assert_eq!(text(&idle), r#"{"sessionID":"s","status":{"type":"idle"}}"#);
        let error = ErrorEvent {
            session_id: "s".into(),
            error: ErrorInfo::new("APIError", "boom"),
        };
        assert_eq!(
            text(&error),
            r#"{"sessionID":"s","error":{"name":"APIError","data":{"message":"boom"}}}"#
        );
    }
}
