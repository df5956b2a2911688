//! The TUI's markdown renderer: no panic for any text and width, every line fits the width
//! (but for a line of one character wider than the whole width), and the letters of the text
//! survive.
//!
//! The letters property, stated exactly: for text made only of the characters in [`ALPHABET`]
//! (ASCII letters, blanks and the markup characters of emphasis, code, headings, quotes, lists,
//! tables and rules, but none that start a link, an image, HTML, an entity or an escape, which
//! legitimately hide or replace text), the ASCII letters of the rendered lines, read in order
//! and compared without case (a task box `[X]` is drawn `[x]`), are the letters of the text.

use strata_tui::view::markdown as render;
use unicode_width::UnicodeWidthChar;

/// What the letters property's text is made of.
pub const ALPHABET: &[char] = &[
    'a', 'b', 'c', 'X', 'Y', ' ', ' ', ' ', '\n', '\n', '\t', '*', '_', '`', '#', '>', '-', '+',
    '=', '~', '|', '[', ']', '.', '日',
];

/// Display width in cells, as the renderer counts it.
pub fn width(s: &str) -> usize {
    s.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// The ASCII letters of `s`, lowercased, in order.
pub fn letters(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphabetic)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The input's width and text: the first byte is the width (1 to 128); when the second is
/// odd the rest is mapped onto [`ALPHABET`] (and the letters property applies), otherwise it
/// is read as UTF-8.
pub fn input(data: &[u8]) -> (usize, String, bool) {
    let w = data.first().map_or(80, |b| *b as usize % 128 + 1);
    let mapped = data.get(1).is_some_and(|b| b % 2 == 1);
    let rest = data.get(2..).unwrap_or_default();
    let text = if mapped {
        rest.iter()
            .map(|b| ALPHABET[*b as usize % ALPHABET.len()])
            .collect()
    } else {
        String::from_utf8_lossy(rest).into_owned()
    };
    (w, text, mapped)
}

/// Renders and checks the properties.
pub fn check(data: &[u8]) {
    let (w, text, mapped) = input(data);
    let lines: Vec<String> = render(&text, w).iter().map(|l| l.to_string()).collect();
    for line in &lines {
        // The one exception: a single character wider than the whole width.
        let visible = line.chars().filter(|c| c.width().unwrap_or(0) > 0).count();
        assert!(
            width(line) <= w || visible == 1,
            "{line:?} is wider than {w}: {lines:#?}"
        );
    }
    if mapped {
        assert_eq!(letters(&lines.join("\n")), letters(&text), "{lines:#?}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_are_ascii_and_caseless() {
        assert_eq!(letters("A b·日X"), "abx");
    }

    #[test]
    fn the_input_maps_onto_the_alphabet_when_asked() {
        let (w, text, mapped) = input(&[79, 1, 0, 3]);
        assert_eq!((w, text.as_str(), mapped), (80, "aX", true));
        let (_, text, mapped) = input(&[0, 2, b'#', b' ', b'h']);
        assert_eq!((text.as_str(), mapped), ("# h", false));
    }

    #[test]
    fn a_small_document_keeps_its_letters() {
        let mut data = vec![20, 1];
        data.extend(b"\x0e\x01\x00\x05\x02\x05\x16\x00\x16"); // "# ab c\t.a."
        check(&data);
    }
}
