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
    /// `{"sessionID", "hook": HookRecord}`: one hook command ran.
    pub const SESSION_HOOK: &str = "session.hook";
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

/// One run of a hook command (Claude Code's hooks), as the session records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HookRecord {
    /// The hook event, by Claude Code's name (`PreToolUse`, `Stop`, …).
    pub event: String,
    pub command: String,
    /// The config file the hook came from.
    pub file: String,
    /// `null` when it was stopped at its timeout, ended by a signal or never started.
    #[serde(rename = "exitCode")]
    pub exit_code: Option<i32>,
    #[serde(rename = "durationMs")]
    pub duration_ms: u64,
    /// The tool call it ran around, for the tool events.
    #[serde(rename = "callID", default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    pub outcome: HookOutcomeRecord,
}

/// What a hook run asked for; empty fields are left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HookOutcomeRecord {
    /// Exit 2 or `decision: "block"`: the reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<String>,
    /// `allow`, `deny` or `ask` (PreToolUse).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Text the hook added to the model's context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// `continue: false`: the reason the hook stopped the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<String>,
    /// A failed, timed-out or missing hook, or output that could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// What the hook printed on stdout (cut when long); left out when it printed nothing or
    /// set `suppressOutput`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

/// The data of a `session.hook` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookEventData {
    #[serde(rename = "sessionID")]
    pub session_id: String,
    pub hook: HookRecord,
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

    #[test]
    fn a_hook_record_keeps_its_shape() {
        let data = HookEventData {
            session_id: "s".into(),
            hook: HookRecord {
                event: "PreToolUse".into(),
                command: "./guard.sh".into(),
                file: ".claude/settings.json".into(),
                exit_code: Some(2),
                duration_ms: 12,
                call_id: Some("c1".into()),
                tool: Some("bash".into()),
                outcome: HookOutcomeRecord {
                    blocked: Some("no".into()),
                    ..HookOutcomeRecord::default()
                },
            },
        };
        assert_eq!(
            text(&data),
            r#"{"sessionID":"s","hook":{"event":"PreToolUse","command":"./guard.sh","file":".claude/settings.json","exitCode":2,"durationMs":12,"callID":"c1","tool":"bash","outcome":{"blocked":"no"}}}"#
        );
    }
}
