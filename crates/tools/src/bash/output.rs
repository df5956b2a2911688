//! What the shell printed, kept within memory bounds (spec §7.3): a ring of recent chunks and
//! the running preview. Pure: the tool does the file IO, and the final tail cut is the Truncate
//! service's.

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
}
