//! The application: the reduced server [`State`] plus what only the terminal knows (the
//! prompt being typed, dialogs, scroll, the chosen agent and model). Keys and replies turn
//! into [`Action`]s that the runtime carries out through the [`Client`](crate::Client); the
//! app itself does no I/O, so every key can be tested without a terminal.

mod commands;
mod input;
mod keys;
mod ui;

use crate::client::ClientEvent;
use crate::model::{Bootstrap, ModelChoice, OlderPage, PermissionReply, SessionInfo, Snapshot};
use crate::state::{Connection, Effect, State};

pub use commands::{COMMANDS, Command, export_markdown};
pub use input::Input;
pub use keys::PERMISSION_CHOICES;
pub use ui::{
    Chooser, Dialogs, Drawn, Overlay, PermissionUi, Picker, PickerKind, QuestionUi, Status,
    ToolCounts, Viewport,
};

/// Something for the runtime to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Send a prompt; with no session open, create one first and open it.
    Prompt {
        session_id: Option<String>,
        text: String,
        agent: String,
        model: Option<ModelChoice>,
    },
    Abort(String),
    ReplyPermission {
        request_id: String,
        reply: PermissionReply,
        message: Option<String>,
    },
    ReplyQuestion {
        request_id: String,
        answers: Vec<Vec<String>>,
    },
    RejectQuestion(String),
    /// Fetch a session and open it (also after a gap in its events).
    Open(String),
    /// Fetch the page of messages before cursor `before` of the open session.
    LoadOlder {
        session_id: String,
        before: String,
    },
    ListSessions,
    Revert {
        session_id: String,
        message_id: String,
    },
    Unrevert(String),
    /// Compact the open session now, with the user's instructions for the summary.
    Summarize {
        session_id: String,
        instructions: String,
        model: Option<ModelChoice>,
    },
    /// Run a server command (an MCP prompt) with the text after its name; with no session
    /// open, create one first and open it.
    Command {
        session_id: Option<String>,
        name: String,
        arguments: String,
        agent: String,
        model: Option<ModelChoice>,
    },
    /// Write the open session as markdown to a file in the working directory.
    Export,
    /// Fetch the session's tool counts, loaded and deferred.
    Tools(String),
    /// The user left the session for a new one (`/new`): it ends, with Claude Code's
    /// `SessionEnd` reason `clear`.
    End(String),
    Quit,
}

/// What came back from a runtime action.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Boxed: a snapshot is many times the size of the other replies.
    Snapshot(Box<Snapshot>),
    Sessions(Vec<SessionInfo>),
    /// A request failed; the text says which and why.
    Failed(String),
    /// A gap re-fetch failed.
    RefetchFailed(String),
    /// Older messages of a session, to put before the loaded ones.
    Older {
        session_id: String,
        page: OlderPage,
    },
    /// Older messages could not be fetched; the text says why.
    OlderFailed(String),
    Notice(String),
    /// A session's tools, as `GET /session/:id/tools` lists them.
    Tools {
        session_id: String,
        tools: strata_protocol::wire::SessionTools,
    },
}

/// The reduced server state plus what only the terminal knows, grouped by concern.
#[derive(Debug, Default)]
pub struct App {
    pub state: State,
    pub input: Input,
    pub chooser: Chooser,
    pub dialogs: Dialogs,
    pub viewport: Viewport,
    pub status: Status,
}

impl App {
    /// An app primed with what the server said at start.
    pub fn new(boot: Bootstrap) -> Self {
        let mut agents: Vec<String> = boot
            .agents
            .iter()
            .filter(|a| a.is_primary())
            .map(|a| a.name.clone())
            .collect();
        if agents.is_empty() {
            agents.push("build".into());
        }
        let mut app = App {
            chooser: Chooser {
                agents,
                agent: 0,
                models: boot.models,
                model: boot.model,
                commands: boot.commands,
            },
            ..Default::default()
        };
        app.state.sessions = boot.sessions;
        app
    }

    /// The agent prompts are sent to.
    pub fn agent(&self) -> &str {
        self.chooser.agent()
    }

    /// Applies what the event stream delivered; returns the actions it calls for.
    pub fn on_client_event(&mut self, event: ClientEvent) -> Vec<Action> {
        let effects = match event {
            ClientEvent::Event(e) => self.state.apply(e),
            ClientEvent::Connected => {
                if matches!(self.state.connection, Connection::Reconnecting { .. }) {
                    self.state.reconnected()
                } else {
                    self.state.connection = Connection::Connected;
                    vec![]
                }
            }
            ClientEvent::Disconnected { attempt, .. } => {
                self.state.connection = Connection::Reconnecting { attempt };
                vec![]
            }
        };
        self.follow_dialogs();
        effects.into_iter().map(effect_action).collect()
    }

    /// The gap timer fired: re-fetch if events are still missing.
    pub fn on_gap_timer(&mut self) -> Vec<Action> {
        let effects = self.state.flush_gap();
        self.follow_dialogs();
        effects.into_iter().map(effect_action).collect()
    }

    /// Applies the result of an action.
    pub fn on_reply(&mut self, reply: Reply) {
        match reply {
            Reply::Snapshot(s) => {
                if self.state.session_id() != Some(s.session.id.as_str()) {
                    self.viewport.scroll = 0;
                }
                self.state.load(*s);
            }
            Reply::Sessions(list) => {
                self.state.sessions = list;
                if let Some(Overlay::Picker(p)) = &mut self.dialogs.overlay
                    && p.kind == PickerKind::Session
                {
                    *p = commands::session_picker(&self.state.sessions);
                }
            }
            Reply::Failed(e) => self.state.error = Some(e),
            Reply::RefetchFailed(e) => {
                self.state.refetch_failed();
                self.state.error = Some(e);
            }
            Reply::Notice(n) => self.status.notice = Some(n),
            Reply::Tools { session_id, tools } => {
                self.status.notice = Some(commands::tools_notice(&tools));
                self.status.tools = Some(ToolCounts {
                    session_id,
                    loaded: tools.loaded,
                    deferred: tools.deferred,
                });
            }
            Reply::Older { session_id, page } => self.state.load_older(&session_id, page),
            Reply::OlderFailed(e) => {
                self.state.older_failed();
                self.state.error = Some(e);
            }
        }
        self.follow_dialogs();
    }

    /// A frame was drawn; `drawn` is what it measured.
    pub fn on_drawn(&mut self, drawn: Drawn) {
        self.viewport.drawn(drawn);
    }

    /// After a frame: asks for the messages before the loaded ones once the top of those is
    /// within a page of the screen, one page at a time.
    pub fn history_wanted(&mut self) -> Vec<Action> {
        let (Some(s), Some(max)) = (self.state.session.as_mut(), self.viewport.max_scroll) else {
            return vec![];
        };
        let Some(before) = s.older.clone().filter(|_| !s.loading_older) else {
            return vec![];
        };
        if self.viewport.scroll + self.viewport.page < max {
            return vec![];
        }
        s.loading_older = true;
        vec![Action::LoadOlder {
            session_id: s.info.id.clone(),
            before,
        }]
    }

    /// The spinner's timer fired.
    pub fn on_spin(&mut self) {
        self.status.spinner += 1;
    }

    /// Keeps the dialogs' state on the requests now pending: the one place a newly current
    /// question resets the question dialog.
    fn follow_dialogs(&mut self) {
        self.dialogs.question.sync(self.state.question());
    }

    /// Whether something moves on screen by itself (the spinner), so frames are due.
    pub fn animating(&self) -> bool {
        self.state.busy() != crate::model::Busy::Idle
    }
}

fn effect_action(effect: Effect) -> Action {
    match effect {
        Effect::Refetch(id) => Action::Open(id),
    }
}
