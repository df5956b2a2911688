//! The log file: `<data dir>/log/strata.log`, rotated by size. When it passes
//! [`MAX_BYTES`] it becomes `strata.log.1` (older ones shift up) and at most [`KEEP`] old
//! files are kept. Several processes may append to it; each line is one `write` in append
//! mode, so lines do not interleave.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use tracing_subscriber::fmt::MakeWriter;

/// Size at which the file is rotated.
pub(crate) const MAX_BYTES: u64 = 5 * 1024 * 1024;
/// Old files kept beside the current one.
pub(crate) const KEEP: usize = 3;
/// The current file's name inside the log folder.
pub(crate) const FILE_NAME: &str = "strata.log";

/// A size-rotated log file, shared by the threads of this process.
#[derive(Debug)]
pub(crate) struct RotatingFile {
    path: PathBuf,
    max_bytes: u64,
    keep: usize,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    file: File,
    /// Bytes in the file as far as this process knows (its size at open plus our writes).
    size: u64,
}

fn open_append(path: &Path) -> io::Result<(File, u64)> {
    let file = OpenOptions::new().create(true).append(true).open(path)?;
    let size = file.metadata()?.len();
    Ok((file, size))
}

impl RotatingFile {
    /// Opens (creating the folder and file) `dir/strata.log`.
    pub(crate) fn open(dir: &Path, max_bytes: u64, keep: usize) -> io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(FILE_NAME);
        let (file, size) = open_append(&path)?;
        Ok(Self {
            path,
            max_bytes,
            keep,
            state: Mutex::new(State { file, size }),
        })
    }

    fn numbered(&self, n: usize) -> PathBuf {
        let mut name = self.path.as_os_str().to_owned();
        name.push(format!(".{n}"));
        PathBuf::from(name)
    }

    /// `strata.log.N` → `.N+1` (the oldest dropped), the current file → `.1`, a fresh file.
    fn rotate(&self, state: &mut State) -> io::Result<()> {
        let _ = std::fs::remove_file(self.numbered(self.keep));
        for n in (1..self.keep).rev() {
            let _ = std::fs::rename(self.numbered(n), self.numbered(n + 1));
        }
        if self.keep > 0 {
            std::fs::rename(&self.path, self.numbered(1))?;
        } else {
            std::fs::remove_file(&self.path)?;
        }
        let (file, size) = open_append(&self.path)?;
        *state = State { file, size };
        Ok(())
    }
}

impl Write for &RotatingFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.size > 0 && state.size + buf.len() as u64 > self.max_bytes {
            // A failed rotation keeps writing to the current file rather than losing the line.
            let _ = self.rotate(&mut state);
        }
        state.file.write_all(buf)?;
        state.size += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.file.flush()
    }
}

impl<'a> MakeWriter<'a> for RotatingFile {
    type Writer = &'a RotatingFile;

    fn make_writer(&'a self) -> Self::Writer {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_rotates_past_the_limit_and_keeps_a_few_old_ones() {
        let dir = tempfile::tempdir().unwrap();
        let log = RotatingFile::open(dir.path(), 100, 2).unwrap();
        let line = [b'x'; 39];
        for i in 0..12u8 {
            let mut l = line.to_vec();
            l[0] = b'a' + i;
            l.push(b'\n');
            (&log).write_all(&l).unwrap();
        }
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["strata.log", "strata.log.1", "strata.log.2"]);
        let size = |n: &str| std::fs::metadata(dir.path().join(n)).unwrap().len();
        assert!(names.iter().all(|n| size(n) <= 100), "{names:?}");
        // Two lines per file: the newest lines are in the current file.
        let current = std::fs::read_to_string(dir.path().join("strata.log")).unwrap();
        assert!(
            current.starts_with('k') && current.contains("\nl"),
            "{current}"
        );
        let oldest = std::fs::read_to_string(dir.path().join("strata.log.2")).unwrap();
        assert!(oldest.starts_with('g'), "{oldest}");
    }
}
