//! Syntax highlighting for code blocks: a small lexer that knows comments, strings, numbers,
//! keywords and type names of the languages an agent writes most, and `+`/`-` lines of diffs.
//! Deliberately tiny: no grammar files to load, a few microseconds per block.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::theme;

/// The lexical rules of one language.
#[derive(Debug)]
struct Lang {
    keywords: &'static [&'static str],
    line_comment: &'static [&'static str],
    block_comment: Option<(&'static str, &'static str)>,
}

const RUST: Lang = Lang {
    keywords: &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
        "true", "type", "unsafe", "use", "where", "while",
    ],
    line_comment: &["//"],
    block_comment: Some(("/*", "*/")),
};
const PYTHON: Lang = Lang {
    keywords: &[
        "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
        "elif", "else", "except", "False", "finally", "for", "from", "global", "if", "import",
        "in", "is", "lambda", "None", "nonlocal", "not", "or", "pass", "raise", "return", "True",
        "try", "while", "with", "yield",
    ],
    line_comment: &["#"],
    block_comment: None,
};
const JS: Lang = Lang {
    keywords: &[
        "async",
        "await",
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "default",
        "delete",
        "do",
        "else",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "from",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "interface",
        "let",
        "new",
        "null",
        "return",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "type",
        "typeof",
        "undefined",
        "var",
        "void",
        "while",
        "yield",
    ],
    line_comment: &["//"],
    block_comment: Some(("/*", "*/")),
};
const GO: Lang = Lang {
    keywords: &[
        "break",
        "case",
        "chan",
        "const",
        "continue",
        "default",
        "defer",
        "else",
        "false",
        "for",
        "func",
        "go",
        "if",
        "import",
        "interface",
        "map",
        "nil",
        "package",
        "range",
        "return",
        "select",
        "struct",
        "switch",
        "true",
        "type",
        "var",
    ],
    line_comment: &["//"],
    block_comment: Some(("/*", "*/")),
};
const C: Lang = Lang {
    keywords: &[
        "auto",
        "bool",
        "break",
        "case",
        "char",
        "class",
        "const",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extends",
        "false",
        "final",
        "float",
        "for",
        "if",
        "import",
        "int",
        "long",
        "namespace",
        "new",
        "null",
        "nullptr",
        "private",
        "public",
        "return",
        "short",
        "static",
        "struct",
        "switch",
        "template",
        "this",
        "true",
        "typedef",
        "unsigned",
        "void",
        "while",
    ],
    line_comment: &["//"],
    block_comment: Some(("/*", "*/")),
};
const SHELL: Lang = Lang {
    keywords: &[
        "case", "do", "done", "echo", "elif", "else", "esac", "exit", "export", "fi", "for",
        "function", "if", "in", "local", "return", "then", "while",
    ],
    line_comment: &["#"],
    block_comment: None,
};
const DATA: Lang = Lang {
    keywords: &["true", "false", "null"],
    line_comment: &["#"],
    block_comment: None,
};

fn lang(name: &str) -> Option<&'static Lang> {
    Some(match name.to_ascii_lowercase().as_str() {
        "rust" | "rs" => &RUST,
        "python" | "py" => &PYTHON,
        "js" | "javascript" | "ts" | "typescript" | "jsx" | "tsx" | "mjs" => &JS,
        "go" | "golang" => &GO,
        "c" | "h" | "cpp" | "c++" | "hpp" | "java" | "cs" | "csharp" | "kotlin" | "swift" => &C,
        "sh" | "bash" | "zsh" | "shell" | "console" => &SHELL,
        "json" | "toml" | "yaml" | "yml" | "ini" => &DATA,
        _ => return None,
    })
}

/// Highlights `code` written in `language` (a fence's info string); unknown languages come
/// back plain in the code color.
pub fn highlight(language: &str, code: &str) -> Vec<Line<'static>> {
    let language = language.split([' ', ',']).next().unwrap_or_default();
    if matches!(language, "diff" | "patch") {
        return code.lines().map(diff_line).collect();
    }
    let Some(lang) = lang(language) else {
        return code
            .lines()
            .map(|l| Line::from(Span::styled(l.to_string(), theme::code())))
            .collect();
    };
    let mut in_block = false;
    code.lines()
        .map(|l| Line::from(lex(lang, l, &mut in_block)))
        .collect()
}

/// Colors a unified-diff line by its first character.
pub(super) fn diff_line(line: &str) -> Line<'static> {
    let style = match line.chars().next() {
        Some('+') if !line.starts_with("+++") => Style::new().fg(Color::Green),
        Some('-') if !line.starts_with("---") => Style::new().fg(Color::Red),
        Some('@') => Style::new().fg(Color::Cyan),
        _ => theme::dim(),
    };
    Line::from(Span::styled(line.to_string(), style))
}

fn lex(lang: &Lang, line: &str, in_block: &mut bool) -> Vec<Span<'static>> {
    let mut spans = vec![];
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let at = |i: usize| chars.get(i).map_or(line.len(), |c| c.0);
    let mut i = 0;
    while i < chars.len() {
        let rest = &line[at(i)..];
        if *in_block {
            let (_, close) = lang.block_comment.unwrap_or(("", ""));
            let end = rest.find(close).map_or(rest.len(), |e| e + close.len());
            *in_block = !rest[..end].ends_with(close) || close.is_empty();
            spans.push(Span::styled(rest[..end].to_string(), theme::comment()));
            i += rest[..end].chars().count();
            continue;
        }
        if lang.line_comment.iter().any(|c| rest.starts_with(c)) {
            spans.push(Span::styled(rest.to_string(), theme::comment()));
            break;
        }
        if let Some((open, _)) = lang.block_comment
            && rest.starts_with(open)
        {
            *in_block = true;
            spans.push(Span::styled(open.to_string(), theme::comment()));
            i += open.chars().count();
            continue;
        }
        let c = chars[i].1;
        let (len, style) = if c == '"' || c == '\'' || c == '`' {
            let close = rest[1..].find(c).map_or(rest.len(), |e| e + 2);
            (rest[..close].chars().count(), Style::new().fg(Color::Green))
        } else if c.is_ascii_digit() {
            let n = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_')
                .count();
            (n, Style::new().fg(Color::Yellow))
        } else if c.is_alphabetic() || c == '_' {
            let word: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let style = if lang.keywords.contains(&word.as_str()) {
                Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD)
            } else if word.starts_with(char::is_uppercase) {
                Style::new().fg(Color::Cyan)
            } else {
                theme::code()
            };
            (word.chars().count(), style)
        } else {
            (1, theme::code())
        };
        let text = &line[at(i)..at(i + len)];
        match spans.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => spans.push(Span::styled(text.to_string(), style)),
        }
        i += len;
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_strings_comments_and_numbers_get_their_colors() {
        let lines = highlight("rust", "let s = \"hi\"; // note\n/* a\nb */ 42");
        let kinds: Vec<(String, Option<Color>)> = lines
            .iter()
            .flat_map(|l| l.spans.iter())
            .map(|s| (s.content.to_string(), s.style.fg))
            .collect();
        assert!(kinds.contains(&("let".into(), Some(Color::Magenta))));
        assert!(kinds.contains(&("\"hi\"".into(), Some(Color::Green))));
        assert!(kinds.contains(&("// note".into(), theme::comment().fg)));
        assert!(kinds.contains(&("b */".into(), theme::comment().fg)));
        assert!(kinds.contains(&("42".into(), Some(Color::Yellow))));
        assert_eq!(highlight("brainfuck", "+-").len(), 1);
    }
}
