//! Deterministic filler that reads like a coding session: prose, markdown answers, source
//! lines, and the outputs of `read`, `bash`, `grep` and `edit`. Sizes are in bytes and only
//! approximate (a piece ends at the first line or word past its size).

/// A small xorshift generator: the same seed gives the same session.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }

    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub(crate) fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

const WORDS: &[&str] = &[
    "the",
    "session",
    "store",
    "message",
    "part",
    "request",
    "handler",
    "server",
    "client",
    "config",
    "error",
    "result",
    "value",
    "stream",
    "buffer",
    "token",
    "model",
    "provider",
    "loop",
    "step",
    "tool",
    "call",
    "output",
    "input",
    "file",
    "path",
    "line",
    "test",
    "build",
    "cache",
    "index",
    "query",
    "table",
    "row",
    "event",
    "state",
    "reducer",
    "view",
    "frame",
    "render",
    "layout",
    "width",
    "height",
    "scroll",
    "page",
    "offset",
    "limit",
    "cursor",
    "async",
    "task",
    "channel",
    "lock",
    "guard",
    "retry",
    "timeout",
    "budget",
    "window",
    "summary",
    "history",
    "resume",
    "snapshot",
    "revert",
    "diff",
    "patch",
    "hunk",
    "parser",
    "decoder",
    "encoder",
    "schema",
    "field",
    "struct",
    "enum",
    "trait",
    "impl",
    "module",
    "crate",
    "workspace",
    "because",
    "so",
    "then",
    "which",
    "when",
    "only",
    "also",
    "still",
    "now",
    "first",
    "last",
    "next",
    "every",
    "each",
    "none",
    "some",
    "all",
    "is",
    "was",
    "returns",
    "reads",
    "writes",
    "keeps",
    "drops",
    "sends",
    "fails",
    "passes",
    "checks",
];

const IDENTS: &[&str] = &[
    "session", "store", "parts", "message", "entry", "row", "cursor", "limit", "offset", "frame",
    "width", "events", "state", "config", "path", "buf", "reader", "writer", "req",
];

const TYPES: &[&str] = &[
    "Session", "Store", "Part", "Message", "Event", "Config", "Frame", "State", "Cursor",
];

/// Words until about `size` bytes, as sentences.
pub(crate) fn prose(rng: &mut Rng, size: usize) -> String {
    let mut out = String::with_capacity(size + 16);
    let mut in_sentence = 0;
    while out.len() < size {
        let word = rng.pick(WORDS);
        if in_sentence == 0 {
            let mut chars = word.chars();
            if let Some(c) = chars.next() {
                out.extend(c.to_uppercase());
                out.push_str(chars.as_str());
            }
        } else {
            out.push(' ');
            out.push_str(word);
        }
        in_sentence += 1;
        if in_sentence > rng.range(6, 16) {
            out.push_str(". ");
            in_sentence = 0;
        }
    }
    out.truncate(out.trim_end().len());
    if !out.ends_with('.') {
        out.push('.');
    }
    out
}

/// One line of Rust-like source.
pub(crate) fn code_line(rng: &mut Rng) -> String {
    let (a, b, t) = (rng.pick(IDENTS), rng.pick(IDENTS), rng.pick(TYPES));
    match rng.next() % 6 {
        0 => format!("    let {a}_{b} = {a}.{b}(&{b})?;"),
        1 => format!("fn {a}_{b}(&self, {b}: &{t}) -> Result<{t}, Error> {{"),
        2 => format!("        if {a}.is_empty() {{ return Ok({t}::default()); }}"),
        3 => format!("    // {}", prose(rng, 40)),
        4 => format!("    {a}.push({t}::new({b}, {}));", rng.range(0, 999)),
        _ => "    }".to_string(),
    }
}

/// Source lines until about `size` bytes.
pub(crate) fn code(rng: &mut Rng, size: usize) -> String {
    let mut out = String::with_capacity(size + 80);
    while out.len() < size {
        out.push_str(&code_line(rng));
        out.push('\n');
    }
    out
}

/// An assistant's markdown answer of about `size` bytes: a heading, prose, a list and a code
/// block.
pub(crate) fn answer(rng: &mut Rng, size: usize) -> String {
    if size < 200 {
        return prose(rng, size);
    }
    let mut out = format!("## {}\n\n", prose(rng, 30).trim_end_matches('.'));
    out.push_str(&prose(rng, size / 4));
    out.push_str("\n\n");
    for _ in 0..rng.range(2, 4) {
        out.push_str(&format!("- **{}**: {}\n", rng.pick(IDENTS), prose(rng, 50)));
    }
    out.push_str("\n```rust\n");
    let rest = size.saturating_sub(out.len() + 40);
    out.push_str(&code(rng, rest / 2));
    out.push_str("```\n\n");
    out.push_str(&prose(rng, rest / 2));
    out
}

/// A file path under the project.
pub(crate) fn path(rng: &mut Rng) -> String {
    let dir = rng.pick(&[
        "src",
        "src/store",
        "src/http",
        "src/view",
        "tests",
        "crates/core/src",
    ]);
    format!("{dir}/{}_{}.rs", rng.pick(IDENTS), rng.pick(IDENTS))
}

/// What `read` returns: numbered lines in a `<file>` block.
pub(crate) fn read_output(rng: &mut Rng, size: usize) -> String {
    let mut out = String::from("<file>\n");
    let mut n = rng.range(1, 400);
    while out.len() < size {
        out.push_str(&format!("{n:05}| {}\n", code_line(rng)));
        n += 1;
    }
    out.push_str(&format!(
        "\n(File has more lines. Use 'offset' to read beyond line {n})\n</file>"
    ));
    out
}

/// What `bash` prints for a build or a test run.
pub(crate) fn bash_output(rng: &mut Rng, size: usize) -> String {
    let mut out = String::new();
    while out.len() < size {
        let (a, b) = (rng.pick(IDENTS), rng.pick(IDENTS));
        let line = match rng.next() % 4 {
            0 => format!("   Compiling {a}-{b} v0.{}.0", rng.range(1, 9)),
            1 => format!("test {a}::{b}_{} ... ok", rng.pick(IDENTS)),
            2 => format!("warning: unused variable: `{a}_{b}`"),
            _ => format!(
                "  --> src/{a}.rs:{}:{}",
                rng.range(1, 900),
                rng.range(1, 80)
            ),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str("test result: ok. 42 passed; 0 failed; 0 ignored\n");
    out
}

/// What `grep` returns: matches grouped by file.
pub(crate) fn grep_output(rng: &mut Rng, size: usize) -> String {
    let mut out = format!("Found {} matches\n", rng.range(2, 60));
    while out.len() < size {
        out.push_str(&format!("{}:\n", path(rng)));
        for _ in 0..rng.range(1, 4) {
            out.push_str(&format!(
                "  Line {}: {}\n",
                rng.range(1, 900),
                code_line(rng).trim()
            ));
        }
    }
    out
}

/// A unified diff of about `size` bytes, as `edit` keeps it in its metadata.
pub(crate) fn diff(rng: &mut Rng, file: &str, size: usize) -> String {
    let mut out = format!("Index: {file}\n===\n--- {file}\n+++ {file}\n");
    let at = rng.range(1, 500);
    out.push_str(&format!("@@ -{at},6 +{at},7 @@\n"));
    while out.len() < size {
        let sign = rng.pick(&[" ", " ", "-", "+"]);
        out.push_str(&format!("{sign}{}\n", code_line(rng)));
    }
    out
}
