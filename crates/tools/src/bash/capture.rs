//! Where a command's output goes while it runs (spec §7.3): a bounded ring of recent chunks for
//! the preview and the final tail, the whole output in memory while it is small, and a saved
//! Truncate file once it is not, so the complete output can always be read back.

use std::path::PathBuf;

use strata_services::truncate::{Limits, OutputFile, Truncate};

use super::output::{Ring, preview};

/// Where the complete output ended up, when it was cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Saved {
    /// Nothing was cut, so nothing was saved.
    Nothing,
    /// The complete output is in this file.
    File(PathBuf),
    /// Saving failed; the message says why.
    Failed(String),
}

/// What is left once the command is done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Captured {
    /// The end of the output within the line and byte limits.
    pub tail: String,
    /// Some output is not in `tail`.
    pub cut: bool,
    pub saved: Saved,
    /// The running preview of the final output.
    pub preview: String,
}

/// Collects output chunks.
pub(super) struct Capture {
    truncate: Truncate,
    limits: Limits,
    ring: Ring,
    /// The whole output so far, until it grows past the byte limit.
    whole: Option<Vec<u8>>,
    file: Option<OutputFile>,
    save_error: Option<String>,
}

impl Capture {
    /// Output over `limits` (config `tool_output`, else the Truncate defaults) is cut at the
    /// end and saved whole.
    pub(super) fn new(truncate: Truncate, limits: Limits) -> Self {
        Self {
            truncate,
            limits,
            ring: Ring::new(limits.max_bytes),
            whole: Some(Vec::new()),
            file: None,
            save_error: None,
        }
    }

    /// Takes one chunk: kept in the ring, and in memory or appended to the saved file.
    pub(super) fn push(&mut self, chunk: &[u8]) {
        self.ring.push(chunk);
        if let Some(file) = &mut self.file {
            if let Err(e) = file.append(chunk) {
                self.fail(e.to_string());
            }
            return;
        }
        if let Some(whole) = &mut self.whole {
            whole.extend_from_slice(chunk);
            if whole.len() > self.limits.max_bytes {
                self.spill();
            }
        }
    }

    /// The running preview: the end of what was printed so far.
    pub(super) fn preview(&self) -> String {
        preview(&self.ring.text())
    }

    /// Cuts the kept text to its tail; saves the whole output if that cut and nothing was
    /// saved yet.
    pub(super) fn finish(mut self) -> Captured {
        let text = self.ring.text();
        let (tail, tail_cut) = self.truncate.tail(&text, self.limits);
        let cut = tail_cut || self.ring.dropped || self.file.is_some() || self.save_error.is_some();
        if cut && self.file.is_none() && self.save_error.is_none() {
            self.spill();
        }
        let saved = match (&self.file, self.save_error.take()) {
            (_, Some(error)) => Saved::Failed(error),
            (Some(file), None) => Saved::File(file.path().to_path_buf()),
            (None, None) => Saved::Nothing,
        };
        Captured {
            tail,
            cut,
            saved,
            preview: preview(&text),
        }
    }

    /// Moves the in-memory output to a new saved file; later chunks are appended there.
    fn spill(&mut self) {
        let Some(whole) = self.whole.take() else {
            return;
        };
        let result = self.truncate.create_file().and_then(|mut file| {
            file.append(&whole)?;
            Ok(file)
        });
        match result {
            Ok(file) => self.file = Some(file),
            Err(e) => self.fail(e.to_string()),
        }
    }

    /// Saving broke: stop writing, keep the ring, and tell the model later.
    fn fail(&mut self, error: String) {
        tracing::warn!(%error, "bash output could not be saved in full");
        self.file = None;
        self.whole = None;
        self.save_error.get_or_insert(error);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_services::clock::Clock;

    fn truncate(dir: &std::path::Path) -> Truncate {
        Truncate::new(dir.to_path_buf(), Clock::live())
    }

    fn limits(max_lines: usize, max_bytes: usize) -> Limits {
        Limits {
            max_lines,
            max_bytes,
        }
    }

    fn files(dir: &std::path::Path) -> usize {
        std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0)
    }

    #[test]
    fn small_output_stays_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = Capture::new(truncate(dir.path()), limits(10, 100));
        c.push(b"hello\n");
        c.push(b"world\n");
        assert_eq!(c.preview(), "hello\nworld\n");
        let done = c.finish();
        assert_eq!(done.tail, "hello\nworld\n");
        assert!(!done.cut);
        assert_eq!(done.saved, Saved::Nothing);
        assert_eq!(files(dir.path()), 0);
    }

    #[test]
    fn too_many_lines_are_saved_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = Capture::new(truncate(dir.path()), limits(3, 1000));
        c.push(b"1\n2\n3\n4\n5");
        let done = c.finish();
        assert!(done.cut);
        assert_eq!(done.tail, "3\n4\n5");
        let Saved::File(path) = done.saved else {
            panic!("expected a saved file, got {:?}", done.saved)
        };
        assert_eq!(std::fs::read_to_string(path).unwrap(), "1\n2\n3\n4\n5");
    }

    #[test]
    fn big_output_spills_and_the_file_is_complete() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = Capture::new(truncate(dir.path()), limits(5, 64));
        let mut all = String::new();
        for i in 0..1000 {
            let line = format!("line {i}\n");
            all.push_str(&line);
            c.push(line.as_bytes());
        }
        assert_eq!(files(dir.path()), 1, "one file, created once");
        let done = c.finish();
        assert!(done.cut);
        assert!(done.tail.ends_with("line 999\n"), "{}", done.tail);
        let Saved::File(path) = done.saved else {
            panic!("expected a saved file")
        };
        assert_eq!(std::fs::read_to_string(path).unwrap(), all);
    }

    #[test]
    fn a_failed_save_is_reported_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        // A file where the output directory should be: creating it fails.
        let blocked = dir.path().join("blocked");
        std::fs::write(&blocked, "").unwrap();
        let mut c = Capture::new(truncate(&blocked), limits(5, 16));
        c.push(b"0123456789abcdef0123456789\n");
        c.push(b"more\n");
        let done = c.finish();
        assert!(done.cut);
        assert!(
            matches!(done.saved, Saved::Failed(ref m) if m.contains("blocked")),
            "{:?}",
            done.saved
        );
        assert!(done.tail.ends_with("more\n"));
    }
}
