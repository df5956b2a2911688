//! Saved-output files: their time-ordered names, the append-only file handed to `bash`, and the
//! removal of old files.
//!
//! A name is `tool_` + 12 hex digits of `(ms timestamp * 4096 + counter)` (low 48 bits) + 14
//! random base62 characters, so names sort by time and carry their creation time. The 48 bits
//! hold the timestamp modulo 2^36 ms (about 795 days); ages are computed with that wrap-around.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rand::Rng;

use super::TruncateError;

/// Prefix of every saved-output file.
pub const PREFIX: &str = "tool_";

const ID_BITS: u32 = 48;
const COUNTER_BITS: u32 = 12;
const TS_MODULUS: u64 = 1 << (ID_BITS - COUNTER_BITS);
const RANDOM_LEN: usize = 14;

/// Makes time-ordered ids: a counter separates ids made in the same millisecond.
#[derive(Debug, Default)]
pub(super) struct IdGen {
    last_ms: u64,
    counter: u64,
}

impl IdGen {
    pub(super) fn next_name(&mut self, now_ms: u64) -> String {
        if now_ms != self.last_ms {
            self.last_ms = now_ms;
            self.counter = 0;
        }
        self.counter += 1;
        let id = now_ms
            .wrapping_mul(1 << COUNTER_BITS)
            .wrapping_add(self.counter)
            & ((1 << ID_BITS) - 1);
        let random: String = rand::rng()
            .sample_iter(rand::distr::Alphanumeric)
            .take(RANDOM_LEN)
            .map(char::from)
            .collect();
        format!("{PREFIX}{id:012x}{random}")
    }
}

/// The creation time embedded in a file name, in ms modulo 2^36 (see the module docs).
pub fn name_timestamp_ms(name: &str) -> Option<u64> {
    let hex = name.strip_prefix(PREFIX)?.get(..12)?;
    let id = u64::from_str_radix(hex, 16).ok()?;
    Some(id >> COUNTER_BITS)
}

/// How old the file named `name` is at `now_ms`. `None` for names without a timestamp and for
/// timestamps that lie ahead of `now_ms` (clock skew), which must never look ancient.
pub fn age(name: &str, now_ms: u64) -> Option<Duration> {
    let then = name_timestamp_ms(name)?;
    let age = (now_ms % TS_MODULUS).wrapping_sub(then) % TS_MODULUS;
    (age < TS_MODULUS / 2).then(|| Duration::from_millis(age))
}

/// A new saved-output file, open for appending. The `bash` tool streams its output into it.
#[derive(Debug)]
pub struct OutputFile {
    file: File,
    path: PathBuf,
}

impl OutputFile {
    pub(super) fn create(path: PathBuf) -> Result<Self, TruncateError> {
        let file = std::fs::OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(&path)
            .map_err(|source| TruncateError::io("create", &path, source))?;
        Ok(Self { file, path })
    }

    /// Appends `bytes` at the end of the file.
    pub fn append(&mut self, bytes: &[u8]) -> Result<(), TruncateError> {
        self.file
            .write_all(bytes)
            .map_err(|source| TruncateError::io("append to", &self.path, source))
    }

    /// The absolute path of the file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Writes `text` to `path` whole or not at all (temp file in the same folder, then rename).
pub(super) fn write_atomic(dir: &Path, path: &Path, text: &str) -> Result<(), TruncateError> {
    let mut tmp = tempfile::Builder::new()
        .prefix(".partial-")
        .tempfile_in(dir)
        .map_err(|source| TruncateError::io("create a temporary file in", dir, source))?;
    tmp.write_all(text.as_bytes())
        .map_err(|source| TruncateError::io("write", tmp.path(), source))?;
    tmp.persist_noclobber(path)
        .map_err(|e| TruncateError::io("save", path, e.error))?;
    Ok(())
}

/// Deletes `tool_*` entries of `dir` older than `max_age`; returns how many went. Errors are
/// logged and skipped: cleanup must never disturb the tools.
pub(super) fn remove_older_than(dir: &Path, now_ms: u64, max_age: Duration) -> usize {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return 0,
        Err(e) => {
            tracing::warn!(dir = %dir.display(), error = %e, "tool output cleanup: cannot list");
            return 0;
        }
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if age(name, now_ms).is_none_or(|a| a <= max_age) {
            continue;
        }
        let path = entry.path();
        let result = match entry.file_type() {
            Ok(t) if t.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
        match result {
            Ok(()) => removed += 1,
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "tool output cleanup: cannot delete")
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_have_the_documented_shape_and_sort_by_time() {
        let mut ids = IdGen::default();
        let a = ids.next_name(1_700_000_000_000);
        let b = ids.next_name(1_700_000_000_000);
        let c = ids.next_name(1_700_000_000_001);
        for n in [&a, &b, &c] {
            assert_eq!(n.len(), PREFIX.len() + 12 + RANDOM_LEN, "{n}");
            assert!(n[5..17].chars().all(|ch| ch.is_ascii_hexdigit()), "{n}");
            assert!(n[17..].chars().all(|ch| ch.is_ascii_alphanumeric()), "{n}");
        }
        assert!(a[..17] < b[..17] && b[..17] < c[..17]);
        assert_eq!(name_timestamp_ms(&a), Some(1_700_000_000_000 % TS_MODULUS));
        assert_eq!(name_timestamp_ms(&c), Some(1_700_000_000_001 % TS_MODULUS));
    }

    #[test]
    fn age_handles_wrap_and_skew() {
        let mut ids = IdGen::default();
        let day = 86_400_000;
        // Created just before the 36-bit timestamp wraps, checked just after.
        let t = TS_MODULUS * 25 - day;
        let name = ids.next_name(t);
        assert_eq!(
            age(&name, t + 8 * day),
            Some(Duration::from_millis(8 * day))
        );
        // A file from the future is never "old".
        assert_eq!(age(&name, t - 1000), None);
        assert_eq!(age("tool_zz", t), None);
        assert_eq!(age("other_0123456789ab", t), None);
    }
}
