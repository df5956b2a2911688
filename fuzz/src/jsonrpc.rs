//! The MCP JSON-RPC readers over stdio, fed bytes in pieces.
//!
//! - The client's: the line filter in front of a local server's stdout
//!   ([`StdoutLines`]), then the SDK's client transport, as `mcp::connect` wires them. Its
//!   contract: whole lines that are blank or JSON pass unchanged; the first other line stops
//!   the stream and is reported (the client fails with it).
//! - The server's (`strata mcp`): the SDK's server transport over stdin. Its contract: a line
//!   that is not JSON is skipped, a JSON line that is not a message is answered with an error,
//!   and reading goes on either way.
//!
//! Both must read the same messages however the bytes are cut.

use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};

use rmcp::service::{RoleClient, RoleServer, ServiceRole};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::Value;
use strata_services::mcp::StdoutLines;
use tokio::io::{AsyncRead, ReadBuf};

/// A reader that hands out its pieces one read at a time, so every cut reaches the reader.
#[derive(Debug)]
pub struct Pieces {
    pieces: Vec<Vec<u8>>,
    next: usize,
    offset: usize,
}

impl Pieces {
    pub fn new(pieces: Vec<Vec<u8>>) -> Self {
        Pieces {
            pieces,
            next: 0,
            offset: 0,
        }
    }
}

impl AsyncRead for Pieces {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        while self.next < self.pieces.len() {
            let (next, offset) = (self.next, self.offset);
            let rest = &self.pieces[next][offset..];
            if rest.is_empty() {
                self.next += 1;
                self.offset = 0;
                continue;
            }
            let n = rest.len().min(buf.remaining());
            buf.put_slice(&rest[..n]);
            self.offset += n;
            break;
        }
        Poll::Ready(Ok(()))
    }
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap_or_else(|e| panic!("a current-thread runtime: {e}"))
    })
}

/// Every message the SDK's transport for `Role` reads from `pieces`, as JSON.
pub fn sdk_read<Role: ServiceRole>(pieces: Vec<Vec<u8>>) -> Vec<Value> {
    runtime().block_on(async move {
        let mut t = AsyncRwTransport::<Role, _, _>::new(Pieces::new(pieces), tokio::io::sink());
        let mut out = Vec::new();
        while let Some(m) = t.receive().await {
            out.push(serde_json::to_value(&m).unwrap_or_else(|e| panic!("re-encoding {e}")));
        }
        out
    })
}

/// What the client's line filter lets through of `pieces`, and the line that stopped it.
pub fn filter(pieces: &[&[u8]]) -> (Vec<u8>, Option<String>) {
    let mut lines = StdoutLines::default();
    let mut passed = Vec::new();
    for piece in pieces {
        let (mut p, bad) = lines.push(piece);
        passed.append(&mut p);
        if bad.is_some() {
            return (passed, bad);
        }
    }
    (passed, None)
}

/// A message any reader must deliver: it ends every input, on its own line.
pub const LAST: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// The client's reader: the same lines and the same stopping line however the bytes are cut;
/// what passes is a run of whole lines from the start of the input, each blank or JSON; and
/// the SDK reads the same messages from what passed, whole or cut.
pub fn check_client(cut: usize, bytes: &[u8]) {
    let whole = filter(&[bytes]);
    let split = filter(&[&bytes[..cut], &bytes[cut..]]);
    assert_eq!(whole, split, "cut at {cut}");
    let (passed, bad) = whole;
    assert!(bytes.starts_with(&passed));
    assert!(passed.is_empty() || passed.ends_with(b"\n"));
    for line in passed.split(|b| *b == b'\n') {
        let text = String::from_utf8_lossy(line);
        let text = text.trim();
        assert!(
            text.is_empty() || serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok(),
            "{text:?} passed"
        );
    }
    if bad.is_none() {
        // Only a partial last line may be held back.
        assert!(!bytes[passed.len()..].contains(&b'\n'));
    }
    let at = cut.min(passed.len());
    let messages = sdk_read::<RoleClient>(vec![passed.clone()]);
    let cut_messages = sdk_read::<RoleClient>(vec![passed[..at].to_vec(), passed[at..].to_vec()]);
    assert_eq!(messages, cut_messages, "cut at {at}");
}

/// The server's reader: the same messages however the bytes are cut, and no line, however
/// malformed, stops it: a message on the line after the input is always read, last.
pub fn check_server(cut: usize, bytes: &[u8]) {
    let tail = [b"\n", LAST, b"\n"].concat();
    let whole = sdk_read::<RoleServer>(vec![bytes.to_vec(), tail.clone()]);
    let split = sdk_read::<RoleServer>(vec![bytes[..cut].to_vec(), bytes[cut..].to_vec(), tail]);
    assert_eq!(whole, split, "cut at {cut}");
    let last: Value = serde_json::from_slice(LAST).unwrap_or_default();
    assert_eq!(
        whole.last(),
        Some(&last),
        "the reader stopped early: {whole:?}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_read_one_at_a_time() {
        let sent = [
            b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n".as_slice(),
            LAST,
            b"\n",
        ]
        .concat();
        let (a, b) = sent.split_at(7);
        let read = sdk_read::<RoleServer>(vec![a.to_vec(), b.to_vec()]);
        assert_eq!(read.len(), 2);
    }

    #[test]
    fn a_bad_line_is_skipped_by_the_server_and_stops_the_client() {
        let input = [b"not json\n{\"x\":1}\n".as_slice(), LAST, b"\n"].concat();
        check_server(3, &input);
        let (passed, bad) = filter(&[&input]);
        assert_eq!((passed.len(), bad.as_deref()), (0, Some("not json")));
        check_client(3, &input);
    }
}
