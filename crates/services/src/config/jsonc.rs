//! JSON with comments: every config file may hold `//` and `/* */` comments and trailing
//! commas, as opencode's files do. [`strip`] turns such text into plain JSON of the very same
//! byte length, with every newline where it was, so a syntax error found in the result points
//! at the line and column of the text the user wrote.

/// Replaces comments and trailing commas with spaces (newlines inside block comments are kept).
/// Text inside strings is left alone, escaped quotes included. An unterminated block comment
/// is blanked to the end, which the JSON parser then reports.
pub fn strip(text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    blank_comments(&mut bytes);
    blank_trailing_commas(&mut bytes);
    // Only ASCII bytes were replaced, by ASCII spaces, and only whole comments (whose
    // multi-byte characters were blanked byte by byte), so the result stays UTF-8; the lossy
    // conversion never has anything to replace.
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Where the scanner is: in plain JSON, a string, or a comment.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Code,
    Str { escaped: bool },
    Line,
    Block,
}

fn blank_comments(bytes: &mut [u8]) {
    let mut state = State::Code;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        state = match state {
            State::Code => match (b, next) {
                (b'"', _) => State::Str { escaped: false },
                (b'/', Some(b'/')) => {
                    bytes[i] = b' ';
                    bytes[i + 1] = b' ';
                    i += 1;
                    State::Line
                }
                (b'/', Some(b'*')) => {
                    bytes[i] = b' ';
                    bytes[i + 1] = b' ';
                    i += 1;
                    State::Block
                }
                _ => State::Code,
            },
            State::Str { escaped: true } => State::Str { escaped: false },
            State::Str { escaped: false } => match b {
                b'\\' => State::Str { escaped: true },
                b'"' => State::Code,
                _ => State::Str { escaped: false },
            },
            State::Line => match b {
                b'\n' | b'\r' => State::Code,
                _ => {
                    bytes[i] = b' ';
                    State::Line
                }
            },
            State::Block => match (b, next) {
                (b'*', Some(b'/')) => {
                    bytes[i] = b' ';
                    bytes[i + 1] = b' ';
                    i += 1;
                    State::Code
                }
                (b'\n' | b'\r', _) => State::Block,
                _ => {
                    bytes[i] = b' ';
                    State::Block
                }
            },
        };
        i += 1;
    }
}

/// Blanks a comma that only whitespace separates from the `}` or `]` after it. Runs after
/// [`blank_comments`], so comments between the two are whitespace by then.
fn blank_trailing_commas(bytes: &mut [u8]) {
    let mut in_string = false;
    let mut escaped = false;
    for i in 0..bytes.len() {
        let b = bytes[i];
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b',' => {
                let after = bytes[i + 1..].iter().find(|c| !c.is_ascii_whitespace());
                if matches!(after, Some(b'}' | b']')) {
                    bytes[i] = b' ';
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::strip;

    fn parse(text: &str) -> Value {
        serde_json::from_str(&strip(text)).unwrap()
    }

    #[test]
    fn comments_of_both_kinds_are_removed() {
        let text = "// head\n{\n  \"a\": 1, // one\n  /* two\n  lines */ \"b\": [2 /* x */]\n}\n";
        assert_eq!(parse(text), json!({"a": 1, "b": [2]}));
    }

    #[test]
    fn strings_keep_slashes_stars_and_escaped_quotes() {
        let text = r#"{"url": "http://h/a//b", "glob": "src/**/*.rs", "q": "say \"//hi\" /*", "e": "\\"} // c"#;
        assert_eq!(
            parse(text),
            json!({"url": "http://h/a//b", "glob": "src/**/*.rs", "q": "say \"//hi\" /*", "e": "\\"})
        );
    }

    #[test]
    fn trailing_commas_go_but_commas_inside_strings_stay() {
        let text = "{\"a\": [1, 2,], \"b\": {\"c\": \",}\",\n /* gone */ },\n}";
        assert_eq!(parse(text), json!({"a": [1, 2], "b": {"c": ",}"}}));
    }

    #[test]
    fn lengths_lines_and_columns_are_kept() {
        let text = "{\n  /* é\n */ \"a\": 1, // ü\n  \"b\": oops\n}";
        let plain = strip(text);
        assert_eq!(plain.len(), text.len());
        assert_eq!(plain.lines().count(), text.lines().count());
        let err = serde_json::from_str::<Value>(&plain).unwrap_err();
        // `oops` starts at line 4, column 8 of what the user wrote.
        assert_eq!((err.line(), err.column()), (4, 8));
    }

    #[test]
    fn an_unterminated_block_comment_blanks_the_rest() {
        let plain = strip("{\"a\": 1 /* never closed\n}");
        assert_eq!(plain, format!("{{\"a\": 1 {}\n ", " ".repeat(15)));
        assert!(serde_json::from_str::<Value>(&plain).is_err());
    }

    #[test]
    fn plain_json_is_unchanged() {
        let text = "{\"a\": [1, {\"b\": \"c,]\"}], \"d\": null}";
        assert_eq!(strip(text), text);
    }
}
