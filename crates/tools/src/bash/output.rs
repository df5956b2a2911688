//! What the shell printed, kept within memory bounds (spec §7.3): a ring of recent chunks, the
//! running preview, and the final tail cut. Pure: the tool does the file IO.

use std::collections::VecDeque;

/// The running preview shows at most this many characters (the end of the output).
pub const PREVIEW_CHARS: usize = 30_000;

/// The most recent output, at most `2 × max_bytes` bytes of whole chunks.
#[derive(Debug)]
pub struct Ring {
    chunks: VecDeque<Vec<u8>>,
    bytes: usize,
    cap: usize,
    /// Older chunks were dropped.
    pub dropped: bool,
}

impl Ring {
    pub fn new(max_bytes: usize) -> Self {
        Self {
            chunks: VecDeque::new(),
            bytes: 0,
            cap: max_bytes.saturating_mul(2),
            dropped: false,
        }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        self.bytes += chunk.len();
        self.chunks.push_back(chunk.to_vec());
        while self.bytes > self.cap && self.chunks.len() > 1 {
            if let Some(old) = self.chunks.pop_front() {
                self.bytes -= old.len();
                self.dropped = true;
            }
        }
    }

    /// The kept bytes as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        let mut all = Vec::with_capacity(self.bytes);
        for c in &self.chunks {
            all.extend_from_slice(c);
        }
        String::from_utf8_lossy(&all).into_owned()
    }
}

/// Everything so far clipped to its last [`PREVIEW_CHARS`] characters, marked when clipped.
pub fn preview(text: &str) -> String {
    let count = text.chars().count();
    if count <= PREVIEW_CHARS {
        return text.to_string();
    }
    let skip = count - PREVIEW_CHARS;
    let start = text.char_indices().nth(skip).map(|(i, _)| i).unwrap_or(0);
    format!("...\n\n{}", &text[start..])
}

/// The end of `text` within `max_lines` lines and `max_bytes` bytes; `true` when it cut.
pub fn tail(text: &str, max_lines: usize, max_bytes: usize) -> (String, bool) {
    let lines: Vec<&str> = text.split('\n').collect();
    if lines.len() <= max_lines && text.len() <= max_bytes {
        return (text.to_string(), false);
    }
    let mut kept = 0usize;
    let mut bytes = 0usize;
    for line in lines.iter().rev() {
        let add = line.len() + usize::from(kept > 0);
        if kept >= max_lines || bytes + add > max_bytes {
            break;
        }
        bytes += add;
        kept += 1;
    }
    if kept == 0 {
        // Even the last line alone is too long: keep its end, on a character boundary.
        let last = lines.last().copied().unwrap_or_default();
        let mut start = last.len().saturating_sub(max_bytes);
        while !last.is_char_boundary(start) {
            start += 1;
        }
        return (last[start..].to_string(), true);
    }
    (lines[lines.len() - kept..].join("\n"), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_keeps_recent_whole_chunks() {
        let mut r = Ring::new(10);
        for i in 0..10 {
            r.push(format!("chunk{i}\n").as_bytes());
        }
        assert!(r.dropped);
        assert!(r.text().ends_with("chunk9\n"));
        assert!(r.text().len() <= 20 + 7);
    }

    #[test]
    fn preview_clips_to_the_end() {
        let t = "a".repeat(PREVIEW_CHARS + 5);
        let p = preview(&t);
        assert!(p.starts_with("...\n\n"));
        assert_eq!(p.len(), PREVIEW_CHARS + 5);
        assert_eq!(preview("short"), "short");
    }

    #[test]
    fn tail_by_lines_and_bytes() {
        let text: String = (1..=10)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(tail(&text, 3, 1000), ("8\n9\n10".to_string(), true));
        assert_eq!(tail(&text, 100, 4), ("9\n10".to_string(), true));
        assert_eq!(tail(&text, 100, 3), ("10".to_string(), true));
        assert_eq!(tail("small", 10, 100), ("small".to_string(), false));
    }

    #[test]
    fn tail_of_one_huge_line_lands_on_a_char_boundary() {
        let text = "é".repeat(100);
        let (t, cut) = tail(&text, 10, 51);
        assert!(cut);
        assert!(t.len() <= 51);
        assert!(t.chars().all(|c| c == 'é'));
    }
}
