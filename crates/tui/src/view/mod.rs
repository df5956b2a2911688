//! Drawing the [`App`]: header, conversation, todo list, notice, the dialog or prompt, and the
//! status bar, top to bottom. The view only reads the app; what it keeps between frames (the
//! layout cache, what the last frame measured) is the runtime's [`ViewState`].

mod dialog;
mod highlight;
mod list;
mod markdown;
mod message;
mod theme;
mod wrap;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::app::{App, Drawn, Overlay, QuestionUi};
use crate::model::Busy;
use crate::state::Connection;

pub use highlight::highlight;
pub use list::LayoutCache;
pub use markdown::render as markdown;
pub use wrap::wrap;

/// Most rows the prompt grows to before it scrolls.
const MAX_INPUT_ROWS: usize = 8;
/// Most todo rows shown.
const MAX_TODOS: usize = 8;
const SPINNER: [&str; 4] = ["◐", "◓", "◑", "◒"];

/// What the view keeps from one frame to the next; owned by the runtime beside the [`App`].
#[derive(Debug, Default)]
pub struct ViewState {
    /// Laid-out lines per message.
    pub cache: LayoutCache,
    /// Rows of the conversation area at the last frame.
    pub page: usize,
    /// How far the conversation scrolled up at most at the last frame; `None` when none
    /// was drawn.
    pub max_scroll: Option<usize>,
}

impl ViewState {
    /// What the last frame measured, for [`App::on_drawn`].
    pub fn drawn(&self) -> Drawn {
        Drawn {
            page: self.page,
            max_scroll: self.max_scroll,
        }
    }
}

/// Draws the whole screen from `app`; only `view` changes.
pub fn draw(frame: &mut Frame<'_>, app: &App, view: &mut ViewState) {
    let area = frame.area();
    let width = area.width as usize;
    let bottom = bottom_lines(app, width);
    let todos = todo_lines(app);
    let todo_h = if todos.is_empty() { 0 } else { todos.len() + 2 };
    let notice = notice_line(app);
    let [header, body, todo, note, dialog, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(todo_h as u16),
        Constraint::Length(u16::from(notice.is_some())),
        Constraint::Length(bottom.height() as u16),
        Constraint::Length(1),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(header_line(app)), header);
    view.page = body.height as usize;
    view.max_scroll = match &app.state.session {
        Some(s) if !s.messages.is_empty() => Some(list::draw(
            frame.buffer_mut(),
            body,
            s,
            &mut view.cache,
            app.viewport.expanded,
            app.viewport.scroll,
        )),
        _ => {
            frame.render_widget(Paragraph::new(welcome(body)), body);
            None
        }
    };
    if !todos.is_empty() {
        let block = Block::default()
            .borders(Borders::TOP | Borders::BOTTOM)
            .border_style(theme::dim())
            .title(Span::styled(" Todos ", theme::bold()));
        frame.render_widget(Paragraph::new(todos).block(block), todo);
    }
    if let Some(n) = notice {
        frame.render_widget(Paragraph::new(n), note);
    }
    match bottom {
        Bottom::Dialog(lines) => {
            let block = Block::default()
                .borders(Borders::TOP)
                .border_style(theme::warn());
            frame.render_widget(Paragraph::new(lines).block(block), dialog);
        }
        Bottom::Prompt(lines, cursor) => {
            frame.render_widget(Paragraph::new(lines), dialog);
            if app.dialogs.overlay.is_none() {
                frame.set_cursor_position(Position::new(
                    dialog.x + cursor.0 as u16,
                    dialog.y + cursor.1 as u16,
                ));
            }
        }
    }
    frame.render_widget(Paragraph::new(status_line(app, width)), status);
    match &app.dialogs.overlay {
        Some(Overlay::Help) => dialog::help(frame, &app.chooser.commands),
        Some(Overlay::Picker(p)) => dialog::picker(frame, p),
        None => {}
    }
}

/// What the bottom area holds: a dialog, or the prompt with its cursor (column, row).
enum Bottom {
    Dialog(Vec<Line<'static>>),
    Prompt(Vec<Line<'static>>, (usize, usize)),
}

impl Bottom {
    fn height(&self) -> usize {
        match self {
            Bottom::Dialog(l) => l.len() + 1,
            Bottom::Prompt(l, _) => l.len(),
        }
    }
}

fn bottom_lines(app: &App, width: usize) -> Bottom {
    if let Some(req) = app.state.permission() {
        return Bottom::Dialog(dialog::permission(req, &app.dialogs.permission, width));
    }
    if let Some(req) = app.state.question() {
        // The app resets the dialog when a question comes up; until it has seen this one
        // (its state changed directly), the dialog shows as fresh.
        let fresh = QuestionUi::default();
        let ui = &app.dialogs.question;
        let ui = if ui.request_id == req.id { ui } else { &fresh };
        return Bottom::Dialog(dialog::question(req, ui, width));
    }
    prompt_lines(app, width)
}

/// The prompt behind its bar, wrapped by characters so the cursor can be placed exactly.
fn prompt_lines(app: &App, width: usize) -> Bottom {
    let bar = Span::styled("┃ ", theme::accent());
    let room = width.saturating_sub(2).max(1);
    let mut rows: Vec<String> = vec![];
    let mut cursor = (2, 0);
    let (cline, ccol) = app.input.cursor_pos();
    for (i, line) in app.input.text().split('\n').enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let chunks = chars.len().div_ceil(room).max(1);
        if i == cline {
            let r = (ccol / room).min(chunks);
            cursor = (2 + ccol - r * room, rows.len() + r);
            if ccol == chunks * room && ccol > 0 {
                rows.push(String::new());
            }
        }
        for c in 0..chunks {
            rows.push(
                chars[c * room..((c + 1) * room).min(chars.len())]
                    .iter()
                    .collect(),
            );
        }
    }
    // Keep the cursor's row in view when the prompt is taller than the box.
    let first = (cursor.1 + 1).saturating_sub(MAX_INPUT_ROWS);
    cursor.1 -= first;
    let mut lines: Vec<Line<'static>> = if app.input.is_empty() {
        vec![Line::from(vec![
            bar.clone(),
            Span::styled("Ask anything… (/help for keys and commands)", theme::dim()),
        ])]
    } else {
        rows.into_iter()
            .skip(first)
            .take(MAX_INPUT_ROWS)
            .map(|r| Line::from(vec![bar.clone(), Span::raw(r)]))
            .collect()
    };
    lines.insert(0, Line::from(bar.clone()));
    cursor.1 += 1;
    let model = app
        .chooser
        .model
        .as_ref()
        .map(|m| m.label())
        .unwrap_or_default();
    lines.push(Line::from(vec![
        bar,
        Span::styled(capitalize(app.agent()), theme::accent()),
        Span::styled(format!(" · {model}"), theme::dim()),
    ]));
    Bottom::Prompt(lines, cursor)
}

fn header_line(app: &App) -> Line<'static> {
    let mut spans = match &app.state.session {
        Some(s) => vec![
            Span::styled(
                format!(
                    " {}",
                    if s.info.title.is_empty() {
                        "Untitled"
                    } else {
                        &s.info.title
                    }
                ),
                theme::bold(),
            ),
            Span::styled(format!("  {}", s.info.id), theme::dim()),
        ],
        None => vec![Span::styled(" New session", theme::bold())],
    };
    match app.state.connection {
        Connection::Connected => {}
        Connection::Connecting => spans.push(Span::styled("  connecting…", theme::warn())),
        Connection::Reconnecting { attempt } => spans.push(Span::styled(
            format!("  reconnecting (attempt {attempt})…"),
            theme::warn(),
        )),
    }
    Line::from(spans)
}

fn welcome(area: Rect) -> Vec<Line<'static>> {
    let mut lines = vec![Line::default(); (area.height as usize).saturating_sub(4) / 2];
    let center = |s: &str| format!("{:^w$}", s, w = area.width as usize);
    lines.push(Line::from(Span::styled(
        center("S T R A T A"),
        theme::bold(),
    )));
    lines.push(Line::default());
    lines.push(Line::from(Span::styled(
        center("enter send · tab agent · /help keys and commands"),
        theme::dim(),
    )));
    lines
}

fn todo_lines(app: &App) -> Vec<Line<'static>> {
    let Some(s) = &app.state.session else {
        return vec![];
    };
    if s.todos
        .iter()
        .all(|t| t.status == "completed" || t.status == "cancelled")
    {
        return vec![];
    }
    s.todos
        .iter()
        .take(MAX_TODOS)
        .map(|t| {
            let (icon, style) = match t.status.as_str() {
                "completed" => ("✓", theme::ok()),
                "in_progress" => ("◐", theme::warn()),
                "cancelled" => ("✗", theme::dim()),
                _ => ("○", theme::dim()),
            };
            let text = match t.status.as_str() {
                "completed" | "cancelled" => Span::styled(t.content.clone(), theme::dim()),
                "in_progress" => Span::styled(t.content.clone(), theme::bold()),
                _ => Span::raw(t.content.clone()),
            };
            Line::from(vec![Span::styled(format!(" {icon} "), style), text])
        })
        .collect()
}

fn notice_line(app: &App) -> Option<Line<'static>> {
    if let Some(e) = &app.state.error {
        return Some(Line::from(Span::styled(format!(" ✗ {e}"), theme::error())));
    }
    app.status
        .notice
        .as_ref()
        .map(|n| Line::from(Span::styled(format!(" {n}"), theme::warn())))
}

fn status_line(app: &App, width: usize) -> Line<'static> {
    let busy = match app.state.busy() {
        Busy::Idle => Span::styled(" idle", theme::dim()),
        Busy::Busy => Span::styled(
            format!(
                " {} working · esc to interrupt",
                SPINNER[app.status.spinner % SPINNER.len()]
            ),
            theme::warn(),
        ),
        Busy::Retry { attempt, message } => {
            Span::styled(format!(" retrying ({attempt}): {message}"), theme::error())
        }
    };
    let (tokens, last, cost) = app.state.session.as_ref().map_or((0, None, 0.0), |s| {
        (s.context_tokens(), s.last_step_tokens(), s.cost())
    });
    let sandbox = app
        .state
        .session
        .as_ref()
        .and_then(|s| s.info.sandbox())
        .map(|mode| format!("sandbox {mode} · "))
        .unwrap_or_default();
    let background = app
        .state
        .session
        .as_ref()
        .map(|s| crate::state::background::status_note(&s.messages))
        .unwrap_or_default();
    let tools = (app.status.tools.as_ref())
        .filter(|t| app.state.session_id() == Some(t.session_id.as_str()))
        .map(|t| format!("tools {} loaded · {} deferred · ", t.loaded, t.deferred))
        .unwrap_or_default();
    let right = format!(
        "{background}{tools}{sandbox}{} tokens{} · ${cost:.2} ",
        compact(tokens),
        last.map(cache_note).unwrap_or_default()
    );
    let used = wrap::width(&busy.content) + right.chars().count();
    let pad = " ".repeat(width.saturating_sub(used));
    Line::from(vec![
        busy,
        Span::raw(pad),
        Span::styled(right, theme::dim()),
    ])
}

/// ` (9.8k cached, 1.2k written)`: how much of the last step's input the prompt cache served
/// and how much it stored; empty when the step used no cache.
fn cache_note(t: strata_protocol::Tokens) -> String {
    if t.cache.read + t.cache.write == 0 {
        return String::new();
    }
    format!(
        " ({} cached, {} written)",
        compact(t.cache.read),
        compact(t.cache.write)
    )
}

/// 1234 → `1.2k`.
fn compact(n: u64) -> String {
    match n {
        0..1000 => n.to_string(),
        1000..1_000_000 => format!("{:.1}k", n as f64 / 1000.0),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
