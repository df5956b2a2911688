//! What each key does, by what is on screen: an overlay, the permission dialog, the question
//! dialog, or the prompt.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::{Action, App, Overlay, PickerKind};
use crate::model::{Busy, PermissionReply};

/// The permission dialog's choices, in order.
pub const PERMISSION_CHOICES: [(PermissionReply, &str); 3] = [
    (PermissionReply::Once, "Allow once"),
    (PermissionReply::Always, "Allow always"),
    (PermissionReply::Reject, "Reject"),
];

impl App {
    /// Handles one key press.
    pub fn on_key(&mut self, key: KeyEvent) -> Vec<Action> {
        if key.kind == KeyEventKind::Release {
            return vec![];
        }
        // The state is a public value and may have changed since the last update.
        self.follow_dialogs();
        let actions = self.key(key);
        // An answered question lets the next one come up.
        self.follow_dialogs();
        actions
    }

    fn key(&mut self, key: KeyEvent) -> Vec<Action> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('c') {
            return self.ctrl_c();
        }
        self.status.quit_armed = false;
        self.status.notice = None;
        if self.dialogs.overlay.is_some() {
            return self.overlay_key(key);
        }
        if let Some(req) = self.state.permission().cloned() {
            return self.permission_key(key, &req.id);
        }
        if let Some(req) = self.state.question().cloned() {
            return self.question_key(key, &req);
        }
        self.prompt_key(key)
    }

    /// Pasted text goes where typing goes.
    pub fn on_paste(&mut self, text: &str) {
        self.follow_dialogs();
        self.status.quit_armed = false;
        if self.state.permission().is_some() {
            self.dialogs.permission.message.push_str(text);
        } else if self.state.question().is_some() {
            self.dialogs.question.custom.push_str(text);
        } else {
            self.input.paste(text);
        }
    }

    fn ctrl_c(&mut self) -> Vec<Action> {
        if self.status.quit_armed {
            return vec![Action::Quit];
        }
        self.status.quit_armed = true;
        if self.input.is_empty() {
            self.status.notice = Some("Press Ctrl+C again to quit".into());
        } else {
            self.input.clear();
        }
        vec![]
    }

    fn prompt_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let newline = key
            .modifiers
            .intersects(KeyModifiers::SHIFT | KeyModifiers::ALT);
        match key.code {
            KeyCode::Enter if newline => self.input.newline(),
            KeyCode::Char('j') if ctrl => self.input.newline(),
            KeyCode::Enter => return self.submit(),
            KeyCode::Char('d') if ctrl && self.input.is_empty() => return vec![Action::Quit],
            KeyCode::Char('o') if ctrl => self.viewport.expanded = !self.viewport.expanded,
            KeyCode::Char('a') if ctrl => self.input.home(),
            KeyCode::Char('e') if ctrl => self.input.end(),
            KeyCode::Char('u') if ctrl => self.input.delete_to_line_start(),
            KeyCode::Char('w') if ctrl => self.input.delete_word(),
            KeyCode::Backspace if key.modifiers.contains(KeyModifiers::ALT) => {
                self.input.delete_word()
            }
            KeyCode::Char(c) if !ctrl => self.input.insert(c),
            KeyCode::Backspace => self.input.backspace(),
            KeyCode::Delete => self.input.delete(),
            KeyCode::Left => self.input.left(),
            KeyCode::Right => self.input.right(),
            KeyCode::Home => self.input.home(),
            KeyCode::End => self.input.end(),
            KeyCode::Up => {
                self.input.up();
            }
            KeyCode::Down => {
                self.input.down();
            }
            KeyCode::PageUp => self.viewport.page_up(),
            KeyCode::PageDown => self.viewport.page_down(),
            KeyCode::Tab | KeyCode::BackTab if !self.chooser.agents.is_empty() => {
                let n = self.chooser.agents.len();
                let back = key.code == KeyCode::BackTab;
                self.chooser.agent = (self.chooser.agent + if back { n - 1 } else { 1 }) % n;
            }
            KeyCode::Esc => {
                if self.state.busy() != Busy::Idle
                    && let Some(id) = self.state.session_id()
                {
                    self.status.notice = Some("Interrupting…".into());
                    return vec![Action::Abort(id.to_string())];
                }
            }
            _ => {}
        }
        vec![]
    }

    fn submit(&mut self) -> Vec<Action> {
        if self.input.text().trim().is_empty() {
            return vec![];
        }
        let text = self.input.take();
        if let Some(cmd) = text.trim().strip_prefix('/')
            && !cmd.contains('\n')
        {
            return self.command(cmd);
        }
        self.state.error = None;
        self.viewport.scroll = 0;
        vec![Action::Prompt {
            session_id: self.state.session_id().map(str::to_string),
            text,
            agent: self.agent().to_string(),
            model: self.chooser.model.clone(),
        }]
    }

    fn overlay_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let Some(Overlay::Picker(p)) = self.dialogs.overlay.as_mut() else {
            // Help closes on any key.
            self.dialogs.overlay = None;
            return vec![];
        };
        match key.code {
            KeyCode::Esc => self.dialogs.overlay = None,
            KeyCode::Up => p.selected = p.selected.saturating_sub(1),
            KeyCode::Down => p.selected = (p.selected + 1).min(p.items.len().saturating_sub(1)),
            KeyCode::PageUp => p.selected = p.selected.saturating_sub(10),
            KeyCode::PageDown => {
                p.selected = (p.selected + 10).min(p.items.len().saturating_sub(1))
            }
            KeyCode::Enter => {
                let (kind, chosen) = (p.kind, p.items.get(p.selected).map(|i| i.0.clone()));
                self.dialogs.overlay = None;
                let Some(id) = chosen else {
                    return vec![];
                };
                return self.pick(kind, &id);
            }
            _ => {}
        }
        vec![]
    }

    pub(super) fn pick(&mut self, kind: PickerKind, id: &str) -> Vec<Action> {
        match kind {
            PickerKind::Session => return vec![Action::Open(id.to_string())],
            PickerKind::Model => {
                let chooser = &mut self.chooser;
                chooser.model = chooser.models.iter().find(|m| m.label() == id).cloned();
            }
            PickerKind::Agent => {
                if let Some(i) = self.chooser.agents.iter().position(|a| a == id) {
                    self.chooser.agent = i;
                }
            }
        }
        vec![]
    }

    fn permission_key(&mut self, key: KeyEvent, request_id: &str) -> Vec<Action> {
        let ui = &mut self.dialogs.permission;
        let reply = match key.code {
            KeyCode::Up | KeyCode::Left | KeyCode::BackTab => {
                ui.selected = (ui.selected + 2) % 3;
                None
            }
            KeyCode::Down | KeyCode::Right | KeyCode::Tab => {
                ui.selected = (ui.selected + 1) % 3;
                None
            }
            KeyCode::Enter => Some(PERMISSION_CHOICES[ui.selected.min(2)].0),
            KeyCode::Esc => Some(PermissionReply::Reject),
            KeyCode::Backspace => {
                ui.message.pop();
                None
            }
            KeyCode::Char(c) => {
                ui.message.push(c);
                None
            }
            _ => None,
        };
        let Some(reply) = reply else {
            return vec![];
        };
        let message = std::mem::take(&mut ui.message);
        ui.selected = 0;
        // Answered: the dialog goes at once, without waiting for the server's echo.
        self.state.permissions.retain(|p| p.id != request_id);
        vec![Action::ReplyPermission {
            request_id: request_id.to_string(),
            reply,
            message: (!message.trim().is_empty()).then_some(message),
        }]
    }

    fn question_key(&mut self, key: KeyEvent, req: &crate::model::QuestionRequest) -> Vec<Action> {
        let ui = &mut self.dialogs.question;
        let Some(q) = req.questions.get(ui.index) else {
            return vec![];
        };
        // Rows: the options, then the typed answer when allowed.
        let rows = q.options.len() + usize::from(q.allows_custom());
        let on_custom = q.allows_custom() && ui.cursor == q.options.len();
        match key.code {
            KeyCode::Esc => {
                self.state.questions.retain(|r| r.id != req.id);
                return vec![Action::RejectQuestion(req.id.clone())];
            }
            KeyCode::Up => ui.cursor = ui.cursor.saturating_sub(1),
            KeyCode::Down => ui.cursor = (ui.cursor + 1).min(rows.saturating_sub(1)),
            KeyCode::Char(' ') if q.is_multiple() && !on_custom => {
                if let Some(c) = ui.checked.get_mut(ui.cursor) {
                    *c = !*c;
                }
            }
            KeyCode::Char(c) if on_custom => ui.custom.push(c),
            KeyCode::Backspace if on_custom => {
                ui.custom.pop();
            }
            KeyCode::Enter => {
                let mut answer: Vec<String> = if q.is_multiple() {
                    q.options
                        .iter()
                        .zip(&ui.checked)
                        .filter(|(_, c)| **c)
                        .map(|(o, _)| o.label.clone())
                        .collect()
                } else if on_custom {
                    vec![]
                } else {
                    q.options
                        .get(ui.cursor)
                        .map(|o| o.label.clone())
                        .into_iter()
                        .collect()
                };
                if !ui.custom.trim().is_empty() && (q.is_multiple() || on_custom) {
                    answer.push(ui.custom.trim().to_string());
                }
                if answer.is_empty() {
                    return vec![];
                }
                ui.answers.push(answer);
                ui.index += 1;
                ui.cursor = 0;
                ui.checked.clear();
                ui.custom.clear();
                if ui.index < req.questions.len() {
                    return vec![];
                }
                let answers = std::mem::take(&mut ui.answers);
                self.state.questions.retain(|r| r.id != req.id);
                return vec![Action::ReplyQuestion {
                    request_id: req.id.clone(),
                    answers,
                }];
            }
            _ => {}
        }
        vec![]
    }
}
