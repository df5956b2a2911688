//! The TUI's in-process transport: [`LocalClient`] implements the UI's `Client` over the
//! server crate's [`Local`] handle, so `strata` with no command drives its own server core
//! through typed calls and a channel of events, with no port and no password. Answers are read
//! with the same readers as the HTTP transport's, so both give the UI the same values and the
//! same typed events.
//!
//! (The integration tests include this file as a module, so it names only other crates.)

use async_trait::async_trait;
use serde::Serialize;
use serde_json::Value;
use strata_protocol::wire::{
    Decoded, ModelChoice, PermissionReply as WireReply, PermissionReplyBody, PromptBody,
    PromptPart, SessionCreateBody,
};
use strata_server::core::CoreError;
use strata_server::local::{Local, LocalEvent};
use strata_tui::client::{Client, ClientError, ClientEvent, Prompt, Result, read};
use strata_tui::event::from_wire;
use strata_tui::model::{Bootstrap, PermissionReply, SessionInfo, Snapshot};
use tokio::sync::mpsc;

/// [`Client`] over a server core in this process.
#[derive(Debug, Clone)]
pub(crate) struct LocalClient {
    local: Local,
}

impl LocalClient {
    pub(crate) fn new(local: Local) -> Self {
        Self { local }
    }
}

fn failed(what: impl Into<String>) -> impl FnOnce(CoreError) -> ClientError {
    let what = what.into();
    move |e| ClientError::new(what, e.to_string())
}

/// A core value as the JSON its route would answer, for the shared readers.
fn json(what: &str, v: &impl Serialize) -> Result<Value> {
    serde_json::to_value(v).map_err(|e| ClientError::new(what, format!("encoding: {e}")))
}

#[async_trait]
impl Client for LocalClient {
    async fn bootstrap(&self) -> Result<Bootstrap> {
        let what = "reading the project's agents and models";
        let catalog = self.local.catalog().await.map_err(failed(what))?;
        // The list is a convenience, as over HTTP.
        let sessions = self.sessions().await.unwrap_or_default();
        read::bootstrap(
            catalog.agents,
            &catalog.providers,
            &catalog.config,
            sessions,
        )
    }

    async fn sessions(&self) -> Result<Vec<SessionInfo>> {
        let what = "listing sessions";
        let all = self.local.sessions().await.map_err(failed(what))?;
        read::top_sessions(what, json(what, &all)?)
    }

    async fn create_session(&self, _agent: &str) -> Result<SessionInfo> {
        let what = "creating a session";
        let body = SessionCreateBody {
            parent_id: None,
            title: None,
            permission: Vec::new(),
        };
        let info = self
            .local
            .create_session(body)
            .await
            .map_err(failed(what))?;
        read::parse(what, json(what, &info)?)
    }

    async fn snapshot(&self, session_id: &str) -> Result<Snapshot> {
        let what = format!("opening session {session_id}");
        let info = self.local.session(session_id).map_err(failed(&what))?;
        let list = self.local.messages(session_id).map_err(failed(&what))?;
        let todos = self.local.todos(session_id).ok();
        let todos = todos.map(|t| json(&what, &t)).transpose()?;
        read::snapshot(&what, json(&what, &info)?, &json(&what, &list)?, todos)
    }

    async fn prompt(&self, session_id: &str, prompt: Prompt) -> Result<()> {
        let body = PromptBody {
            parts: vec![PromptPart::Text { text: prompt.text }],
            model: prompt.model.map(|m| ModelChoice {
                provider_id: m.provider_id,
                model_id: m.model_id,
            }),
            agent: Some(prompt.agent).filter(|a| !a.is_empty()),
            variant: None,
            message_id: None,
            no_reply: None,
        };
        self.local
            .prompt(session_id, body)
            .await
            .map_err(failed(format!("prompting session {session_id}")))
    }

    async fn abort(&self, session_id: &str) -> Result<()> {
        self.local
            .abort(session_id)
            .map(drop)
            .map_err(failed(format!("aborting session {session_id}")))
    }

    async fn reply_permission(
        &self,
        request_id: &str,
        reply: PermissionReply,
        message: Option<String>,
    ) -> Result<()> {
        let body = PermissionReplyBody {
            reply: match reply {
                PermissionReply::Once => WireReply::Once,
                PermissionReply::Always => WireReply::Always,
                PermissionReply::Reject => WireReply::Reject,
            },
            message: message.filter(|m| !m.is_empty()),
        };
        self.local
            .reply_permission(request_id, body)
            .await
            .map_err(failed(format!("replying to permission {request_id}")))
    }

    async fn reply_question(&self, request_id: &str, answers: Vec<Vec<String>>) -> Result<()> {
        self.local
            .reply_question(request_id, answers)
            .await
            .map_err(failed(format!("answering question {request_id}")))
    }

    async fn reject_question(&self, request_id: &str) -> Result<()> {
        self.local
            .reject_question(request_id)
            .await
            .map_err(failed(format!("dismissing question {request_id}")))
    }

    async fn revert(&self, session_id: &str, message_id: &str) -> Result<()> {
        self.local
            .revert(session_id, message_id)
            .await
            .map(drop)
            .map_err(failed(format!("undoing in session {session_id}")))
    }

    async fn unrevert(&self, session_id: &str) -> Result<()> {
        self.local
            .unrevert(session_id)
            .await
            .map(drop)
            .map_err(failed(format!("redoing in session {session_id}")))
    }

    fn events(&self) -> mpsc::Receiver<ClientEvent> {
        let mut frames = self.local.events(None);
        let (tx, rx) = mpsc::channel(1024);
        tokio::spawn(async move {
            loop {
                // Ends when the UI drops its receiver, even while no event comes.
                let item = tokio::select! {
                    () = tx.closed() => return,
                    item = frames.recv() => item,
                };
                let Some(item) = item else { return };
                let event = match item {
                    LocalEvent::Connected => ClientEvent::Connected,
                    LocalEvent::Frame(frame) => ClientEvent::Event(from_wire(Decoded::Known(
                        Box::new(frame.envelope.clone()),
                    ))),
                    LocalEvent::Dropped { attempt, error } => {
                        ClientEvent::Disconnected { attempt, error }
                    }
                };
                if tx.send(event).await.is_err() {
                    return;
                }
            }
        });
        rx
    }
}
