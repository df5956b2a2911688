//! Word wrapping of styled lines to a width in terminal cells, with a prefix repeated on
//! continuation lines (a quote bar, a list indent, a card border).

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// Display width of `s` in cells.
pub(super) fn width(s: &str) -> usize {
    s.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// Width of a line's spans.
pub(super) fn line_width(line: &Line<'_>) -> usize {
    line.spans.iter().map(|s| width(&s.content)).sum()
}

/// Wraps `line` to `max` cells. Continuation lines start with `cont`. Words longer than a line
/// are cut; spaces at a break are dropped.
pub fn wrap(line: Line<'static>, max: usize, cont: &[Span<'static>]) -> Vec<Line<'static>> {
    let max = max.max(1);
    if line_width(&line) <= max {
        return vec![line];
    }
    let cont_w: usize = cont.iter().map(|s| width(&s.content)).sum();
    let cont_w = if cont_w >= max { 0 } else { cont_w };
    let mut out: Vec<Line<'static>> = vec![];
    let mut cur: Vec<Span<'static>> = vec![];
    let mut cur_w = 0usize;
    let style = line.style;
    let finish = |cur: &mut Vec<Span<'static>>, out: &mut Vec<Line<'static>>| {
        // Trailing spaces at a break are not drawn.
        if let Some(last) = cur.last_mut() {
            let trimmed = last.content.trim_end().to_string();
            last.content = trimmed.into();
        }
        out.push(Line::from(std::mem::take(cur)).style(style));
    };
    for span in line.spans {
        for token in tokens(&span.content) {
            let tw = width(token);
            let blank = token.chars().all(char::is_whitespace);
            if cur_w + tw <= max {
                push(&mut cur, token, span.style);
                cur_w += tw;
                continue;
            }
            if blank {
                finish(&mut cur, &mut out);
                cur.extend(
                    cont.iter()
                        .take(if cont_w > 0 { cont.len() } else { 0 })
                        .cloned(),
                );
                cur_w = cont_w;
                continue;
            }
            if tw <= max - cont_w && cur_w > cont_w {
                finish(&mut cur, &mut out);
                if cont_w > 0 {
                    cur.extend(cont.iter().cloned());
                }
                cur_w = cont_w;
                push(&mut cur, token, span.style);
                cur_w += tw;
                continue;
            }
            // A word longer than the room: cut it where the line ends.
            for ch in token.chars() {
                let cw = ch.width().unwrap_or(0);
                if cur_w + cw > max && cur_w > 0 {
                    finish(&mut cur, &mut out);
                    // A wide character that does not fit beside the prefix goes on a line of
                    // its own rather than past the width (fuzzing found quotes overflowing).
                    let indent = cont_w > 0 && cont_w + cw <= max;
                    if indent {
                        cur.extend(cont.iter().cloned());
                    }
                    cur_w = if indent { cont_w } else { 0 };
                }
                let mut buf = [0u8; 4];
                push(&mut cur, ch.encode_utf8(&mut buf), span.style);
                cur_w += cw;
            }
        }
    }
    if !cur.is_empty() {
        finish(&mut cur, &mut out);
    }
    out
}

/// Appends `text` to the last span when it has the same style, else as a new span.
fn push(cur: &mut Vec<Span<'static>>, text: &str, style: ratatui::style::Style) {
    match cur.last_mut() {
        Some(last) if last.style == style => last.content.to_mut().push_str(text),
        _ => cur.push(Span::styled(text.to_string(), style)),
    }
}

/// Splits into runs of spaces and runs of non-spaces.
fn tokens(s: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut start = 0;
    let mut blank = None;
    for (i, c) in s.char_indices() {
        let b = c.is_whitespace();
        if blank.is_some_and(|was| was != b) {
            out.push(&s[start..i]);
            start = i;
        }
        blank = Some(b);
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn words_wrap_with_the_continuation_prefix_and_long_words_are_cut() {
        let l = Line::from("alpha beta gamma delta");
        assert_eq!(
            text(&wrap(l, 11, &[Span::raw("  ")])),
            ["alpha beta", "  gamma", "  delta"]
        );
        let l = Line::from("abcdefghij");
        assert_eq!(text(&wrap(l, 4, &[])), ["abcd", "efgh", "ij"]);
        assert_eq!(width("日本"), 4);
    }

    #[test]
    fn a_wide_character_never_goes_past_the_width_beside_a_prefix() {
        let bar = [Span::raw("▎ ")];
        let l = Line::from(vec![Span::raw("▎ "), Span::raw("日本語")]);
        let lines = text(&wrap(l, 3, &bar));
        assert_eq!(lines, ["▎", "日", "本", "語"]);
        let l = Line::from("ab日本");
        assert_eq!(text(&wrap(l, 3, &bar)), ["ab", "日", "本"]);
        // Only a width narrower than the character itself leaves it wider than the line.
        assert_eq!(text(&wrap(Line::from("日本"), 1, &[])), ["日", "本"]);
    }
}
