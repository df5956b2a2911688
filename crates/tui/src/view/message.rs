//! One message laid out as lines: the user's prompt behind a bar, the assistant's text as
//! markdown, its reasoning dimmed, and a card per tool call.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use strata_protocol::{ToolPart, ToolState};

use super::wrap::wrap;
use super::{markdown, theme};
use crate::model::{PartKind, tool_title};
use crate::state::MessageView;

/// Tool output lines shown when cards are expanded; the rest are counted.
const MAX_BODY: usize = 40;

/// Lays out `message` at `width`; `expanded` unfolds tool output and diffs.
pub(super) fn lines(message: &MessageView, width: usize, expanded: bool) -> Vec<Line<'static>> {
    let mut out = vec![Line::default()];
    if message.info.is_user() {
        let bar = Span::styled("┃ ", theme::user_bar());
        out.push(Line::from(bar.clone()));
        for part in &message.parts {
            if let PartKind::Text(t) = &part.kind {
                for l in t.text.lines() {
                    let line = Line::from(vec![bar.clone(), Span::raw(l.to_string())]);
                    out.extend(wrap(line, width, std::slice::from_ref(&bar)));
                }
            }
        }
        out.push(Line::from(bar));
        return out;
    }
    let body = width.saturating_sub(2).max(10);
    let indent = Span::raw("  ");
    let mut first = true;
    for part in &message.parts {
        let mut block: Vec<Line<'static>> = match &part.kind {
            PartKind::Text(t) if !t.text.trim().is_empty() => markdown::render(&t.text, body),
            PartKind::Reasoning(t) if !t.trim().is_empty() => {
                let style = theme::dim().add_modifier(Modifier::ITALIC);
                let line = Line::from(Span::styled(format!("Thinking: {}", t.trim()), style));
                wrap(line, body, &[])
            }
            PartKind::Tool(tool) => card(tool, body, expanded),
            _ => continue,
        };
        if !first {
            block.insert(0, Line::default());
        }
        first = false;
        out.extend(block.into_iter().map(|mut l| {
            l.spans.insert(0, indent.clone());
            l
        }));
    }
    if let Some(err) = &message.info.error {
        let line = Line::from(vec![
            Span::raw("  "),
            Span::styled(format!("✗ {}", err.text()), theme::error()),
        ]);
        out.extend(wrap(line, width, &[Span::raw("    ")]));
    } else if message.info.finish.as_deref() == Some("stop") {
        let label = format!("  ▣ {} · {}", message.info.agent, message.info.model_id);
        out.push(Line::default());
        out.push(Line::from(Span::styled(label, theme::dim())));
    }
    out
}

/// The icon and color of a call's status.
pub(super) fn status_icon(state: &ToolState) -> (&'static str, Style) {
    match state {
        ToolState::Pending(_) => ("○", theme::dim()),
        ToolState::Running(_) => ("◐", theme::warn()),
        ToolState::Completed(_) => ("✓", theme::ok()),
        ToolState::Error(_) => ("✗", theme::error()),
    }
}

/// A tool card: `icon tool  title`, then folded or unfolded output, and the error if any.
fn card(tool: &ToolPart, width: usize, expanded: bool) -> Vec<Line<'static>> {
    let (icon, style) = status_icon(&tool.state);
    let mut head = vec![
        Span::styled(format!("{icon} "), style),
        Span::styled(tool.tool.clone(), theme::bold()),
        Span::raw("  "),
        Span::raw(tool_title(tool)),
    ];
    let body = body(tool);
    if !expanded && !body.is_empty() {
        let n = body.len();
        head.push(Span::styled(
            format!(
                "  ({n} line{}, ctrl+o to expand)",
                if n == 1 { "" } else { "s" }
            ),
            theme::dim(),
        ));
    }
    let rail = Span::styled("│ ", theme::dim());
    let mut out = wrap(Line::from(head), width, &[Span::raw("  ")]);
    if let Some(err) = tool.state.error() {
        for l in err.lines().take(if expanded { MAX_BODY } else { 3 }) {
            let line = Line::from(vec![
                rail.clone(),
                Span::styled(l.to_string(), theme::error()),
            ]);
            out.extend(wrap(line, width, std::slice::from_ref(&rail)));
        }
    }
    if expanded {
        let n = body.len();
        for l in body.into_iter().take(MAX_BODY) {
            let mut spans = vec![rail.clone()];
            spans.extend(l.spans);
            out.extend(wrap(Line::from(spans), width, std::slice::from_ref(&rail)));
        }
        if n > MAX_BODY {
            let more = format!("… {} more lines", n - MAX_BODY);
            out.push(Line::from(vec![rail, Span::styled(more, theme::dim())]));
        }
    }
    out
}

/// What a card unfolds to: the diff of an edit, else the output (or live output while running).
fn body(tool: &ToolPart) -> Vec<Line<'static>> {
    let meta = tool.state.metadata();
    let text = |k: &str| meta.and_then(|m| m.get(k)).and_then(Value::as_str);
    if let Some(diff) = text("diff").filter(|d| !d.is_empty()) {
        return diff.lines().map(super::highlight::diff_line).collect();
    }
    let output = match &tool.state {
        ToolState::Completed(c) => c.output.as_str(),
        ToolState::Running(_) => text("output").unwrap_or_default(),
        _ => "",
    };
    output
        .lines()
        .map(|l| Line::from(Span::styled(l.to_string(), theme::code())))
        .collect()
}
