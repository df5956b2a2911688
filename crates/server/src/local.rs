//! The in-process transport: [`Local`], a handle over a [`ServerCore`] for one project
//! directory, for a UI running in the same process as its server. Every call is a typed call
//! on the core (no HTTP, no JSON text in between), answering what the matching route answers;
//! [`Local::events`] is the `/global/event` stream over a channel, with the same cursor and
//! replay rules: it starts when it is called (what is stored after that, and the events of
//! turns already running, are delivered), and when the hub drops a subscriber that fell too
//! far behind, it resubscribes from the last cursor it delivered.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use strata_protocol::wire::{
    CommandBody, CommandInfo, PermissionReplyBody, PromptBody, SessionCreateBody, SessionInfo,
    SessionTools, SummarizeBody, Todo,
};
use tokio::sync::mpsc;

use crate::core::{CoreError, EventFilter, Frame, MessageEntry, MessagePage, ServerCore, catalog};

/// Items the event channel may hold before the stream waits for its reader.
const QUEUE: usize = 1024;
/// The first pause before resubscribing after a drop; doubled per attempt up to [`MAX_PAUSE`].
const PAUSE: Duration = Duration::from_millis(20);
const MAX_PAUSE: Duration = Duration::from_secs(2);

/// What a UI reads once at start: `GET /agent`, `GET /config/providers`, `GET /config` and
/// `GET /command`.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    /// The agents, as `GET /agent` lists them.
    pub agents: Value,
    /// `{providers, default}`, as `GET /config/providers` answers.
    pub providers: Value,
    /// The merged config (an object).
    pub config: Value,
    /// The commands (the MCP servers' prompts).
    pub commands: Vec<CommandInfo>,
}

/// One item of the in-process event stream.
#[derive(Debug, Clone, PartialEq)]
pub enum LocalEvent {
    /// The stream is (again) subscribed; after a drop it replays from the last cursor.
    Connected,
    /// A server event with its cursor, exactly as the SSE writer would frame it.
    Frame(Arc<Frame>),
    /// The hub dropped this subscriber (it fell too far behind) or stopped; `attempt` counts
    /// the drops since the last successful frame.
    Dropped { attempt: u32, error: String },
}

/// The server core as one project's UI sees it; cheap to clone.
#[derive(Debug, Clone)]
pub struct Local {
    core: ServerCore,
    dir: PathBuf,
}

impl Local {
    /// A handle for the project at `dir` (its instance is built on first use).
    pub fn new(core: ServerCore, dir: impl Into<PathBuf>) -> Local {
        Local {
            core,
            dir: dir.into(),
        }
    }

    pub fn core(&self) -> &ServerCore {
        &self.core
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Agents, providers with their default models, and the config.
    pub async fn catalog(&self) -> Result<Catalog, CoreError> {
        let entry = self.core.instance(&self.dir).await?;
        let providers = catalog::providers(&entry).config_providers();
        let mut config = entry.services.config.raw.clone();
        if !config.is_object() {
            config = Value::Object(Map::new());
        }
        Ok(Catalog {
            agents: catalog::agents(&entry),
            providers,
            config,
            commands: crate::core::commands::list(&entry),
        })
    }

    /// The project's sessions, most recently updated first.
    pub async fn sessions(&self) -> Result<Vec<SessionInfo>, CoreError> {
        self.core.list_sessions(&self.dir).await
    }

    pub async fn create_session(&self, body: SessionCreateBody) -> Result<SessionInfo, CoreError> {
        self.core.create_session(&self.dir, body).await
    }

    pub fn session(&self, id: &str) -> Result<SessionInfo, CoreError> {
        self.core.session(id)
    }

    /// The session's messages with their parts, oldest first.
    pub fn messages(&self, id: &str) -> Result<Vec<MessageEntry>, CoreError> {
        self.core.messages(id)
    }

    /// The last `limit` messages before cursor `before` (of all when `None`), oldest first,
    /// with the cursor for the ones before them.
    pub fn message_page(
        &self,
        id: &str,
        limit: usize,
        before: Option<&str>,
    ) -> Result<MessagePage, CoreError> {
        self.core.message_page(id, limit, before)
    }

    pub fn todos(&self, id: &str) -> Result<Vec<Todo>, CoreError> {
        self.core.todos(id)
    }

    /// The session's tools as its next step sees them, loaded or deferred.
    pub async fn tools(&self, id: &str) -> Result<SessionTools, CoreError> {
        self.core.session_tools(id).await
    }

    /// Queues a turn and returns once it is accepted (`prompt_async`); the turn runs on.
    pub async fn prompt(&self, id: &str, body: PromptBody) -> Result<(), CoreError> {
        self.core.prompt(id, body).await.map(drop)
    }

    /// Runs a command (an MCP prompt) as the session's next turn; returns once it is queued.
    pub async fn command(&self, id: &str, body: CommandBody) -> Result<(), CoreError> {
        self.core.command(id, body).await.map(drop)
    }

    /// Compacts the session now (`POST /session/:id/summarize`); returns once it ended.
    pub async fn summarize(&self, id: &str, body: SummarizeBody) -> Result<(), CoreError> {
        let instructions = body.instructions.clone().unwrap_or_default();
        let turn = self
            .core
            .summarize(id, body.model().as_ref(), instructions)
            .await?;
        turn.finished().await.map(drop)
    }

    /// Ends the session for this front-end: its `SessionEnd` hooks run with `reason` if it
    /// was prompted here and has not ended yet (see [`ServerCore::end_session`]).
    pub async fn end_session(&self, id: &str, reason: &str) {
        self.core.end_session(id, reason).await;
    }

    /// Cancels the session's running turn; `false` when nothing was running.
    pub fn abort(&self, id: &str) -> Result<bool, CoreError> {
        self.core.session(id)?;
        Ok(self.core.abort(id))
    }

    pub async fn reply_permission(
        &self,
        request_id: &str,
        body: PermissionReplyBody,
    ) -> Result<(), CoreError> {
        self.core.reply_permission(request_id, body, None).await
    }

    pub async fn reply_question(
        &self,
        request_id: &str,
        answers: Vec<Vec<String>>,
    ) -> Result<(), CoreError> {
        self.core.reply_question(request_id, answers).await
    }

    pub async fn reject_question(&self, request_id: &str) -> Result<(), CoreError> {
        self.core.reject_question(request_id).await
    }

    /// Undoes `message_id` and everything after it.
    pub async fn revert(&self, id: &str, message_id: &str) -> Result<SessionInfo, CoreError> {
        self.core.revert(id, message_id).await
    }

    pub async fn unrevert(&self, id: &str) -> Result<SessionInfo, CoreError> {
        self.core.unrevert(id).await
    }

    /// Every project's events from now on (or after cursor `after`), as `/global/event`
    /// sends them. The stream ends when the receiver is dropped or the core shuts down.
    pub fn events(&self, after: Option<i64>) -> mpsc::Receiver<LocalEvent> {
        let (tx, rx) = mpsc::channel(QUEUE);
        // Subscribed here, not on the task: the stream starts at this call.
        let sub = self.core.subscribe(EventFilter::All, after);
        tokio::spawn(forward(self.core.clone(), sub, after, tx));
        rx
    }
}

/// Hands the subscription's frames to `tx`, resubscribing from the last cursor after a drop.
async fn forward(
    core: ServerCore,
    mut sub: crate::core::Subscription,
    mut cursor: Option<i64>,
    tx: mpsc::Sender<LocalEvent>,
) {
    let mut attempt = 0u32;
    loop {
        if tx.send(LocalEvent::Connected).await.is_err() {
            return;
        }
        loop {
            let frame = tokio::select! {
                () = tx.closed() => return,
                frame = sub.next() => frame,
            };
            let Some(frame) = frame else { break };
            attempt = 0;
            if frame.cursor.is_some() {
                cursor = frame.cursor;
            }
            if tx.send(LocalEvent::Frame(frame)).await.is_err() {
                return;
            }
        }
        if core.is_closed() {
            return;
        }
        attempt += 1;
        let error = "the event stream fell behind and was dropped; replaying from the last event"
            .to_string();
        if tx
            .send(LocalEvent::Dropped { attempt, error })
            .await
            .is_err()
        {
            return;
        }
        let pause = (PAUSE * (1u32 << attempt.min(16))).min(MAX_PAUSE);
        tokio::select! {
            () = tx.closed() => return,
            () = tokio::time::sleep(pause) => {}
        }
        sub = core.subscribe(EventFilter::All, cursor);
    }
}
