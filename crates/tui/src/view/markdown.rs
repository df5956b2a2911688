//! Markdown to styled, wrapped lines: headings, emphasis, inline code, lists, quotes, rules,
//! links, tables (one row per line) and fenced code blocks with syntax highlighting.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::highlight::highlight;
use super::theme;
use super::wrap::wrap;

/// Renders `text` to lines at most `width` cells wide.
pub fn render(text: &str, width: usize) -> Vec<Line<'static>> {
    let mut r = Renderer {
        width,
        ..Default::default()
    };
    let opts = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS;
    for event in Parser::new_ext(text, opts) {
        r.event(event);
    }
    r.flush();
    while r.lines.last().is_some_and(|l| l.spans.is_empty()) {
        r.lines.pop();
    }
    r.lines
}

#[derive(Debug, Default)]
struct Renderer {
    width: usize,
    lines: Vec<Line<'static>>,
    cur: Vec<Span<'static>>,
    styles: Vec<Style>,
    /// Indents of the open lists and quotes, outermost first.
    prefix: Vec<Span<'static>>,
    /// The marker of a list item whose first line is not out yet.
    marker: Option<String>,
    lists: Vec<Option<u64>>,
    code: Option<(String, String)>,
    link: Option<String>,
}

impl Renderer {
    fn style(&self) -> Style {
        self.styles.iter().fold(Style::new(), |a, s| a.patch(*s))
    }

    fn text(&mut self, t: &str) {
        let style = self.style();
        self.cur.push(Span::styled(t.to_string(), style));
    }

    /// Ends the current line, wrapping it under the open indents.
    fn flush(&mut self) {
        if self.cur.is_empty() && self.marker.is_none() {
            return;
        }
        let mut first = self.prefix.clone();
        if let Some(m) = self.marker.take() {
            // The marker takes the place of the item's own indent on its first line.
            first.pop();
            first.push(Span::styled(m, theme::accent()));
        }
        first.append(&mut self.cur);
        let cont = self.prefix.clone();
        self.lines
            .extend(wrap(Line::from(first), self.width, &cont));
    }

    /// A blank line between blocks, never two.
    fn gap(&mut self) {
        self.flush();
        if self.lines.last().is_some_and(|l| !l.spans.is_empty()) {
            self.lines.push(Line::default());
        }
    }

    fn event(&mut self, event: Event<'_>) {
        if let Some((_, code)) = self.code.as_mut() {
            match event {
                Event::Text(t) => return code.push_str(&t),
                Event::End(TagEnd::CodeBlock) => return self.code_block(),
                _ => return,
            }
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => self
                .cur
                .push(Span::styled(t.to_string(), Style::new().fg(Color::Yellow))),
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => self.flush(),
            Event::Rule => {
                self.gap();
                let rule = "─".repeat(self.width.min(40));
                self.lines
                    .push(Line::from(Span::styled(rule, theme::dim())));
                self.lines.push(Line::default());
            }
            Event::TaskListMarker(done) => self.text(if done { "[x] " } else { "[ ] " }),
            Event::Html(t) | Event::InlineHtml(t) => self.text(t.trim_end_matches('\n')),
            Event::FootnoteReference(t) => self.text(&format!("[{t}]")),
            Event::InlineMath(t) | Event::DisplayMath(t) => self.text(&t),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => {}
            Tag::Heading { level, .. } => {
                self.gap();
                let color = if level == HeadingLevel::H1 {
                    Color::Cyan
                } else {
                    Color::Blue
                };
                self.styles
                    .push(Style::new().fg(color).add_modifier(Modifier::BOLD));
            }
            Tag::BlockQuote(_) => {
                self.gap();
                self.prefix.push(Span::styled("▎ ", theme::dim()));
                self.styles
                    .push(theme::dim().add_modifier(Modifier::ITALIC));
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((lang, String::new()));
            }
            Tag::List(start) => {
                if self.lists.is_empty() {
                    self.gap();
                } else {
                    self.flush();
                }
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        *n += 1;
                        format!("{}. ", *n - 1)
                    }
                    _ => "• ".to_string(),
                };
                self.prefix
                    .push(Span::raw(" ".repeat(marker.chars().count())));
                self.marker = Some(marker);
            }
            Tag::Emphasis => self
                .styles
                .push(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.styles.push(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self
                .styles
                .push(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { dest_url, .. } => {
                self.link = Some(dest_url.to_string());
                self.styles.push(
                    Style::new()
                        .fg(Color::Blue)
                        .add_modifier(Modifier::UNDERLINED),
                );
            }
            Tag::Table(_) => self.gap(),
            Tag::TableHead => self.styles.push(theme::bold()),
            Tag::TableCell if !self.cur.is_empty() => {
                self.cur.push(Span::styled(" │ ", theme::dim()))
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => self.gap(),
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.gap();
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.prefix.pop();
                self.styles.pop();
                self.gap();
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                if self.lists.is_empty() {
                    self.gap();
                }
            }
            TagEnd::Item => {
                self.flush();
                self.prefix.pop();
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Link => {
                self.styles.pop();
                if let Some(url) = self.link.take() {
                    let shown: String = self.cur.iter().map(|s| s.content.as_ref()).collect();
                    if !shown.ends_with(&url) {
                        self.cur
                            .push(Span::styled(format!(" ({url})"), theme::dim()));
                    }
                }
            }
            TagEnd::TableHead => {
                self.styles.pop();
                self.flush();
            }
            TagEnd::TableRow => self.flush(),
            TagEnd::Table => self.gap(),
            _ => {}
        }
    }

    fn code_block(&mut self) {
        let Some((lang, code)) = self.code.take() else {
            return;
        };
        let bar = Span::styled("│ ", theme::dim());
        let mut cont = self.prefix.clone();
        cont.push(bar.clone());
        if !lang.is_empty() {
            let mut head = self.prefix.clone();
            head.push(Span::styled(format!("╭ {lang}"), theme::dim()));
            // A long info string wraps like any line (fuzzing found it overflowing).
            self.lines
                .extend(wrap(Line::from(head), self.width, &self.prefix));
        }
        for line in highlight(&lang, &code) {
            let mut spans = cont.clone();
            spans.extend(line.spans);
            self.lines
                .extend(wrap(Line::from(spans), self.width, &cont));
        }
        self.lines.push(Line::default());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(md: &str, width: usize) -> Vec<String> {
        render(md, width).iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn blocks_render_as_readable_lines() {
        let md = "# Title\n\nSome *text* with `code`.\n\n- one\n- two long item here\n\n1. first\n\n> quoted\n\n```rust\nfn main() {}\n```\n";
        assert_eq!(
            text(md, 12),
            [
                "Title",
                "",
                "Some text",
                "with code.",
                "",
                "• one",
                "• two long",
                "  item here",
                "",
                "1. first",
                "",
                "▎ quoted",
                "",
                "╭ rust",
                "│ fn main()",
                "│ {}",
            ]
        );
    }

    #[test]
    fn a_long_code_block_language_wraps_to_the_width() {
        let lines = text("> ```a-very-long-language-name\n> x\n> ```\n", 8);
        assert!(
            lines.iter().all(|l| super::super::wrap::width(l) <= 8),
            "{lines:?}"
        );
        let joined = lines.concat().replace("▎ ", "");
        assert!(joined.contains("╭ a-very-long-language-name"), "{lines:?}");
    }
}
