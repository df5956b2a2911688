//! YAML frontmatter: the `---` block at the top of a markdown file (SKILL.md, agent files),
//! split from the body and parsed with a real YAML parser into any serde type.
//!
//! Pure functions, no file system: the caller reads the file and names it in its own errors.

use serde::de::DeserializeOwned;

/// A document cut in two: the YAML between the `---` lines (if any) and the text after them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split<'a> {
    /// The YAML text, without the delimiter lines; `None` when the file has no frontmatter.
    pub yaml: Option<&'a str>,
    /// Everything after the closing `---` line (the whole text when there is no frontmatter).
    pub body: &'a str,
}

/// Why a frontmatter block could not be read. Lines are counted from 1 in the whole file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrontmatterError {
    #[error(
        "the frontmatter opened by `---` on line 1 is never closed; add a `---` line after the \
         YAML keys"
    )]
    Unclosed,
    #[error("the frontmatter is not valid YAML (line {line}, column {column}): {message}")]
    Yaml {
        line: usize,
        column: usize,
        message: String,
    },
}

/// Whether `line` (without its line break) is a `---` delimiter; trailing blanks are allowed.
fn is_delimiter(line: &str) -> bool {
    line.trim_end() == "---"
}

/// Splits `text` into frontmatter and body. Frontmatter exists only when the very first line
/// (after an optional byte-order mark) is `---`; it ends at the next `---` line.
pub fn split(text: &str) -> Result<Split<'_>, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let Some(first) = lines.next() else {
        return Ok(Split {
            yaml: None,
            body: text,
        });
    };
    if !is_delimiter(first) {
        return Ok(Split {
            yaml: None,
            body: text,
        });
    }
    let start = first.len();
    let mut pos = start;
    for line in lines {
        if is_delimiter(line) {
            return Ok(Split {
                yaml: Some(&text[start..pos]),
                body: &text[pos + line.len()..],
            });
        }
        pos += line.len();
    }
    Err(FrontmatterError::Unclosed)
}

/// A parsed document: the typed frontmatter and the body.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed<'a, T> {
    /// `None` when the file has no frontmatter block at all.
    pub meta: Option<T>,
    pub body: &'a str,
}

/// Splits `text` and parses its frontmatter as `T`. An empty block parses as an empty mapping,
/// so a `T` whose fields are all optional accepts it. Unknown keys are `T`'s business (serde
/// ignores them unless `T` denies them).
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<Parsed<'_, T>, FrontmatterError> {
    let Split { yaml, body } = split(text)?;
    let Some(yaml) = yaml else {
        return Ok(Parsed { meta: None, body });
    };
    let source = if yaml.trim().is_empty() { "{}" } else { yaml };
    let meta = serde_yaml_ng::from_str::<T>(source).map_err(|e| {
        let (line, column) = e
            .location()
            .map(|l| (l.line(), l.column()))
            .unwrap_or((1, 1));
        FrontmatterError::Yaml {
            // The YAML starts on the file's second line, after the opening `---`.
            line: line + 1,
            column,
            message: strip_location(&e.to_string()),
        }
    })?;
    Ok(Parsed {
        meta: Some(meta),
        body,
    })
}

/// serde_yaml_ng appends " at line L column C" relative to the block; we report file lines.
fn strip_location(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Default, Deserialize, PartialEq)]
    struct Meta {
        name: Option<String>,
        description: Option<String>,
    }

    #[test]
    fn splits_yaml_from_body() {
        let s = split("---\nname: a\n---\nbody\nmore\n").unwrap();
        assert_eq!(s.yaml, Some("name: a\n"));
        assert_eq!(s.body, "body\nmore\n");
    }

    #[test]
    fn no_frontmatter_keeps_the_whole_text() {
        for text in ["", "hello\n---\n", "  ---\nx\n---\n", "----\nx\n----\n"] {
            let s = split(text).unwrap();
            assert_eq!(s.yaml, None, "{text:?}");
            assert_eq!(s.body, text);
        }
    }

    #[test]
    fn crlf_bom_and_trailing_blanks_are_accepted() {
        let s = split("\u{feff}--- \r\nname: a\r\n---\r\nbody\r\n").unwrap();
        assert_eq!(s.yaml, Some("name: a\r\n"));
        assert_eq!(s.body, "body\r\n");
        // Closing line at the very end of the file, with no line break.
        let s = split("---\nname: a\n---").unwrap();
        assert_eq!(s.yaml, Some("name: a\n"));
        assert_eq!(s.body, "");
    }

    #[test]
    fn an_unclosed_block_is_an_error() {
        assert_eq!(
            split("---\nname: a\nbody\n"),
            Err(FrontmatterError::Unclosed)
        );
        let msg = FrontmatterError::Unclosed.to_string();
        assert!(msg.contains("never closed"), "{msg}");
    }

    #[test]
    fn parses_typed_fields_and_ignores_unknown_keys() {
        let p = parse::<Meta>(
            "---\nname: pdf\ndescription: >-\n  Fill PDF\n  forms\nlicense: MIT\n---\n# Body\n",
        )
        .unwrap();
        assert_eq!(
            p.meta,
            Some(Meta {
                name: Some("pdf".into()),
                description: Some("Fill PDF forms".into()),
            })
        );
        assert_eq!(p.body, "# Body\n");
    }

    #[test]
    fn quoted_values_with_colons_parse_as_yaml() {
        let p = parse::<Meta>("---\nname: \"a: b\"\ndescription: 'it''s'\n---\n").unwrap();
        let meta = p.meta.unwrap();
        assert_eq!(meta.name.as_deref(), Some("a: b"));
        assert_eq!(meta.description.as_deref(), Some("it's"));
    }

    #[test]
    fn empty_block_and_missing_block() {
        let p = parse::<Meta>("---\n---\nbody").unwrap();
        assert_eq!(p.meta, Some(Meta::default()));
        assert_eq!(p.body, "body");
        let p = parse::<Meta>("just text").unwrap();
        assert_eq!(p.meta, None);
        assert_eq!(p.body, "just text");
    }

    #[test]
    fn malformed_yaml_reports_the_file_line() {
        let err = parse::<Meta>("---\nname: a\ndescription: [unclosed\n---\nbody\n").unwrap_err();
        let FrontmatterError::Yaml { line, message, .. } = &err else {
            panic!("expected a YAML error, got {err:?}");
        };
        assert!(*line >= 3, "line {line} should point into the block: {err}");
        assert!(!message.contains(" at line "), "{message}");
        assert!(err.to_string().contains("not valid YAML"), "{err}");
    }

    #[test]
    fn a_wrong_type_is_a_yaml_error() {
        let err = parse::<Meta>("---\nname: [a, b]\n---\n").unwrap_err();
        assert!(
            matches!(err, FrontmatterError::Yaml { line: 2, .. }),
            "{err:?}"
        );
    }
}
