//! The TUI's in-process transport: [`LocalClient`] implements the UI's `Client` over the
//! server crate's [`Local`] handle, so `strata` with no command drives its own server core
//! through typed calls and a channel of events, with no port and no password. The core answers
//! in the protocol's wire types, which are the UI's own, so its values and events are handed
//! over as they are, with no JSON in between; the few steps both transports share (top-level
//! sessions, message entries) are the TUI's readers.
//!
//! (The integration tests include this file as a module, so it names only other crates.)

use async_trait::async_trait;
use strata_protocol::wire::{
    CommandBody, PermissionReply, PermissionReplyBody, SessionCreateBody, SessionTools,
    SummarizeBody,
};
use strata_server::core::CoreError;
use strata_server::local::{Local, LocalEvent};
use strata_tui::client::{Client, ClientError, ClientEvent, PAGE, Prompt, Result, read};
use strata_tui::model::{Bootstrap, OlderPage, SessionInfo, Snapshot};
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

#[async_trait]
impl Client for LocalClient {
    async fn bootstrap(&self) -> Result<Bootstrap> {
        let what = "reading the project's agents and models";
        let catalog = self.local.catalog().await.map_err(failed(what))?;
        // The list is a convenience, as over HTTP.
        let sessions = self.sessions().await.unwrap_or_default();
        let mut boot = read::bootstrap(
            catalog.agents,
            &catalog.providers,
            &catalog.config,
            sessions,
        )?;
        boot.commands = catalog.commands;
        Ok(boot)
    }

    async fn sessions(&self) -> Result<Vec<SessionInfo>> {
        let what = "listing sessions";
        let all = self.local.sessions().await.map_err(failed(what))?;
        Ok(read::top_sessions(all))
    }

    async fn create_session(&self, _agent: &str) -> Result<SessionInfo> {
        let what = "creating a session";
        let body = SessionCreateBody {
            parent_id: None,
            title: None,
            permission: Vec::new(),
        };
        self.local.create_session(body).await.map_err(failed(what))
    }

    async fn snapshot(&self, session_id: &str) -> Result<Snapshot> {
        let what = format!("opening session {session_id}");
        let info = self.local.session(session_id).map_err(failed(&what))?;
        let page = self.local.message_page(session_id, PAGE, None);
        let page = page.map_err(failed(&what))?;
        let todos = self.local.todos(session_id).ok();
        let messages = read::entries(&page.messages);
        Ok(read::snapshot(info, messages, page.next, todos))
    }

    async fn older(&self, session_id: &str, before: &str) -> Result<OlderPage> {
        let what = format!("reading older messages of session {session_id}");
        let page = self.local.message_page(session_id, PAGE, Some(before));
        let page = page.map_err(failed(&what))?;
        Ok(OlderPage {
            messages: read::entries(&page.messages),
            older: page.next,
        })
    }

    async fn prompt(&self, session_id: &str, prompt: Prompt) -> Result<()> {
        self.local
            .prompt(session_id, prompt.body())
            .await
            .map_err(failed(format!("prompting session {session_id}")))
    }

    async fn command(&self, session_id: &str, command: CommandBody) -> Result<()> {
        self.local
            .command(session_id, command)
            .await
            .map_err(failed(format!("running a command in session {session_id}")))
    }

    async fn summarize(&self, session_id: &str, body: SummarizeBody) -> Result<()> {
        self.local
            .summarize(session_id, body)
            .await
            .map_err(failed(format!("compacting session {session_id}")))
    }

    async fn end(&self, session_id: &str, reason: &str) -> Result<()> {
        self.local.end_session(session_id, reason).await;
        Ok(())
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
            reply,
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

    async fn tools(&self, session_id: &str) -> Result<SessionTools> {
        self.local
            .tools(session_id)
            .await
            .map_err(failed(format!("listing the tools of session {session_id}")))
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
                    LocalEvent::Frame(frame) => ClientEvent::Event(frame.envelope.clone()),
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
