//! The ACP agent's JSON-RPC reader (`strata acp`): editor bytes, cut in two, through the real
//! agent on its real line transport (`strata_acp::serve`) over an in-memory pipe, on a server
//! core over temporary folders.
//!
//! Property: however the bytes are cut, a request that follows them on its own line is still
//! answered (no malformed line, not even one that is not UTF-8, stops the reader), every line
//! the agent writes is a JSON-RPC 2.0 object, and nothing panics or hangs.
//!
//! Inputs that could make the agent start outside programs or work outside the fixture are
//! skipped: a non-empty MCP server list (the editor's stdio servers are spawned), any
//! backslash (so no escape can spell those keys or a path), and a `cwd` other than
//! `"@project"`, which stands for the fixture's project folder.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;
use strata_server::ServerCore;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// The handshake the harness makes before each input, as an editor would.
pub const INIT: &str = r#"{"jsonrpc":"2.0","id":"fuzz-init","method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false}}}"#;

/// The request every input ends with; its answer shows the reader is still going.
pub const LAST: &str = r#"{"jsonrpc":"2.0","id":"fuzz-last","method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#;

/// How long one input may keep the agent busy before it counts as a hang.
const WAIT: Duration = Duration::from_secs(8);

struct Fixture {
    runtime: tokio::runtime::Runtime,
    core: ServerCore,
    project: PathBuf,
    _root: tempfile::TempDir,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let runtime = crate::core::runtime();
        let root = tempfile::Builder::new()
            .prefix("strata-fuzz-acp-")
            .tempdir()
            .unwrap_or_else(|e| crate::core::fail("temp dir", e));
        let (core, project) = runtime.block_on(crate::core::start(root.path()));
        Fixture {
            runtime,
            core,
            project,
            _root: root,
        }
    })
}

/// Whether the input may run: no escapes, every `cwd` the placeholder, every MCP server list
/// empty.
pub fn admissible(text: &[u8]) -> bool {
    !text.contains(&b'\\')
        && every_value_is(text, b"\"cwd\"", b"\"@project\"")
        && every_value_is(text, b"mcpServers\"", b"[]")
}

/// Whether each occurrence of `key` is followed by `:` and `value` (blanks allowed around the
/// colon); a key without a value fails.
fn every_value_is(text: &[u8], key: &[u8], value: &[u8]) -> bool {
    let mut rest = text;
    while let Some(at) = rest.windows(key.len()).position(|w| w == key) {
        let after = &rest[at + key.len()..];
        let Some(v) = after.trim_ascii_start().strip_prefix(b":") else {
            return false;
        };
        if !v.trim_ascii_start().starts_with(value) {
            return false;
        }
        rest = after;
    }
    true
}

/// What the agent wrote, line by line, and whether it answered [`LAST`].
#[derive(Debug)]
pub struct Outcome {
    pub lines: Vec<String>,
    pub answered: bool,
}

/// Feeds the two pieces and [`LAST`] to a fresh connection; reads until [`LAST`] is answered,
/// the agent closes its side, or [`WAIT`] runs out (`None`).
pub fn drive(first: &[u8], second: &[u8]) -> Option<Outcome> {
    exchange(first, second, &Value::from("fuzz-last"))
}

/// [`drive`], reading until the answer to request `id`.
fn exchange(first: &[u8], second: &[u8], id: &Value) -> Option<Outcome> {
    let f = fixture();
    let project = serde_json::to_string(&f.project.display().to_string()).unwrap_or_default();
    let swap = |b: &[u8]| String::from_utf8_lossy(b).replace("\"@project\"", &project);
    let utf8 = std::str::from_utf8(first).is_ok() && std::str::from_utf8(second).is_ok();
    let pieces: Vec<Vec<u8>> = if utf8 {
        vec![swap(first).into_bytes(), swap(second).into_bytes()]
    } else {
        vec![first.to_vec(), second.to_vec()]
    };
    let core = f.core.clone();
    let id = id.clone();
    f.runtime.block_on(async move {
        let (editor, agent_side) = tokio::io::duplex(1 << 16);
        let (agent_in, agent_out) = tokio::io::split(agent_side);
        let agent = tokio::spawn(strata_acp::serve(core, agent_in, agent_out));
        let (read, mut write) = tokio::io::split(editor);
        let talk = async move {
            let mut lines = BufReader::new(read).lines();
            let mut out = Vec::new();
            // As an editor does, the harness waits for the handshake's answer, so the input's
            // own session requests reach the agent's handlers.
            write.write_all(format!("{INIT}\n").as_bytes()).await.ok()?;
            if !read_until(&mut lines, &mut out, &Value::from("fuzz-init")).await {
                return Some(Outcome {
                    lines: out,
                    answered: false,
                });
            }
            for p in &pieces {
                write.write_all(p).await.ok()?;
            }
            write
                .write_all(format!("\n{LAST}\n").as_bytes())
                .await
                .ok()?;
            let answered = read_until(&mut lines, &mut out, &id).await;
            Some(Outcome {
                lines: out,
                answered,
            })
        };
        let outcome = tokio::time::timeout(WAIT, talk).await.ok().flatten();
        agent.abort();
        outcome
    })
}

/// Reads lines into `out` until the answer to request `id`; false when the agent closed first.
async fn read_until<R>(lines: &mut tokio::io::Lines<R>, out: &mut Vec<String>, id: &Value) -> bool
where
    R: tokio::io::AsyncBufRead + Unpin,
{
    while let Ok(Some(line)) = lines.next_line().await {
        let done = serde_json::from_str::<Value>(&line).is_ok_and(|v| &v["id"] == id);
        out.push(line);
        if done {
            return true;
        }
    }
    false
}

/// The property for one input: first byte the cut, the rest the editor's bytes.
pub fn check(cut: usize, bytes: &[u8]) {
    if !admissible(bytes) {
        return;
    }
    let outcome = drive(&bytes[..cut], &bytes[cut..]);
    let text = String::from_utf8_lossy(bytes);
    let Some(outcome) = outcome else {
        panic!("the agent neither answered nor closed within {WAIT:?} after {text:?}");
    };
    for line in &outcome.lines {
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("the agent wrote a line that is not JSON ({e}): {line}"));
        assert_eq!(v["jsonrpc"], "2.0", "not JSON-RPC 2.0: {line}");
    }
    assert!(
        outcome.answered,
        "a request after {text:?} (cut at {cut}) was not answered; the agent wrote {:?}",
        outcome.lines
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_inputs_are_skipped() {
        assert!(admissible(
            br#"{"method":"session/new","params":{"cwd":"@project"}}"#
        ));
        assert!(admissible(br#"{"cwd" : "@project", "x": 1}"#));
        assert!(!admissible(br#"{"params":{"cwd":"/usr"}}"#));
        assert!(admissible(
            br#"{"params":{"cwd":"@project","mcpServers":[]}}"#
        ));
        assert!(!admissible(
            br#"{"params":{"cwd":"@project","mcpServers":[{}]}}"#
        ));
        assert!(!admissible(br#"{"params":{"c\u0077d":"/"}}"#));
        assert!(!admissible(br#"{"cwd"}"#));
    }

    #[test]
    fn garbage_then_a_request_is_answered() {
        check(
            3,
            b"not json\n[]\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"nope\"}",
        );
        check(0, br#"{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"@project","mcpServers":[]}}"#);
    }

    /// Found by this target: a byte that is not UTF-8 made the SDK's byte transport fail its
    /// read, and the editor waited for answers that never came.
    #[test]
    fn a_line_that_is_not_utf8_is_answered_and_reading_goes_on() {
        check(
            5,
            b"{\"jsonrpc\":\"2.0\",\"id\":\"x\xff\",\"method\":\"initialize\"}",
        );
        check(0, b"\xfe\xff\n");
    }

    #[test]
    fn a_new_session_is_answered_with_its_id() {
        let new = br#"{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"@project","mcpServers":[]}}"#;
        // The harness has made the handshake before the input, as an editor does.
        let out = exchange(new, b"", &Value::from(7)).unwrap();
        assert!(out.answered);
        let answer = out
            .lines
            .iter()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|v| v["id"] == 7)
            .unwrap();
        assert!(answer["result"]["sessionId"].is_string(), "{answer}");
    }
}
