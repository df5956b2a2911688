//! What flows in and out of the Permission service: asks, pending requests, replies, events.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fingerprint::Fingerprint;
use super::rules::Ruleset;

/// The tool call a request belongs to: the wire's own type.
pub use strata_protocol::wire::ToolRef;

/// One question to the Permission service: may `permission` be used on each of `patterns`?
#[derive(Debug, Clone, PartialEq)]
pub struct AskRequest {
    pub session_id: String,
    /// The permission name, e.g. `bash`, `edit`, `external_directory`.
    pub permission: String,
    /// What this call touches, e.g. `git status` or `src/main.rs`; every one must be allowed.
    pub patterns: Vec<String>,
    /// What a reply of `always` approves from then on (often broader than `patterns`).
    pub always: Vec<String>,
    /// Free-form details for whoever answers (file path, diff, command, ...).
    pub metadata: Value,
    pub tool: Option<ToolRef>,
    /// The effective rules for this call: agent rules followed by session rules.
    pub ruleset: Ruleset,
    /// The call runs inside an enforced sandbox with `sandbox.auto_allow` on: what would be
    /// asked is allowed (a deny still denies).
    pub sandbox_auto_allow: bool,
    /// What the request shows, hashed; kept on the pending request so the caller can check,
    /// once it is approved, that the call and its files are still what was shown.
    pub shown: Option<Fingerprint>,
    /// A PreToolUse hook's decision on this call (see [`decide`](super::decide)): `ask`
    /// asks even where a rule or an earlier `always` allows.
    pub hook: Option<super::Action>,
}

/// A request waiting for a reply, as front-ends see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// `per_…`, unique in the process.
    pub id: String,
    #[serde(rename = "sessionID")]
    pub session_id: String,
    pub permission: String,
    pub patterns: Vec<String>,
    pub always: Vec<String>,
    pub metadata: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolRef>,
    /// The hashes of what this request shows (see [`AskRequest::shown`]); boxed to keep the
    /// `asked` event small.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown: Option<Box<Fingerprint>>,
}

/// How an ask ended in "allowed".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Granted {
    /// The rules, or an earlier `always` reply, allowed it: no request was shown.
    Rules,
    /// A reply approved the pending request `request_id`, which showed `shown`.
    Reply {
        request_id: String,
        shown: Option<Fingerprint>,
    },
}

/// An answer to a pending request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Reply {
    /// Allow this call only.
    Once,
    /// Allow this call and, for the rest of the instance, the request's `always` patterns.
    Always,
    /// Refuse this call (and every other pending request of the same session).
    Reject {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        feedback: Option<String>,
    },
}

/// What the service announces; front-ends subscribe to show and answer requests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum PermissionEvent {
    /// A request is waiting for a reply (`permission.asked`).
    #[serde(rename = "permission.asked")]
    Asked(Request),
    /// A request was answered, directly or as a consequence of a reply to another request of
    /// its session (`permission.replied`).
    #[serde(rename = "permission.replied")]
    Replied {
        #[serde(rename = "sessionID")]
        session_id: String,
        #[serde(rename = "requestID")]
        request_id: String,
        reply: Reply,
    },
    /// A request went away without a reply: its call was cancelled or the instance closed.
    /// Front-ends should stop showing it.
    #[serde(rename = "permission.withdrawn")]
    Withdrawn {
        #[serde(rename = "sessionID")]
        session_id: String,
        #[serde(rename = "requestID")]
        request_id: String,
    },
}
