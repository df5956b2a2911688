//! The few styles every view shares, so the palette is decided in one place.

use ratatui::style::{Color, Modifier, Style};

pub(super) fn dim() -> Style {
    Style::new().fg(Color::DarkGray)
}

pub(super) fn code() -> Style {
    Style::new().fg(Color::Gray)
}

pub(super) fn comment() -> Style {
    Style::new()
        .fg(Color::DarkGray)
        .add_modifier(Modifier::ITALIC)
}

pub(super) fn accent() -> Style {
    Style::new().fg(Color::Cyan)
}

pub(super) fn bold() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}

pub(super) fn error() -> Style {
    Style::new().fg(Color::Red)
}

pub(super) fn ok() -> Style {
    Style::new().fg(Color::Green)
}

pub(super) fn warn() -> Style {
    Style::new().fg(Color::Yellow)
}

pub(super) fn user_bar() -> Style {
    Style::new().fg(Color::Blue)
}

pub(super) fn selected() -> Style {
    Style::new().fg(Color::Black).bg(Color::Cyan)
}
