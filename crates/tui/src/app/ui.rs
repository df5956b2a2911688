//! What only the terminal knows, grouped by concern: the agent and model chosen, the dialogs
//! and their selections, the viewport over the conversation, and the status (notice, quit
//! arming, spinner). Plain values that [`App`](super::App)'s update code changes and the view
//! reads.

use crate::model::{CommandInfo, ModelChoice, QuestionRequest};

/// A list to pick from (sessions, models, agents).
#[derive(Debug, Clone, PartialEq)]
pub struct Picker {
    pub kind: PickerKind,
    pub title: String,
    /// (id, label) pairs.
    pub items: Vec<(String, String)>,
    pub selected: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickerKind {
    Session,
    Model,
    Agent,
}

/// A window over the conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    Help,
    Picker(Picker),
}

/// The permission dialog's choice and note.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct PermissionUi {
    pub selected: usize,
    pub message: String,
}

/// The question dialog: which question, the highlighted row, the checked options and the
/// typed answer; answers given so far.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct QuestionUi {
    pub request_id: String,
    pub index: usize,
    pub cursor: usize,
    pub checked: Vec<bool>,
    pub custom: String,
    pub answers: Vec<Vec<String>>,
}

impl QuestionUi {
    /// Follows the question on screen: a new request starts the dialog afresh, and the
    /// checkboxes match the current question's options.
    pub fn sync(&mut self, req: Option<&QuestionRequest>) {
        let Some(req) = req else {
            return;
        };
        if self.request_id != req.id {
            *self = QuestionUi {
                request_id: req.id.clone(),
                ..Default::default()
            };
        }
        let n = req.questions.get(self.index).map_or(0, |q| q.options.len());
        self.checked.resize(n, false);
    }
}

/// The agent and model prompts go to.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Chooser {
    /// Primary agents, in the server's order.
    pub agents: Vec<String>,
    /// Index into `agents`.
    pub agent: usize,
    pub models: Vec<ModelChoice>,
    pub model: Option<ModelChoice>,
    /// The server's commands (its MCP servers' prompts), run as `/name args`.
    pub commands: Vec<CommandInfo>,
}

impl Chooser {
    /// The agent prompts are sent to.
    pub fn agent(&self) -> &str {
        self.agents.get(self.agent).map_or("build", String::as_str)
    }
}

/// What is open over or below the conversation.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Dialogs {
    pub overlay: Option<Overlay>,
    pub permission: PermissionUi,
    pub question: QuestionUi,
}

/// The window over the conversation.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Viewport {
    /// Lines scrolled up from the bottom of the conversation.
    pub scroll: usize,
    /// Tool cards show their output and diffs.
    pub expanded: bool,
    /// Height of the conversation area at the last frame (for page up/down).
    pub page: usize,
    /// The farthest the conversation scrolled up at the last frame (its loaded top).
    pub max_scroll: Option<usize>,
}

/// What a frame measured, told back to the app by the runtime after each draw.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Drawn {
    /// Rows of the conversation area.
    pub page: usize,
    /// The farthest the conversation scrolls up; `None` when no conversation was drawn.
    pub max_scroll: Option<usize>,
}

impl Viewport {
    /// Takes in what the last frame measured: the page height, and the scroll held within
    /// the conversation so page down starts from what is on screen.
    pub fn drawn(&mut self, drawn: Drawn) {
        self.page = drawn.page;
        self.max_scroll = drawn.max_scroll;
        if let Some(max) = drawn.max_scroll {
            self.scroll = self.scroll.min(max);
        }
    }

    /// Scrolls half a page up (towards older lines).
    pub fn page_up(&mut self) {
        self.scroll += self.page.max(2) / 2;
    }

    /// Scrolls half a page down (towards the end).
    pub fn page_down(&mut self) {
        self.scroll = self.scroll.saturating_sub(self.page.max(2) / 2);
    }
}

/// The status around the prompt.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Status {
    /// A one-line notice shown above the prompt until the next key.
    pub notice: Option<String>,
    /// The first Ctrl+C was pressed.
    pub quit_armed: bool,
    /// Frame counter for the busy spinner.
    pub spinner: usize,
    /// The tool counts `/tools` last fetched; shown while their session is open.
    pub tools: Option<ToolCounts>,
}

/// How many of a session's tools are sent with their schemas and how many are deferred.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ToolCounts {
    pub session_id: String,
    pub loaded: usize,
    pub deferred: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{QuestionInfo, QuestionOption};

    fn request(id: &str, options: usize) -> QuestionRequest {
        let option = QuestionOption {
            label: "A".into(),
            ..Default::default()
        };
        QuestionRequest {
            id: id.into(),
            questions: vec![QuestionInfo {
                options: vec![option; options],
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn a_new_question_starts_the_dialog_afresh() {
        let mut ui = QuestionUi {
            request_id: "que_1".into(),
            cursor: 2,
            custom: "typed".into(),
            ..Default::default()
        };
        ui.sync(Some(&request("que_1", 3)));
        assert_eq!(
            (ui.cursor, ui.custom.as_str()),
            (2, "typed"),
            "same question"
        );
        assert_eq!(ui.checked, vec![false; 3]);
        ui.sync(Some(&request("que_2", 2)));
        assert_eq!(
            ui,
            QuestionUi {
                request_id: "que_2".into(),
                checked: vec![false; 2],
                ..Default::default()
            }
        );
        ui.sync(None);
        assert_eq!(ui.request_id, "que_2", "no question: nothing to follow");
    }

    #[test]
    fn the_viewport_takes_the_page_and_holds_the_scroll() {
        let mut v = Viewport {
            scroll: 50,
            ..Default::default()
        };
        v.drawn(Drawn {
            page: 20,
            max_scroll: None,
        });
        assert_eq!((v.page, v.scroll), (20, 50), "nothing drawn to hold it to");
        v.drawn(Drawn {
            page: 20,
            max_scroll: Some(30),
        });
        assert_eq!(v.scroll, 30);
        v.page_up();
        assert_eq!(v.scroll, 40);
        v.page_down();
        v.page_down();
        assert_eq!(v.scroll, 20);
    }
}
