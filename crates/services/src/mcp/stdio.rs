//! The stdio of a local MCP server: its stdout as a byte stream for the MCP client, checked line
//! by line, and the tail of its stderr kept for error messages.
//!
//! A server that prints anything but JSON-RPC on stdout cannot be spoken to: the first such
//! line is remembered and the stream is ended, so the client fails at once with that reason.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncWriteExt, DuplexStream};
use tokio::sync::mpsc;

use crate::process::{Chunk, Pipe};

/// How much of stderr is kept for messages.
const STDERR_TAIL: usize = 2048;
/// Buffer between the pump and the MCP client.
const PIPE: usize = 64 * 1024;

/// What the server's output told us besides its messages.
#[derive(Default)]
pub(super) struct Diagnostics {
    stderr: Mutex<String>,
    garbage: Mutex<Option<String>>,
}

impl Diagnostics {
    /// The last lines the server wrote on stderr.
    pub(super) fn stderr_tail(&self) -> String {
        lock(&self.stderr).trim().to_string()
    }

    /// The first stdout line that was not a JSON-RPC message.
    pub(super) fn garbage(&self) -> Option<String> {
        lock(&self.garbage).clone()
    }

    fn push_stderr(&self, data: &[u8]) {
        let mut tail = lock(&self.stderr);
        tail.push_str(&String::from_utf8_lossy(data));
        if tail.len() > STDERR_TAIL {
            let mut cut = tail.len() - STDERR_TAIL;
            while !tail.is_char_boundary(cut) {
                cut += 1;
            }
            tail.drain(..cut);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Each value is replaced in one statement, so a poisoned lock still holds usable data.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts pumping `output` (the child's merged pipes): returns the stdout stream for the
/// client, the diagnostics, and the pump's handle (abort it to stop reading).
pub(super) fn split(
    output: mpsc::Receiver<Chunk>,
) -> (DuplexStream, Arc<Diagnostics>, tokio::task::AbortHandle) {
    let (writer, reader) = tokio::io::duplex(PIPE);
    let diag = Arc::new(Diagnostics::default());
    let pump = tokio::spawn(pump(output, writer, diag.clone())).abort_handle();
    (reader, diag, pump)
}

async fn pump(mut output: mpsc::Receiver<Chunk>, mut writer: DuplexStream, diag: Arc<Diagnostics>) {
    let mut lines = StdoutLines::default();
    while let Some(Chunk { stream, data }) = output.recv().await {
        if stream == Pipe::Stderr {
            tracing::debug!(stderr = %String::from_utf8_lossy(&data), "MCP server");
            diag.push_stderr(&data);
            continue;
        }
        let (passed, bad) = lines.push(&data);
        if !passed.is_empty() && writer.write_all(&passed).await.is_err() {
            return;
        }
        if let Some(bad) = bad {
            *lock(&diag.garbage) = Some(bad);
            // Ending the stream makes the client fail now rather than wait for a timeout.
            return;
        }
    }
}

/// The server's stdout cut into lines: whole lines that are blank or JSON pass on unchanged,
/// a partial line waits for the rest, and the first other line stops everything (a server
/// that prints anything but JSON-RPC cannot be spoken to).
#[derive(Debug, Default)]
pub struct StdoutLines {
    line: Vec<u8>,
    stopped: bool,
}

impl StdoutLines {
    /// Takes the next chunk of stdout: returns the bytes of the message lines it completes,
    /// and the first line (shortened) that is not a message, after which nothing passes.
    pub fn push(&mut self, data: &[u8]) -> (Vec<u8>, Option<String>) {
        let mut passed = Vec::new();
        if self.stopped {
            return (passed, None);
        }
        for piece in data.split_inclusive(|b| *b == b'\n') {
            self.line.extend_from_slice(piece);
            if self.line.last() != Some(&b'\n') {
                continue;
            }
            if let Some(bad) = not_a_message(&self.line) {
                self.stopped = true;
                self.line.clear();
                return (passed, Some(bad));
            }
            passed.append(&mut self.line);
        }
        (passed, None)
    }
}

/// The line, shortened, when it is neither blank nor a JSON object or array.
fn not_a_message(line: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(line);
    let text = text.trim();
    if text.is_empty()
        || serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
            && (text.starts_with('{') || text.starts_with('['))
    {
        return None;
    }
    Some(text.chars().take(120).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_json_lines_pass() {
        assert_eq!(not_a_message(b"{\"jsonrpc\":\"2.0\"}\n"), None);
        assert_eq!(not_a_message(b"  \n"), None);
        assert_eq!(
            not_a_message(b"Server started!\n").as_deref(),
            Some("Server started!")
        );
        assert!(not_a_message(b"42\n").is_some());
    }

    #[test]
    fn lines_pass_whole_and_the_first_bad_one_stops_the_stream() {
        let mut lines = StdoutLines::default();
        assert_eq!(
            lines.push(b"{\"a\":1}\n{\"b\""),
            (b"{\"a\":1}\n".to_vec(), None)
        );
        assert_eq!(lines.push(b":2}\n\n"), (b"{\"b\":2}\n\n".to_vec(), None));
        let (passed, bad) = lines.push(b"[1]\nhello\n{}\n");
        assert_eq!((passed, bad.as_deref()), (b"[1]\n".to_vec(), Some("hello")));
        assert_eq!(lines.push(b"{}\n"), (vec![], None));
    }
}
