//! The `apply_patch` grammar (spec §4.1): `parse_patch` turns the model's patch text into
//! typed sections. Stricter than the reference parser: every line between the markers must
//! make sense, and errors name the line number (counted in the text as sent).

#[cfg(test)]
mod tests;

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const END_OF_FILE: &str = "*** End of File";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE: &str = "*** Move to:";

const BETWEEN_SECTIONS: &str = "Between sections only blank lines and section headers may \
    appear: `*** Add File: <path>`, `*** Delete File: <path>`, `*** Update File: <path>` \
    (optionally followed by `*** Move to: <path>`), or the closing `*** End Patch`.";
const IN_ADD: &str = "Every line of an added file starts with `+`; the file ends at the next \
    section header or at `*** End Patch`.";
const IN_UPDATE: &str = "Inside `*** Update File:` a line starts with ` ` (context), `-` \
    (removed), `+` (added) or `@@` (a new chunk), or is empty (an empty context line), \
    `*** End of File`, the next section header or `*** End Patch`.";
const NEEDS_AT: &str = "After `*** End of File` the next chunk must start with an `@@` line.";
const STRAY_EOF: &str = "`*** End of File` closes a chunk; put it right after the last line \
    of a chunk.";

/// A parsed patch: its sections in order. Zero sections means the patch held only markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    pub sections: Vec<Section>,
}

/// One file operation of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Section {
    /// Create (or overwrite) `path`; `content` ends with a newline unless it is empty.
    Add { path: String, content: String },
    /// Remove `path`.
    Delete { path: String },
    /// Change `path` chunk by chunk, and rename it to `move_to` when set.
    Update {
        path: String,
        move_to: Option<String>,
        chunks: Vec<Chunk>,
    },
}

/// One change inside an Update: replace `old_lines` (found after `context`) by `new_lines`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The text after `@@`, trimmed; the chunk is searched for after the line matching it.
    pub context: Option<String>,
    pub old_lines: Vec<String>,
    pub new_lines: Vec<String>,
    /// `*** End of File` closed the chunk: its old lines are anchored at the end of the file.
    pub eof: bool,
}

/// Why a patch text is malformed. Line numbers count from 1 in the text as received.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error(
        "The patch has no `*** Begin Patch` line. Start the patch with `*** Begin Patch` and \
         end it with `*** End Patch`."
    )]
    MissingBegin,
    #[error(
        "The patch opened by `*** Begin Patch` on line {begin} is never closed. End it with an \
         `*** End Patch` line."
    )]
    MissingEnd { begin: usize },
    #[error(
        "`*** End Patch` on line {end} comes before `*** Begin Patch` on line {begin}. Put the \
         sections between `*** Begin Patch` and `*** End Patch`."
    )]
    EndBeforeBegin { end: usize, begin: usize },
    #[error("Line {line}: `{header}` has no path. Write the file path after the colon.")]
    EmptyPath { line: usize, header: &'static str },
    #[error("Line {line}: unexpected line `{text}`. {expected}")]
    UnexpectedLine {
        line: usize,
        text: String,
        expected: &'static str,
    },
    #[error(
        "Line {line}: `*** Update File: {path}` has no changes. Follow it with at least one \
         chunk: an optional `@@` line, then lines starting with ` ` (context), `-` (removed) or \
         `+` (added)."
    )]
    EmptyUpdate { line: usize, path: String },
    #[error(
        "Line {line}: a chunk of `{path}` has no lines. After `@@` give lines starting with ` ` \
         (context), `-` (removed) or `+` (added)."
    )]
    EmptyChunk { line: usize, path: String },
}

/// Parse a whole patch (spec §4.1, rules 1–7).
pub fn parse_patch(text: &str) -> Result<Patch, ParseError> {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let trimmed = text.trim();
    // Line number of `trimmed`'s first line in the text as sent.
    let leading = &text[..text.len() - text.trim_start().len()];
    let mut first_line = 1 + leading.matches('\n').count();
    let mut lines: Vec<&str> = trimmed.split('\n').collect();
    if let [open, .., close] = lines.as_slice()
        && heredoc_tag(open).is_some_and(|tag| close.trim() == tag)
    {
        lines = lines[1..lines.len() - 1].to_vec();
        first_line += 1;
    }

    fn is(marker: &'static str) -> impl Fn(&&str) -> bool {
        move |l| l.trim() == marker
    }
    let Some(begin) = lines.iter().position(is(BEGIN)) else {
        return Err(ParseError::MissingBegin);
    };
    let Some(end) = lines[begin + 1..]
        .iter()
        .position(is(END))
        .map(|p| p + begin + 1)
    else {
        return Err(match lines[..begin].iter().position(is(END)) {
            Some(end) => ParseError::EndBeforeBegin {
                end: end + first_line,
                begin: begin + first_line,
            },
            None => ParseError::MissingEnd {
                begin: begin + first_line,
            },
        });
    };
    let mut parser = Parser {
        lines: &lines[begin + 1..end],
        pos: 0,
        base: first_line + begin + 1,
    };
    Ok(Patch {
        sections: parser.sections()?,
    })
}

/// The tag of a heredoc opener: `<<TAG`, `<<'TAG'` or `<<"TAG"`, optionally after `cat `.
fn heredoc_tag(line: &str) -> Option<&str> {
    let line = line.trim();
    let rest = match line.strip_prefix("cat") {
        Some(after) if after.starts_with(char::is_whitespace) => after.trim_start(),
        _ => line,
    };
    let rest = rest.strip_prefix("<<")?;
    let tag = match rest.chars().next() {
        Some(q @ ('\'' | '"')) => rest[1..].strip_suffix(q)?,
        _ => rest,
    };
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    (!tag.is_empty() && tag.chars().all(is_word)).then_some(tag)
}

#[derive(Clone, Copy)]
enum HeaderKind {
    Add,
    Delete,
    Update,
}

/// A section header, recognised after trimming leading whitespace: its kind and raw path.
fn header(line: &str) -> Option<(HeaderKind, &'static str, &str)> {
    let line = line.trim_start();
    [
        (HeaderKind::Add, ADD),
        (HeaderKind::Delete, DELETE),
        (HeaderKind::Update, UPDATE),
    ]
    .into_iter()
    .find_map(|(kind, prefix)| {
        line.strip_prefix(prefix)
            .map(|rest| (kind, prefix, rest.trim()))
    })
}

/// A line inside an Update chunk.
enum Body<'a> {
    Context(&'a str),
    Old(&'a str),
    New(&'a str),
    Empty,
    Ignored,
}

fn body_line(line: &str) -> Option<Body<'_>> {
    if line.is_empty() {
        return Some(Body::Empty);
    }
    if let Some(t) = line.strip_prefix(' ') {
        return Some(Body::Context(t));
    }
    if let Some(t) = line.strip_prefix('-') {
        return Some(Body::Old(t));
    }
    if let Some(t) = line.strip_prefix('+') {
        return Some(Body::New(t));
    }
    // diff's "\ No newline at end of file" carries no change.
    line.starts_with('\\').then_some(Body::Ignored)
}

/// A chunk being read.
struct ChunkBuilder {
    line: usize,
    chunk: Chunk,
    body_lines: usize,
    trailing_empty: usize,
}

impl ChunkBuilder {
    fn new(line: usize, context: Option<String>) -> Self {
        let chunk = Chunk {
            context,
            old_lines: Vec::new(),
            new_lines: Vec::new(),
            eof: false,
        };
        ChunkBuilder {
            line,
            chunk,
            body_lines: 0,
            trailing_empty: 0,
        }
    }

    fn push(&mut self, body: Body<'_>) {
        let (old, new) = match body {
            Body::Ignored => return,
            Body::Empty => (Some(""), Some("")),
            Body::Context(t) => (Some(t), Some(t)),
            Body::Old(t) => (Some(t), None),
            Body::New(t) => (None, Some(t)),
        };
        self.trailing_empty = if matches!(body, Body::Empty) {
            self.trailing_empty + 1
        } else {
            0
        };
        self.body_lines += 1;
        self.chunk.old_lines.extend(old.map(str::to_string));
        self.chunk.new_lines.extend(new.map(str::to_string));
    }

    /// Close the chunk: trailing empty lines could only add context, so they are dropped.
    fn finish(mut self, path: &str) -> Result<Chunk, ParseError> {
        for _ in 0..self.trailing_empty {
            self.chunk.old_lines.pop();
            self.chunk.new_lines.pop();
            self.body_lines -= 1;
        }
        if self.body_lines == 0 {
            return Err(ParseError::EmptyChunk {
                line: self.line,
                path: path.to_string(),
            });
        }
        Ok(self.chunk)
    }
}

/// Reads the lines strictly between the markers.
struct Parser<'a> {
    lines: &'a [&'a str],
    pos: usize,
    /// Line number (1-based, in the text as sent) of `lines[0]`.
    base: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.lines.get(self.pos).copied()
    }

    fn line_no(&self) -> usize {
        self.base + self.pos
    }

    fn unexpected(&self, text: &str, expected: &'static str) -> ParseError {
        const SHOWN: usize = 120;
        let text = match text.char_indices().nth(SHOWN) {
            Some((cut, _)) => format!("{}…", &text[..cut]),
            None => text.to_string(),
        };
        ParseError::UnexpectedLine {
            line: self.line_no(),
            text,
            expected,
        }
    }

    fn sections(&mut self) -> Result<Vec<Section>, ParseError> {
        let mut sections = Vec::new();
        while let Some(line) = self.peek() {
            if line.trim().is_empty() {
                self.pos += 1;
                continue;
            }
            let Some((kind, name, path)) = header(line) else {
                return Err(self.unexpected(line, BETWEEN_SECTIONS));
            };
            if path.is_empty() {
                return Err(ParseError::EmptyPath {
                    line: self.line_no(),
                    header: name,
                });
            }
            let path = path.to_string();
            let header_line = self.line_no();
            self.pos += 1;
            sections.push(match kind {
                HeaderKind::Add => Section::Add {
                    content: self.add_content()?,
                    path,
                },
                HeaderKind::Delete => Section::Delete { path },
                HeaderKind::Update => {
                    let move_to = self.move_line()?;
                    let chunks = self.chunks(&path, header_line)?;
                    Section::Update {
                        path,
                        move_to,
                        chunks,
                    }
                }
            });
        }
        Ok(sections)
    }

    fn add_content(&mut self) -> Result<String, ParseError> {
        let mut content = String::new();
        let mut blank_run = 0;
        while let Some(line) = self.peek() {
            if header(line).is_some() {
                break;
            }
            if let Some(text) = line.strip_prefix('+') {
                // Blank lines between `+` lines are empty lines of the file.
                content.extend(std::iter::repeat_n('\n', blank_run));
                blank_run = 0;
                content.push_str(text);
                content.push('\n');
            } else if line.trim().is_empty() {
                blank_run += 1;
            } else {
                return Err(self.unexpected(line, IN_ADD));
            }
            self.pos += 1;
        }
        Ok(content)
    }

    fn move_line(&mut self) -> Result<Option<String>, ParseError> {
        let Some(rest) = self.peek().and_then(|l| l.trim_start().strip_prefix(MOVE)) else {
            return Ok(None);
        };
        let target = rest.trim();
        if target.is_empty() {
            return Err(ParseError::EmptyPath {
                line: self.line_no(),
                header: MOVE,
            });
        }
        self.pos += 1;
        Ok(Some(target.to_string()))
    }

    fn chunks(&mut self, path: &str, header_line: usize) -> Result<Vec<Chunk>, ParseError> {
        let mut chunks = Vec::new();
        let mut open: Option<ChunkBuilder> = None;
        while let Some(line) = self.peek() {
            if header(line).is_some() {
                break;
            }
            if let Some(rest) = line.strip_prefix("@@") {
                if let Some(done) = open.take() {
                    chunks.push(done.finish(path)?);
                }
                let context = Some(rest.trim())
                    .filter(|c| !c.is_empty())
                    .map(str::to_string);
                open = Some(ChunkBuilder::new(self.line_no(), context));
            } else if line.trim() == END_OF_FILE {
                let Some(mut done) = open.take() else {
                    return Err(self.unexpected(line, STRAY_EOF));
                };
                done.chunk.eof = true;
                chunks.push(done.finish(path)?);
            } else {
                let Some(body) = body_line(line) else {
                    return Err(self.unexpected(line, IN_UPDATE));
                };
                match open.as_mut() {
                    Some(chunk) => chunk.push(body),
                    // Blank lines outside a chunk only separate things.
                    None if line.trim().is_empty() => {}
                    // The first chunk may start without `@@`.
                    None if chunks.is_empty() => {
                        let mut chunk = ChunkBuilder::new(self.line_no(), None);
                        chunk.push(body);
                        open = Some(chunk);
                    }
                    None => return Err(self.unexpected(line, NEEDS_AT)),
                }
            }
            self.pos += 1;
        }
        if let Some(done) = open {
            chunks.push(done.finish(path)?);
        }
        if chunks.is_empty() {
            return Err(ParseError::EmptyUpdate {
                line: header_line,
                path: path.to_string(),
            });
        }
        Ok(chunks)
    }
}
