//! Slash commands: one table ([`COMMANDS`]) of name, help and handler that both the prompt and
//! `/help` read; the pickers the commands open; the markdown export of a session.

use super::{Action, App, Overlay, Picker, PickerKind};
use crate::model::{ModelChoice, PartKind, SessionInfo, tool_title};
use crate::state::SessionState;

/// A slash command: its name (without the slash), its one-line help as `/help` lists it, and
/// what it does with the text after the name.
#[derive(Debug, Clone, Copy)]
pub struct Command {
    pub name: &'static str,
    pub help: &'static str,
    pub run: fn(&mut App, &str) -> Vec<Action>,
}

/// Every slash command, in the order `/help` lists them.
pub const COMMANDS: [Command; 10] = [
    Command {
        name: "new",
        help: "start a new session",
        run: new,
    },
    Command {
        name: "sessions",
        help: "open another session",
        run: sessions,
    },
    Command {
        name: "undo",
        help: "revert the last prompt and its changes",
        run: undo,
    },
    Command {
        name: "redo",
        help: "bring back what /undo reverted",
        run: redo,
    },
    Command {
        name: "compact",
        help: "summarize the session now to free its context (or /compact what to keep)",
        run: compact,
    },
    Command {
        name: "model",
        help: "choose the model (or /model provider/model)",
        run: model,
    },
    Command {
        name: "agent",
        help: "choose the agent (or /agent name)",
        run: agent,
    },
    Command {
        name: "tools",
        help: "count the tools the model is sent and those deferred",
        run: tools,
    },
    Command {
        name: "export",
        help: "write this session as markdown to a file",
        run: export,
    },
    Command {
        name: "help",
        help: "keys and commands",
        run: help,
    },
];

impl App {
    /// Runs `cmd args` (the line after the slash).
    pub(super) fn command(&mut self, line: &str) -> Vec<Action> {
        let (cmd, arg) = line.split_once(' ').unwrap_or((line, ""));
        if let Some(c) = COMMANDS.iter().find(|c| c.name == cmd) {
            return (c.run)(self, arg.trim());
        }
        if self.chooser.commands.iter().any(|c| c.name == cmd) {
            return self.server_command(cmd, arg.trim());
        }
        self.status.notice = Some(format!("Unknown command /{cmd}; /help lists them"));
        vec![]
    }

    /// `/server:prompt args`: the server fills the prompt's arguments from `args` and runs
    /// it as the next turn; a usage error comes back as the request's failure.
    fn server_command(&mut self, name: &str, arguments: &str) -> Vec<Action> {
        self.state.error = None;
        self.viewport.scroll = 0;
        vec![Action::Command {
            session_id: self.state.session_id().map(str::to_string),
            name: name.to_string(),
            arguments: arguments.to_string(),
            agent: self.agent().to_string(),
            model: self.chooser.model.clone(),
        }]
    }
}

fn new(app: &mut App, _: &str) -> Vec<Action> {
    let left = app.state.session_id().map(|id| Action::End(id.to_string()));
    app.state.close();
    app.state.error = None;
    app.viewport.scroll = 0;
    app.status.notice = Some("New session: it starts with your next prompt".into());
    left.into_iter().collect()
}

fn tools(app: &mut App, _: &str) -> Vec<Action> {
    match app.state.session_id() {
        Some(id) => vec![Action::Tools(id.to_string())],
        None => {
            app.status.notice =
                Some("No session yet: /tools counts an open session's tools".into());
            vec![]
        }
    }
}

/// What `/tools` says: the counts, and what deferred means for the model.
pub(super) fn tools_notice(tools: &strata_protocol::wire::SessionTools) -> String {
    let model = Some(tools.model.as_str()).filter(|m| !m.is_empty());
    let of = model.map(|m| format!(" for {m}")).unwrap_or_default();
    if tools.deferred == 0 {
        return format!("Tools{of}: {} loaded, none deferred", tools.loaded);
    }
    format!(
        "Tools{of}: {} loaded, {} deferred (tool_search loads them)",
        tools.loaded, tools.deferred
    )
}

fn compact(app: &mut App, instructions: &str) -> Vec<Action> {
    let Some(session_id) = app.state.session_id() else {
        app.status.notice = Some("Nothing to compact yet: send a prompt first".into());
        return vec![];
    };
    app.status.notice = Some("Compacting the session…".into());
    vec![Action::Summarize {
        session_id: session_id.to_string(),
        instructions: instructions.to_string(),
        model: app.chooser.model.clone(),
    }]
}

fn sessions(app: &mut App, _: &str) -> Vec<Action> {
    app.dialogs.overlay = Some(Overlay::Picker(session_picker(&app.state.sessions)));
    vec![Action::ListSessions]
}

fn undo(app: &mut App, _: &str) -> Vec<Action> {
    let target = app
        .state
        .session
        .as_ref()
        .and_then(SessionState::last_user_message)
        .map(|m| m.info.id.clone());
    match (app.state.session_id(), target) {
        (Some(session_id), Some(message_id)) => vec![Action::Revert {
            session_id: session_id.to_string(),
            message_id,
        }],
        _ => {
            app.status.notice = Some("Nothing to undo".into());
            vec![]
        }
    }
}

fn redo(app: &mut App, _: &str) -> Vec<Action> {
    match app.state.session_id() {
        Some(id) => vec![Action::Unrevert(id.to_string())],
        None => {
            app.status.notice = Some("Nothing to redo".into());
            vec![]
        }
    }
}

/// `/model provider/model` chooses at once; `/model` alone opens the picker.
fn model(app: &mut App, arg: &str) -> Vec<Action> {
    let chooser = &mut app.chooser;
    if arg.is_empty() {
        let items = chooser
            .models
            .iter()
            .map(|m| (m.label(), m.label()))
            .collect();
        app.dialogs.overlay = Some(Overlay::Picker(Picker {
            kind: PickerKind::Model,
            title: "Models".into(),
            items,
            selected: 0,
        }));
    } else if chooser.models.iter().any(|m| m.label() == arg) || arg.contains('/') {
        let (p, m) = arg.split_once('/').unwrap_or(("", arg));
        chooser.model = Some(ModelChoice {
            provider_id: p.into(),
            model_id: m.into(),
        });
    } else {
        app.status.notice = Some(format!("Unknown model {arg}; write provider/model"));
    }
    vec![]
}

/// `/agent name` chooses at once; `/agent` alone opens the picker.
fn agent(app: &mut App, arg: &str) -> Vec<Action> {
    let chooser = &mut app.chooser;
    if arg.is_empty() {
        let items = chooser
            .agents
            .iter()
            .map(|a| (a.clone(), a.clone()))
            .collect();
        app.dialogs.overlay = Some(Overlay::Picker(Picker {
            kind: PickerKind::Agent,
            title: "Agents".into(),
            items,
            selected: chooser.agent,
        }));
    } else if let Some(i) = chooser.agents.iter().position(|a| a == arg) {
        chooser.agent = i;
    } else {
        let known = chooser.agents.join(", ");
        app.status.notice = Some(format!("Unknown agent {arg}; agents: {known}"));
    }
    vec![]
}

fn export(app: &mut App, _: &str) -> Vec<Action> {
    if app.state.session_id().is_some() {
        return vec![Action::Export];
    }
    app.status.notice = Some("No session to export yet".into());
    vec![]
}

fn help(app: &mut App, _: &str) -> Vec<Action> {
    app.dialogs.overlay = Some(Overlay::Help);
    vec![]
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
                    tool_title(t),
                    t.state.status()
                )),
                _ => {}
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_help_and_its_handler_runs() {
        for (i, c) in COMMANDS.iter().enumerate() {
            assert!(!c.help.trim().is_empty(), "/{} has no help", c.name);
            assert!(
                COMMANDS[..i].iter().all(|o| o.name != c.name),
                "/{} is listed twice",
                c.name
            );
            // With nothing open, each command either asks the runtime for something, opens
            // a window or says why it did nothing; an unknown name would say "Unknown".
            let mut app = App::default();
            let actions = app.command(c.name);
            let notice = app.status.notice.clone().unwrap_or_default();
            assert!(!notice.starts_with("Unknown"), "/{}: {notice}", c.name);
            assert!(
                !actions.is_empty() || app.dialogs.overlay.is_some() || !notice.is_empty(),
                "/{} did nothing",
                c.name
            );
        }
    }

    #[test]
    fn compact_summarizes_the_open_session_with_the_text_after_it() {
        let mut app = App::default();
        assert!(app.command("compact").is_empty());
        assert_eq!(
            app.status.notice.as_deref(),
            Some("Nothing to compact yet: send a prompt first")
        );
        let session = SessionInfo {
            id: "ses_1".into(),
            ..SessionInfo::default()
        };
        app.on_reply(super::super::Reply::Snapshot(Box::new(
            crate::model::Snapshot {
                session,
                ..Default::default()
            },
        )));
        app.command("model p/m");
        assert_eq!(
            app.command("compact  keep the file names"),
            vec![Action::Summarize {
                session_id: "ses_1".into(),
                instructions: "keep the file names".into(),
                model: Some(ModelChoice {
                    provider_id: "p".into(),
                    model_id: "m".into()
                }),
            }]
        );
        assert_eq!(
            app.status.notice.as_deref(),
            Some("Compacting the session…")
        );
    }

    #[test]
    fn arguments_go_to_the_handler_and_unknown_names_say_so() {
        let mut app = App::default();
        app.chooser.agents = vec!["build".into(), "plan".into()];
        assert!(app.command("agent   plan").is_empty());
        assert_eq!(app.agent(), "plan");
        app.command("model p/m");
        assert_eq!(
            app.chooser.model.as_ref().map(ModelChoice::label),
            Some("p/m".into())
        );
        app.command("nope x");
        assert_eq!(
            app.status.notice.as_deref(),
            Some("Unknown command /nope; /help lists them")
        );
    }
}
