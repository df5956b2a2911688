//! The UI's picture of the server: the open session with its messages and parts, pending
//! permission and question requests, statuses. Changed only by the reducer
//! ([`State::apply`], [`State::load`]), so every view is a function of this value.

pub mod background;
mod reducer;

use std::collections::{BTreeMap, HashMap};

use strata_protocol::Tokens;

use crate::event::ServerEvent;
use crate::model::{
    Busy, MessageInfo, PartInfo, PermissionRequest, QuestionRequest, SessionInfo, Todo,
};

pub use reducer::{Effect, GAP_WINDOW};

/// The state of the connection to the server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Connection {
    #[default]
    Connecting,
    Connected,
    /// Lost; the transport tries again (`attempt` from 1).
    Reconnecting {
        attempt: u32,
    },
}

// PartialEq: tests and the reducer fuzz target compare whole states (replays, arrival order).
#[derive(Debug, Default, PartialEq)]
pub struct State {
    /// The session on screen, once one is open.
    pub session: Option<SessionState>,
    /// Known sessions, most recently updated first (the `/sessions` picker).
    pub sessions: Vec<SessionInfo>,
    /// Pending permission requests, oldest first, of every session.
    pub permissions: Vec<PermissionRequest>,
    /// Pending questions, oldest first, of every session.
    pub questions: Vec<QuestionRequest>,
    pub statuses: HashMap<String, Busy>,
    pub connection: Connection,
    /// The last error to show, until the next prompt.
    pub error: Option<String>,
    /// Whether the server numbers its events (then reconnects replay instead of re-fetching).
    pub(crate) numbered: bool,
    /// Source of message versions (the views' cache keys).
    pub(crate) clock: u64,
}

/// The open session.
#[derive(Debug, Default, PartialEq)]
pub struct SessionState {
    pub info: SessionInfo,
    pub messages: Vec<MessageView>,
    pub(crate) index: HashMap<String, usize>,
    pub todos: Vec<Todo>,
    /// The last sequence number applied.
    pub last_seq: u64,
    /// Events that arrived ahead of a missing one, by sequence number.
    pub(crate) held: BTreeMap<u64, ServerEvent>,
    /// A re-fetch is on its way.
    pub(crate) refetching: bool,
    /// The cursor for the messages before the loaded ones; `None` once all are loaded.
    pub older: Option<String>,
    /// A page of older messages is on its way.
    pub(crate) loading_older: bool,
    /// What the messages not loaded yet cost (the server's total for the session, less the
    /// loaded ones), so the shown cost is the session's whole.
    pub(crate) older_cost: f64,
}

/// A message and its parts; `version` changes whenever either does.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageView {
    pub info: MessageInfo,
    pub parts: Vec<PartInfo>,
    pub version: u64,
}

impl State {
    /// The id of the open session.
    pub fn session_id(&self) -> Option<&str> {
        self.session.as_ref().map(|s| s.info.id.as_str())
    }

    /// What the open session is doing.
    pub fn busy(&self) -> Busy {
        self.session_id()
            .and_then(|id| self.statuses.get(id))
            .cloned()
            .unwrap_or_default()
    }

    /// The permission request to answer first.
    pub fn permission(&self) -> Option<&PermissionRequest> {
        self.permissions.first()
    }

    /// The question to answer first.
    pub fn question(&self) -> Option<&QuestionRequest> {
        self.questions.first()
    }

    /// Events held back behind a missing one in the open session.
    pub fn held(&self) -> usize {
        self.session.as_ref().map_or(0, |s| s.held.len())
    }

    pub(crate) fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }
}

impl SessionState {
    pub fn message(&self, id: &str) -> Option<&MessageView> {
        self.index.get(id).map(|&i| &self.messages[i])
    }

    /// Sum of the cost of every assistant message, loaded or not.
    pub fn cost(&self) -> f64 {
        self.older_cost + self.loaded_cost()
    }

    fn loaded_cost(&self) -> f64 {
        // A fold from 0.0, not `sum`: an empty f64 sum is -0.0, drawn as `$-0.00`.
        self.messages
            .iter()
            .fold(0.0, |total, m| total + m.info.cost)
    }

    /// Whether message `id` lies before the loaded window (ids ascend with time): events
    /// about it are for messages not loaded, which a later page brings as they are then.
    pub(crate) fn before_window(&self, id: &str) -> bool {
        self.older.is_some()
            && self
                .messages
                .first()
                .is_some_and(|m| id < m.info.id.as_str())
    }

    /// Tokens of the last assistant step (what the context holds now).
    pub fn context_tokens(&self) -> u64 {
        self.last_step_tokens().map_or(0, |t| {
            t.input + t.output + t.reasoning + t.cache.read + t.cache.write
        })
    }

    /// The token counts of the last assistant step that reported any.
    pub fn last_step_tokens(&self) -> Option<Tokens> {
        self.messages
            .iter()
            .rev()
            .find(|m| {
                let t = &m.info.tokens;
                !m.info.is_user() && t.input + t.output + t.cache.read + t.cache.write > 0
            })
            .map(|m| m.info.tokens)
    }

    /// The last user message (what `/undo` reverts to).
    pub fn last_user_message(&self) -> Option<&MessageView> {
        self.messages.iter().rev().find(|m| m.info.is_user())
    }

    pub(crate) fn reindex(&mut self) {
        self.index = self
            .messages
            .iter()
            .enumerate()
            .map(|(i, m)| (m.info.id.clone(), i))
            .collect();
    }
}
