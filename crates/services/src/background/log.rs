//! One background shell's output, within memory bounds: the bytes not yet read (at most
//! `cap`, the oldest dropped first), the last lines for the end-of-command notice, and the
//! complete output, in memory while it is small and in a Truncate file once it is not.

use std::collections::VecDeque;
use std::path::PathBuf;

use regex::Regex;

use crate::truncate::{OutputFile, Truncate};

/// Bytes kept for the notice's last lines.
const RECENT: usize = 4096;

/// What one read returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unread {
    /// The new output (only the matching lines when a filter was given).
    pub text: String,
    /// Bytes of new output that were dropped from memory before this read.
    pub dropped: u64,
    /// The file holding the complete output, once it outgrew memory.
    pub file: Option<PathBuf>,
    /// The output could not be saved in full; says why.
    pub save_error: Option<String>,
}

/// The output store of one shell.
pub(crate) struct OutputLog {
    truncate: Truncate,
    cap: usize,
    unread: VecDeque<u8>,
    dropped: u64,
    recent: VecDeque<u8>,
    /// The whole output while it fits in `cap`; `None` once it moved to `file`.
    whole: Option<Vec<u8>>,
    file: Option<OutputFile>,
    save_error: Option<String>,
}

impl OutputLog {
    /// Keeps at most `cap` bytes of unread output and of the whole output in memory.
    pub(crate) fn new(truncate: Truncate, cap: usize) -> Self {
        Self {
            truncate,
            cap: cap.max(1),
            unread: VecDeque::new(),
            dropped: 0,
            recent: VecDeque::new(),
            whole: Some(Vec::new()),
            file: None,
            save_error: None,
        }
    }

    /// Takes one chunk of output.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.unread.extend(chunk);
        if self.unread.len() > self.cap {
            let over = self.unread.len() - self.cap;
            self.unread.drain(..over);
            self.dropped += over as u64;
        }
        self.recent.extend(chunk);
        if self.recent.len() > RECENT {
            let over = self.recent.len() - RECENT;
            self.recent.drain(..over);
        }
        self.keep(chunk);
    }

    /// Whether any output arrived that was not read yet.
    pub(crate) fn has_unread(&self) -> bool {
        !self.unread.is_empty() || self.dropped > 0
    }

    /// The output since the last read, marked read. With `filter`, only the lines that match
    /// are returned; the others are consumed all the same. When `ended` is false, an
    /// incomplete UTF-8 sequence at the end waits for the rest of its bytes.
    pub(crate) fn read(&mut self, filter: Option<&Regex>, ended: bool) -> Unread {
        let bytes: Vec<u8> = self.unread.drain(..).collect();
        let (text, rest) = split_utf8(&bytes, ended);
        self.unread.extend(rest);
        let text = match filter {
            Some(re) => matching_lines(&text, re),
            None => text,
        };
        Unread {
            text,
            dropped: std::mem::take(&mut self.dropped),
            file: self.file.as_ref().map(|f| f.path().to_path_buf()),
            save_error: self.save_error.clone(),
        }
    }

    /// The last `n` lines of the output (whether read or not), for the notice.
    pub(crate) fn last_lines(&self, n: usize) -> String {
        let bytes: Vec<u8> = self.recent.iter().copied().collect();
        let text = String::from_utf8_lossy(&bytes);
        let trimmed = text.trim_end_matches('\n');
        let lines: Vec<&str> = trimmed.lines().collect();
        lines[lines.len().saturating_sub(n)..].join("\n")
    }

    /// The file with the complete output, once it outgrew memory.
    pub(crate) fn file(&self) -> Option<PathBuf> {
        self.file.as_ref().map(|f| f.path().to_path_buf())
    }

    /// Keeps `chunk` in the complete output: in memory, or appended to the saved file.
    fn keep(&mut self, chunk: &[u8]) {
        if let Some(file) = &mut self.file {
            if let Err(e) = file.append(chunk) {
                self.fail(e.to_string());
            }
            return;
        }
        let Some(whole) = &mut self.whole else {
            return;
        };
        whole.extend_from_slice(chunk);
        if whole.len() <= self.cap {
            return;
        }
        let whole = std::mem::take(whole);
        self.whole = None;
        let saved = self.truncate.create_file().and_then(|mut file| {
            file.append(&whole)?;
            Ok(file)
        });
        match saved {
            Ok(file) => self.file = Some(file),
            Err(e) => self.fail(e.to_string()),
        }
    }

    fn fail(&mut self, error: String) {
        tracing::warn!(%error, "background shell output could not be saved in full");
        self.file = None;
        self.whole = None;
        self.save_error.get_or_insert(error);
    }
}

/// `bytes` as text up to the last complete character, and the bytes of an incomplete one at
/// the end (none when `ended`: then invalid bytes are replaced).
fn split_utf8(bytes: &[u8], ended: bool) -> (String, Vec<u8>) {
    if ended {
        return (String::from_utf8_lossy(bytes).into_owned(), Vec::new());
    }
    let mut cut = bytes.len();
    // At most three bytes of a character can be missing.
    for back in 1..=3.min(bytes.len()) {
        let at = bytes.len() - back;
        if let Err(e) = std::str::from_utf8(&bytes[at..])
            && e.error_len().is_none()
            && e.valid_up_to() == 0
        {
            cut = at;
        }
    }
    (
        String::from_utf8_lossy(&bytes[..cut]).into_owned(),
        bytes[cut..].to_vec(),
    )
}

/// The lines of `text` that `re` matches, each ending with a newline.
fn matching_lines(text: &str, re: &Regex) -> String {
    let mut out = String::new();
    for line in text.lines().filter(|l| re.is_match(l)) {
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;

    fn log(dir: &std::path::Path, cap: usize) -> OutputLog {
        OutputLog::new(Truncate::new(dir.to_path_buf(), Clock::live()), cap)
    }

    #[test]
    fn reads_return_only_what_is_new() {
        let dir = tempfile::tempdir().unwrap();
        let mut l = log(dir.path(), 100);
        l.push(b"one\n");
        assert_eq!(l.read(None, false).text, "one\n");
        assert!(!l.has_unread());
        l.push(b"two\nthree\n");
        let r = l.read(None, false);
        assert_eq!(r.text, "two\nthree\n");
        assert_eq!((r.dropped, r.file), (0, None));
        assert_eq!(l.read(None, false).text, "");
        assert_eq!(l.last_lines(2), "two\nthree");
    }

    #[test]
    fn a_filter_keeps_matching_lines_and_consumes_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let mut l = log(dir.path(), 100);
        l.push(b"GET / 200\nnoise\nGET /x 404\n");
        let re = Regex::new("^GET").unwrap();
        assert_eq!(l.read(Some(&re), false).text, "GET / 200\nGET /x 404\n");
        assert_eq!(
            l.read(None, false).text,
            "",
            "the other lines were consumed"
        );
    }

    #[test]
    fn a_split_character_waits_for_its_last_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let mut l = log(dir.path(), 100);
        let e = "é".as_bytes();
        l.push(&[b'a', e[0]]);
        assert_eq!(l.read(None, false).text, "a");
        l.push(&[e[1], b'\n']);
        assert_eq!(l.read(None, false).text, "é\n");
    }

    #[test]
    fn a_chatty_shell_keeps_memory_bounded_and_the_file_complete() {
        let dir = tempfile::tempdir().unwrap();
        let mut l = log(dir.path(), 64);
        let mut all = String::new();
        for i in 0..1000 {
            let line = format!("line {i}\n");
            all.push_str(&line);
            l.push(line.as_bytes());
        }
        assert!(l.unread.len() <= 64 && l.recent.len() <= RECENT);
        let r = l.read(None, false);
        assert!(r.text.ends_with("line 999\n"), "{}", r.text);
        assert_eq!(r.dropped as usize + r.text.len(), all.len());
        let file = r.file.expect("the output outgrew memory");
        assert_eq!(std::fs::read_to_string(file).unwrap(), all);
    }
}
