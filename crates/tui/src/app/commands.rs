//! Slash commands (`/new`, `/sessions`, `/undo`, `/redo`, `/model`, `/agent`, `/export`,
//! `/help`) and the pickers they open; the markdown export of a session.

use super::{Action, App, Overlay, Picker, PickerKind};
use crate::model::{PartKind, SessionInfo};
use crate::state::SessionState;

/// Every command with its one-line help, as `/help` lists them.
pub const COMMANDS: [(&str, &str); 8] = [
    ("/new", "start a new session"),
    ("/sessions", "open another session"),
    ("/undo", "revert the last prompt and its changes"),
    ("/redo", "bring back what /undo reverted"),
    ("/model", "choose the model (or /model provider/model)"),
    ("/agent", "choose the agent (or /agent name)"),
    ("/export", "write this session as markdown to a file"),
    ("/help", "keys and commands"),
];

impl App {
    /// Runs `/cmd args`.
    pub(super) fn command(&mut self, line: &str) -> Vec<Action> {
        let (cmd, arg) = line.split_once(' ').unwrap_or((line, ""));
        let arg = arg.trim();
        let session = self.state.session_id().map(str::to_string);
        match cmd {
            "new" => {
                self.state.close();
                self.state.error = None;
                self.scroll = 0;
                self.notice = Some("New session: it starts with your next prompt".into());
            }
            "sessions" => {
                self.overlay = Some(Overlay::Picker(session_picker(&self.state.sessions)));
                return vec![Action::ListSessions];
            }
            "undo" => {
                let target = self
                    .state
                    .session
                    .as_ref()
                    .and_then(SessionState::last_user_message)
                    .map(|m| m.info.id.clone());
                match (session, target) {
                    (Some(session_id), Some(message_id)) => {
                        return vec![Action::Revert {
                            session_id,
                            message_id,
                        }];
                    }
                    _ => self.notice = Some("Nothing to undo".into()),
                }
            }
            "redo" => match session {
                Some(id) => return vec![Action::Unrevert(id)],
                None => self.notice = Some("Nothing to redo".into()),
            },
            "model" if !arg.is_empty() => {
                if self.models.iter().any(|m| m.label() == arg) || arg.contains('/') {
                    let (p, m) = arg.split_once('/').unwrap_or(("", arg));
                    self.model = Some(crate::model::ModelRef {
                        provider_id: p.into(),
                        model_id: m.into(),
                    });
                } else {
                    self.notice = Some(format!("Unknown model {arg}; write provider/model"));
                }
            }
            "model" => {
                let items = self.models.iter().map(|m| (m.label(), m.label())).collect();
                self.overlay = Some(Overlay::Picker(Picker {
                    kind: PickerKind::Model,
                    title: "Models".into(),
                    items,
                    selected: 0,
                }));
            }
            "agent" if !arg.is_empty() => match self.agents.iter().position(|a| a == arg) {
                Some(i) => self.agent = i,
                None => {
                    let known = self.agents.join(", ");
                    self.notice = Some(format!("Unknown agent {arg}; agents: {known}"));
                }
            },
            "agent" => {
                let items = self.agents.iter().map(|a| (a.clone(), a.clone())).collect();
                self.overlay = Some(Overlay::Picker(Picker {
                    kind: PickerKind::Agent,
                    title: "Agents".into(),
                    items,
                    selected: self.agent,
                }));
            }
            "export" => match session {
                Some(_) => return vec![Action::Export],
                None => self.notice = Some("No session to export yet".into()),
            },
            "help" => self.overlay = Some(Overlay::Help),
            other => self.notice = Some(format!("Unknown command /{other}; /help lists them")),
        }
        vec![]
    }
}

/// The `/sessions` picker over `sessions`.
pub(super) fn session_picker(sessions: &[SessionInfo]) -> Picker {
    Picker {
        kind: PickerKind::Session,
        title: "Sessions".into(),
        items: sessions
            .iter()
            .map(|s| {
                let title = if s.title.is_empty() {
                    "(untitled)"
                } else {
                    &s.title
                };
                (s.id.clone(), format!("{title}  {}", s.id))
            })
            .collect(),
        selected: 0,
    }
}

/// The session as markdown: prompts as quotes, answers as written, tool calls as one line each.
pub fn export_markdown(session: &SessionState) -> String {
    let mut out = format!(
        "# {}\n\nSession `{}`\n",
        session.info.title, session.info.id
    );
    for m in &session.messages {
        out.push('\n');
        for p in &m.parts {
            match &p.kind {
                PartKind::Text(t) if m.info.is_user() => {
                    for l in t.text.lines() {
                        out.push_str(&format!("> {l}\n"));
                    }
                }
                PartKind::Text(t) => out.push_str(&format!("{}\n", t.text.trim_end())),
                PartKind::Tool(t) => out.push_str(&format!(
                    "- `{}` {} ({})\n",
                    t.tool,
                    crate::view::message::title(t),
                    t.state.status()
                )),
                _ => {}
            }
        }
    }
    out
}
