//! The dialogs: permission (once, always, reject, with a note), question (single, multiple or
//! typed), the pickers and the help window.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use serde_json::Value;

use super::highlight::diff_line;
use super::theme;
use super::wrap::wrap;
use crate::app::{COMMANDS, PERMISSION_CHOICES, PermissionUi, Picker, QuestionUi};
use crate::model::{CommandInfo, PermissionRequest, QuestionRequest};

/// Diff lines a permission dialog previews.
const DIFF_PREVIEW: usize = 8;

/// The lines of the permission dialog.
pub(super) fn permission(
    req: &PermissionRequest,
    ui: &PermissionUi,
    width: usize,
) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(vec![
        Span::styled(
            "△ Permission required: ",
            theme::warn().add_modifier(Modifier::BOLD),
        ),
        Span::styled(req.permission.clone(), theme::bold()),
    ])];
    if !req.patterns.is_empty() {
        let line = Line::from(Span::raw(format!("  {}", req.patterns.join(", "))));
        out.extend(wrap(line, width, &[Span::raw("  ")]));
    }
    let meta = |k: &str| req.metadata.get(k).and_then(Value::as_str);
    // A re-ask after the file changed on disk says so above the fresh diff.
    let reasked = req.metadata.get("changedSinceAsk").is_some();
    if let Some(title) = meta("title").filter(|_| reasked) {
        let line = Line::from(Span::styled(format!("  ! {title}"), theme::warn()));
        out.extend(wrap(line, width, &[Span::raw("    ")]));
    }
    if let Some(diff) = meta("diff").filter(|d| !d.is_empty()) {
        let lines: Vec<&str> = diff
            .lines()
            .filter(|l| !l.starts_with("Index:") && !l.starts_with("==="))
            .collect();
        for l in lines.iter().take(DIFF_PREVIEW) {
            let mut line = diff_line(l);
            line.spans.insert(0, Span::raw("  "));
            out.extend(wrap(line, width, &[Span::raw("  ")]));
        }
        if lines.len() > DIFF_PREVIEW {
            let more = format!("  … {} more lines", lines.len() - DIFF_PREVIEW);
            out.push(Line::from(Span::styled(more, theme::dim())));
        }
    } else if let Some(cmd) = meta("command") {
        out.push(Line::from(Span::styled(
            format!("  $ {cmd}"),
            theme::code(),
        )));
    }
    if req.metadata.get("escapesSandbox") == Some(&Value::Bool(true)) {
        let why = meta("justification").unwrap_or("(none given)");
        let line = Line::from(Span::styled(
            format!("  Runs OUTSIDE the sandbox, with all your access. Reason: {why}"),
            theme::warn(),
        ));
        out.extend(wrap(line, width, &[Span::raw("  ")]));
    }
    out.push(Line::default());
    let mut choices = vec![Span::raw("  ")];
    for (i, (_, label)) in PERMISSION_CHOICES.iter().enumerate() {
        let style = if i == ui.selected {
            theme::selected()
        } else {
            theme::bold()
        };
        let mark = if i == ui.selected { "▸" } else { " " };
        choices.push(Span::styled(format!("{mark}{label} "), style));
        choices.push(Span::raw("  "));
    }
    out.push(Line::from(choices));
    let note = if ui.message.is_empty() {
        Span::styled("type a note for the model (optional)", theme::dim())
    } else {
        Span::raw(format!("{}▏", ui.message))
    };
    out.push(Line::from(vec![
        Span::styled("  Note: ", theme::dim()),
        note,
    ]));
    out.push(Line::from(Span::styled(
        "  ←/→ choose · enter confirm · esc reject",
        theme::dim(),
    )));
    out
}

/// The lines of the question dialog.
pub(super) fn question(req: &QuestionRequest, ui: &QuestionUi, width: usize) -> Vec<Line<'static>> {
    let Some(q) = req.questions.get(ui.index) else {
        return vec![];
    };
    let n = req.questions.len();
    let mut head = vec![Span::styled(
        "? ",
        theme::accent().add_modifier(Modifier::BOLD),
    )];
    if !q.header.is_empty() {
        head.push(Span::styled(format!("{} ", q.header), theme::bold()));
    }
    if n > 1 {
        head.push(Span::styled(
            format!("({}/{n})", ui.index + 1),
            theme::dim(),
        ));
    }
    let mut out = vec![Line::from(head)];
    out.extend(wrap(
        Line::from(format!("  {}", q.question)),
        width,
        &[Span::raw("  ")],
    ));
    out.push(Line::default());
    for (i, o) in q.options.iter().enumerate() {
        let mark = match (q.is_multiple(), ui.checked.get(i).copied().unwrap_or(false)) {
            (true, true) => "[x]",
            (true, false) => "[ ]",
            (false, _) if i == ui.cursor => "(•)",
            (false, _) => "( )",
        };
        let pointer = if i == ui.cursor { "▸ " } else { "  " };
        let style = if i == ui.cursor {
            theme::accent()
        } else {
            ratatui::style::Style::new()
        };
        let mut spans = vec![
            Span::styled(format!("{pointer}{mark} "), style),
            Span::styled(o.label.clone(), style.add_modifier(Modifier::BOLD)),
        ];
        if !o.description.is_empty() {
            spans.push(Span::styled(format!(" — {}", o.description), theme::dim()));
        }
        out.extend(wrap(Line::from(spans), width, &[Span::raw("      ")]));
    }
    if q.allows_custom() {
        let here = ui.cursor == q.options.len();
        let pointer = if here { "▸ " } else { "  " };
        let text = if ui.custom.is_empty() && !here {
            Span::styled("type your own answer", theme::dim())
        } else {
            Span::raw(format!("{}{}", ui.custom, if here { "▏" } else { "" }))
        };
        out.push(Line::from(vec![
            Span::styled(format!("{pointer}✎ "), theme::accent()),
            text,
        ]));
    }
    let hint = if q.is_multiple() {
        "  ↑/↓ move · space check · enter confirm · esc dismiss"
    } else {
        "  ↑/↓ move · enter choose · esc dismiss"
    };
    out.push(Line::from(Span::styled(hint, theme::dim())));
    out
}

/// Draws a picker as a centered window.
pub(super) fn picker(frame: &mut Frame<'_>, p: &Picker) {
    let area = centered(frame.area(), p.items.len() + 2);
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::accent())
        .title(format!(" {} ", p.title));
    let rows = area.height.saturating_sub(2) as usize;
    let first = p.selected.saturating_sub(rows.saturating_sub(1));
    let lines: Vec<Line<'static>> = if p.items.is_empty() {
        vec![Line::from(Span::styled("(none)", theme::dim()))]
    } else {
        p.items
            .iter()
            .enumerate()
            .skip(first)
            .take(rows)
            .map(|(i, (_, label))| {
                let style = if i == p.selected {
                    theme::selected()
                } else {
                    ratatui::style::Style::new()
                };
                Line::from(Span::styled(format!(" {label}"), style))
            })
            .collect()
    };
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// Draws the help window: keys, the TUI's commands, then the server's (MCP prompts) with
/// their arguments.
pub(super) fn help(frame: &mut Frame<'_>, server: &[CommandInfo]) {
    let keys = [
        ("enter", "send"),
        ("shift+enter, alt+enter, ctrl+j", "new line"),
        ("↑/↓", "move, or walk the prompt history"),
        ("tab", "next agent"),
        ("esc", "interrupt the running turn"),
        ("ctrl+o", "unfold tool output and diffs"),
        ("pgup/pgdn", "scroll"),
        ("ctrl+c", "clear the prompt; twice to quit"),
        ("ctrl+d", "quit (on an empty prompt)"),
    ];
    let mut lines: Vec<Line<'static>> = keys
        .iter()
        .map(|(k, v)| {
            Line::from(vec![
                Span::styled(format!(" {k:<32}"), theme::accent()),
                Span::raw(*v),
            ])
        })
        .collect();
    lines.push(Line::default());
    lines.extend(COMMANDS.iter().map(|c| {
        let name = format!("/{}", c.name);
        Line::from(vec![
            Span::styled(format!(" {name:<32}"), theme::accent()),
            Span::raw(c.help),
        ])
    }));
    lines.extend(server.iter().map(|c| {
        let name = format!("/{} {}", c.name, c.hints.join(" "));
        let help = c.description.clone().unwrap_or_else(|| "MCP prompt".into());
        Line::from(vec![
            // At least one space before the help, however long the usage.
            Span::styled(format!(" {:<31} ", name.trim_end()), theme::accent()),
            Span::raw(help),
        ])
    }));
    let area = centered(frame.area(), lines.len() + 2);
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::accent())
        .title(" Help · any key closes ");
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// A window in the middle of `area`, `rows` tall at most.
fn centered(area: Rect, rows: usize) -> Rect {
    let w = area.width.saturating_sub(4).min(76);
    let h = (rows as u16).min(area.height.saturating_sub(2)).max(3);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height.saturating_sub(h)) / 2,
        width: w,
        height: h,
    }
}
