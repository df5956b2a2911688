//! The one interface the UI talks to the server through, whatever carries it: [`Client`].
//!
//! Two transports implement it: [`HttpClient`] (HTTP + SSE to `strata serve` or any server
//! speaking the same API) here, and the in-process one (channels to an embedded server core)
//! above this floor, in the command line crate. Both deliver the same [`ClientEvent`]s.

mod feed;
mod http;
pub mod read;

use async_trait::async_trait;
use strata_protocol::wire::{CommandBody, PromptBody, PromptPart, SessionTools, SummarizeBody};
use tokio::sync::mpsc;

use crate::event::Envelope;
use crate::model::{Bootstrap, ModelChoice, OlderPage, PermissionReply, SessionInfo, Snapshot};

pub use http::{HttpClient, HttpOptions};

/// Messages fetched at a time: opening a session shows its newest [`PAGE`], and scrolling
/// to the top of what is loaded fetches the page before (as opencode's own client does).
pub const PAGE: usize = 100;

/// What the event stream delivers.
// Events are nearly every item; boxing them would cost an allocation each.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum ClientEvent {
    /// A server event.
    Event(Envelope),
    /// The stream is (again) open; after a drop it replays from the last cursor.
    Connected,
    /// The stream dropped; the transport retries after a backoff.
    Disconnected { attempt: u32, error: String },
}

/// A prompt to send.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prompt {
    pub text: String,
    pub agent: String,
    pub model: Option<ModelChoice>,
}

impl Prompt {
    /// The body the server reads: one text part, and the agent and model when chosen.
    pub fn body(self) -> PromptBody {
        PromptBody {
            parts: vec![PromptPart::Text { text: self.text }],
            model: self.model,
            agent: Some(self.agent).filter(|a| !a.is_empty()),
            variant: None,
            message_id: None,
            no_reply: None,
        }
    }
}

/// A request that failed: what was asked and what went wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{what} failed: {message}")]
pub struct ClientError {
    pub what: String,
    pub message: String,
}

impl ClientError {
    pub fn new(what: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            what: what.into(),
            message: message.into(),
        }
    }
}

pub type Result<T> = std::result::Result<T, ClientError>;

/// The server, as the UI sees it.
#[async_trait]
pub trait Client: Send + Sync + std::fmt::Debug {
    /// Agents, models, recent sessions and commands, fetched once at start.
    async fn bootstrap(&self) -> Result<Bootstrap>;
    /// Top-level sessions, most recently updated first.
    async fn sessions(&self) -> Result<Vec<SessionInfo>>;
    async fn create_session(&self, agent: &str) -> Result<SessionInfo>;
    /// A session with its newest messages (up to [`PAGE`]) and todos.
    async fn snapshot(&self, session_id: &str) -> Result<Snapshot>;
    /// Up to [`PAGE`] messages before cursor `before` (a snapshot's or page's `older`). A
    /// server that does not page never gives a cursor, so this is never asked of it.
    async fn older(&self, session_id: &str, before: &str) -> Result<OlderPage> {
        let _ = (session_id, before);
        Ok(OlderPage::default())
    }
    /// Starts a turn; returns once the server accepted it.
    async fn prompt(&self, session_id: &str, prompt: Prompt) -> Result<()>;
    /// Runs a command (an MCP prompt, `server:prompt`) as the session's next turn.
    async fn command(&self, session_id: &str, command: CommandBody) -> Result<()>;
    async fn abort(&self, session_id: &str) -> Result<()>;
    /// Compacts the session now (`/compact`); returns once the summary is stored.
    async fn summarize(&self, session_id: &str, body: SummarizeBody) -> Result<()>;
    async fn reply_permission(
        &self,
        request_id: &str,
        reply: PermissionReply,
        message: Option<String>,
    ) -> Result<()>;
    /// One list of chosen labels (or typed text) per question, in order.
    async fn reply_question(&self, request_id: &str, answers: Vec<Vec<String>>) -> Result<()>;
    async fn reject_question(&self, request_id: &str) -> Result<()>;
    /// Undoes `message_id` and everything after it.
    async fn revert(&self, session_id: &str, message_id: &str) -> Result<()>;
    async fn unrevert(&self, session_id: &str) -> Result<()>;
    /// The session's tools as its next step sees them: loaded, deferred, and their counts.
    async fn tools(&self, session_id: &str) -> Result<SessionTools>;
    /// The user left the session (`reason` is Claude Code's `SessionEnd` reason): its
    /// `SessionEnd` hooks run. Over HTTP there is no route for it and nothing is sent: a server
    /// ends its sessions when it deletes them or shuts down.
    async fn end(&self, _session_id: &str, _reason: &str) -> Result<()> {
        Ok(())
    }
    /// Opens the event stream. It reconnects by itself and ends when the receiver is dropped.
    fn events(&self) -> mpsc::Receiver<ClientEvent>;
}
