//! Paging a stream of lines: offset, limit, the 2000-character line cut and the 50 KB cap
//! (spec §1 step 10). Pure: fed line by line, it says when to stop reading.

pub const DEFAULT_LIMIT: usize = 2000;
pub const MAX_LINE_CHARS: usize = 2000;
pub const MAX_BYTES: usize = 51_200;
pub(super) const LINE_CUT_SUFFIX: &str = "... (line cut at 2000 characters)";

/// Collects the lines of one page.
#[derive(Debug)]
pub(super) struct Pager {
    offset: usize,
    limit: usize,
    /// Lines seen so far (the file's total when reading reached the end).
    pub count: usize,
    pub kept: Vec<String>,
    bytes: usize,
    /// More lines exist after the page.
    pub more: bool,
    /// The byte cap stopped the page.
    pub cut: bool,
}

/// What the reader should do after a line.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Next {
    Continue,
    Stop,
}

impl Pager {
    /// `offset` is 1-based (0 counts as 1); `limit` 0 counts as the default.
    pub(super) fn new(offset: usize, limit: usize) -> Self {
        Self {
            offset: offset.max(1),
            limit: if limit == 0 { DEFAULT_LIMIT } else { limit },
            count: 0,
            kept: Vec::new(),
            bytes: 0,
            more: false,
            cut: false,
        }
    }

    pub(super) fn offset(&self) -> usize {
        self.offset
    }

    /// The page holds `limit` lines: later lines are only counted.
    pub(super) fn is_full(&self) -> bool {
        self.kept.len() >= self.limit
    }

    /// Adds lines that were counted, not read (see [`LineSplitter::count`]).
    pub(super) fn skip_counted(&mut self, n: usize) {
        if n > 0 {
            self.count += n;
            self.more = true;
        }
    }

    pub(super) fn push(&mut self, line: &str) -> Next {
        self.count += 1;
        if self.count < self.offset {
            return Next::Continue;
        }
        if self.kept.len() >= self.limit {
            // Keep counting for the total.
            self.more = true;
            return Next::Continue;
        }
        let text = cut_line(line);
        let add = text.len() + usize::from(!self.kept.is_empty());
        if self.bytes + add > MAX_BYTES {
            self.cut = true;
            self.more = true;
            return Next::Stop;
        }
        self.bytes += add;
        self.kept.push(text);
        Next::Continue
    }

    /// The 1-based number of the last kept line.
    pub(super) fn last(&self) -> usize {
        self.offset + self.kept.len() - usize::from(!self.kept.is_empty())
    }

    /// Whether `offset` points past the end of what was read.
    pub(super) fn offset_out_of_range(&self) -> bool {
        self.count < self.offset && !(self.count == 0 && self.offset == 1)
    }
}

fn cut_line(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((i, _)) => format!("{}{LINE_CUT_SUFFIX}", &line[..i]),
        None => line.to_string(),
    }
}

/// Splits a byte stream into lines: `\n` separated, a trailing `\r` removed, invalid UTF-8
/// replaced; the empty piece after a final newline is not a line.
#[derive(Default)]
pub(super) struct LineSplitter {
    partial: Vec<u8>,
}

impl LineSplitter {
    /// Feeds a chunk; calls `each` for every complete line until it says stop.
    pub(super) fn feed(&mut self, chunk: &[u8], each: &mut dyn FnMut(&str) -> Next) -> Next {
        let mut rest = chunk;
        while let Some(i) = rest.iter().position(|&b| b == b'\n') {
            self.partial.extend_from_slice(&rest[..i]);
            rest = &rest[i + 1..];
            let line = std::mem::take(&mut self.partial);
            if each(&decode(&line)) == Next::Stop {
                return Next::Stop;
            }
        }
        self.partial.extend_from_slice(rest);
        Next::Continue
    }

    /// Counts the lines in `chunk` without decoding them: once the page is full only the
    /// total is still needed, and decoding every line of a large file would dominate.
    pub(super) fn count(&mut self, chunk: &[u8]) -> usize {
        let n = memchr::memchr_iter(b'\n', chunk).count();
        let after_last = match memchr::memrchr(b'\n', chunk) {
            Some(i) => &chunk[i + 1..],
            None => chunk,
        };
        if n > 0 {
            self.partial.clear();
        }
        // Only whether an unterminated last line exists matters from here on.
        if !after_last.is_empty() && self.partial.is_empty() {
            self.partial.push(b'x');
        }
        n
    }

    /// The last line, when the input did not end with a newline.
    pub(super) fn finish(&mut self, each: &mut dyn FnMut(&str) -> Next) {
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            each(&decode(&line));
        }
    }
}

fn decode(line: &[u8]) -> String {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    String::from_utf8_lossy(line).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(text: &str, offset: usize, limit: usize) -> Pager {
        let mut p = Pager::new(offset, limit);
        let mut s = LineSplitter::default();
        let mut each = |l: &str| p.push(l);
        if s.feed(text.as_bytes(), &mut each) == Next::Continue {
            s.finish(&mut each);
        }
        p
    }

    #[test]
    fn offset_and_limit() {
        let text: String = (1..=100).map(|i| format!("line{i}\n")).collect();
        let p = page(&text, 10, 5);
        assert_eq!(p.kept, ["line10", "line11", "line12", "line13", "line14"]);
        assert_eq!(p.last(), 14);
        assert!(p.more);
        assert_eq!(p.count, 100);
    }

    #[test]
    fn crlf_and_lone_cr() {
        let p = page("a\r\nb\rc\n", 1, 0);
        assert_eq!(p.kept, ["a", "b\rc"]);
        assert_eq!(p.count, 2);
    }

    #[test]
    fn byte_cap_stops_reading() {
        let line = "x".repeat(56);
        let text: String = (0..3000).map(|_| format!("{line}\n")).collect();
        let p = page(&text, 1, 0);
        assert!(p.cut && p.more);
        // 57 bytes per line incl. the join: 51200 / 57 = 898 lines fit.
        assert_eq!(p.kept.len(), 898);
        assert!(p.count < 3000, "reading stopped early");
    }

    #[test]
    fn long_line_is_cut() {
        let p = page(&"y".repeat(3000), 1, 0);
        assert!(p.kept[0].ends_with(LINE_CUT_SUFFIX));
        assert!(p.kept[0].len() < 3000);
    }

    #[test]
    fn offset_range_rules() {
        assert!(page("a\nb\nc\n", 4, 0).offset_out_of_range());
        assert!(!page("", 1, 0).offset_out_of_range());
        assert!(page("", 2, 0).offset_out_of_range());
        assert!(!page("a\nb\nc", 3, 0).offset_out_of_range());
    }

    #[test]
    fn counting_mode_gives_the_same_total() {
        for text in ["a\nb\nc\nd\ne\n", "a\nb\nc\nd\ne", "a\nb\n\n\n"] {
            for split in 0..text.len() {
                let mut p = Pager::new(1, 2);
                let mut s = LineSplitter::default();
                let (x, y) = text.as_bytes().split_at(split);
                s.feed(x, &mut |l| p.push(l));
                if p.is_full() {
                    let n = s.count(y);
                    p.skip_counted(n);
                } else {
                    s.feed(y, &mut |l| p.push(l));
                }
                s.finish(&mut |l| p.push(l));
                let whole = page(text, 1, 2);
                assert_eq!(p.count, whole.count, "{text:?} split at {split}");
                assert_eq!(p.kept, whole.kept);
                assert_eq!(p.more, whole.more);
            }
        }
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        let mut p = Pager::new(1, 0);
        let mut s = LineSplitter::default();
        s.feed(b"ok\xff\n", &mut |l| p.push(l));
        assert_eq!(p.kept, ["ok\u{FFFD}"]);
    }
}
