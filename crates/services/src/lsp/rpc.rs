//! JSON-RPC framing over a byte stream, as language servers speak it: each message is a
//! `Content-Length: N` header block, a blank line, then N bytes of JSON.

use serde_json::Value;

/// Frames one message.
pub fn encode(message: &Value) -> Vec<u8> {
    let body = message.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// The largest body a frame may announce: far above any real message (a whole project's
/// diagnostics), and low enough that a broken server cannot make the client buffer without end.
pub const MAX_BODY: usize = 256 * 1024 * 1024;

/// The longest header block: real ones are one or two short lines.
pub const MAX_HEADER: usize = 8 * 1024;

/// A frame that could not be read; the stream is out of step and should be dropped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("a message header has no valid Content-Length: {0:?}")]
    Header(String),
    #[error(
        "a message announces {0} bytes, over the {MAX_BODY} a language server may send at once"
    )]
    TooLarge(usize),
    #[error("a message body is not JSON: {0}")]
    Body(String),
}

/// Collects bytes as they arrive and yields whole messages.
#[derive(Debug, Default)]
pub struct Decoder {
    buf: Vec<u8>,
}

impl Decoder {
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete message, `Ok(None)` while one is still partial.
    pub fn next_message(&mut self) -> Result<Option<Value>, FrameError> {
        // The header ends within its cap or never: look no further (a body's bytes are not
        // searched again on every read while it arrives).
        let window = &self.buf[..self.buf.len().min(MAX_HEADER + 4)];
        let Some(end) = find(window, b"\r\n\r\n") else {
            if self.buf.len() >= MAX_HEADER + 4 {
                let start = String::from_utf8_lossy(&self.buf[..64]).into_owned();
                return Err(FrameError::Header(format!("{start}… (no end of header)")));
            }
            return Ok(None);
        };
        let header = String::from_utf8_lossy(&self.buf[..end]).into_owned();
        let length = header
            .lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
            .and_then(|(_, v)| v.trim().parse::<usize>().ok())
            .ok_or_else(|| FrameError::Header(header.clone()))?;
        if length > MAX_BODY {
            return Err(FrameError::TooLarge(length));
        }
        let start = end + 4;
        // Both are bounded (header and body caps), so the sum cannot overflow.
        let frame_end = start + length;
        if self.buf.len() < frame_end {
            return Ok(None);
        }
        let body: Vec<u8> = self.buf.drain(..frame_end).skip(start).collect();
        serde_json::from_slice(&body)
            .map(Some)
            .map_err(|e| FrameError::Body(e.to_string()))
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_message_round_trips_even_when_split_anywhere() {
        let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"é": "ü"}});
        let bytes = [encode(&msg), encode(&json!({"id": 2}))].concat();
        for cut in 0..bytes.len() {
            let mut d = Decoder::default();
            d.push(&bytes[..cut]);
            let mut got = Vec::new();
            while let Some(m) = d.next_message().unwrap() {
                got.push(m);
            }
            d.push(&bytes[cut..]);
            while let Some(m) = d.next_message().unwrap() {
                got.push(m);
            }
            assert_eq!(got, vec![msg.clone(), json!({"id": 2})], "cut at {cut}");
        }
    }

    #[test]
    fn the_length_counts_bytes_and_other_headers_are_ignored() {
        let body = r#"{"a":"ü"}"#;
        let mut d = Decoder::default();
        d.push(
            format!(
                "Content-Type: application/vscode-jsonrpc\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        );
        assert_eq!(d.next_message().unwrap(), Some(json!({"a": "ü"})));
        assert_eq!(d.next_message().unwrap(), None);
    }

    #[test]
    fn a_broken_frame_is_an_error() {
        let mut d = Decoder::default();
        d.push(b"Content-Length: x\r\n\r\n{}");
        assert!(matches!(d.next_message(), Err(FrameError::Header(_))));
        let mut d = Decoder::default();
        d.push(b"Content-Length: 3\r\n\r\n{x}");
        assert!(matches!(d.next_message(), Err(FrameError::Body(_))));
    }

    /// Found by the `lsp_frames` fuzz target: a length near `usize::MAX` overflowed the frame's
    /// end (a panic with overflow checks, a wrong slice without).
    #[test]
    fn a_huge_length_is_refused_and_an_endless_header_too() {
        let mut d = Decoder::default();
        d.push(b"Content-Length: 18446744073709551508\r\n\r\n{}");
        assert_eq!(
            d.next_message(),
            Err(FrameError::TooLarge(18446744073709551508))
        );
        let mut d = Decoder::default();
        d.push(format!("Content-Length: {}\r\n\r\n", MAX_BODY + 1).as_bytes());
        assert!(matches!(d.next_message(), Err(FrameError::TooLarge(_))));
        let mut d = Decoder::default();
        d.push(&vec![b'x'; MAX_HEADER + 4]);
        assert!(matches!(d.next_message(), Err(FrameError::Header(_))));
        // Within the cap, a header still arriving is waited for, and read once whole.
        let mut d = Decoder::default();
        // `Content-Length: 2` is 17 bytes: with the padding and `\r\n\r\n` the header
        // ends exactly at the cap.
        let padding = " ".repeat(MAX_HEADER - 17);
        d.push(format!("Content-Length: 2{padding}").as_bytes());
        assert_eq!(d.next_message(), Ok(None));
        d.push(b"\r\n\r\n{}");
        assert_eq!(d.next_message(), Ok(Some(serde_json::json!({}))));
    }
}
