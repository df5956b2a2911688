//! The one decoder of server-sent events (`text/event-stream`) in the house: the model
//! providers' streams, the server's event stream as the TUI and `strata run --attach` read it,
//! and the search endpoint's answers. A pure byte-to-event codec: bytes arrive in arbitrary
//! chunks, complete events come out.
//!
//! Follows the WHATWG rules that matter here: lines end in `\n`, `\r\n` or `\r`; a blank line
//! dispatches the event; `data:` lines are joined with `\n`; one space after the colon is
//! dropped; lines starting with `:` are comments; `retry` is ignored. An event's `id:` is kept
//! with that event only (a client that resumes keeps the last one it saw). An event not
//! followed by a blank line when a stream ends is discarded, as the spec says; a caller that
//! holds a whole body may take it with [`SseParser::finish`].

/// One dispatched event: its `event:` name and `id:` (if any) and its joined `data:` lines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    pub event: Option<String>,
    pub id: Option<String>,
    pub data: String,
}

/// Incremental parser state; feed it with [`SseParser::push`].
#[derive(Debug, Default)]
pub struct SseParser {
    buf: Vec<u8>,
    event: Option<String>,
    id: Option<String>,
    data: Option<String>,
    started: bool,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a chunk of the body and returns the events it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        self.buf.extend_from_slice(chunk);
        if !self.started {
            // A UTF-8 byte-order mark may open the stream; wait until we can tell.
            if self.buf.len() < 3 && b"\xEF\xBB\xBF".starts_with(&self.buf) {
                return Vec::new();
            }
            if self.buf.starts_with(b"\xEF\xBB\xBF") {
                self.buf.drain(..3);
            }
            self.started = true;
        }
        let mut out = Vec::new();
        let mut start = 0;
        let mut i = 0;
        while i < self.buf.len() {
            let (line_end, next) = match self.buf[i] {
                b'\n' => (i, i + 1),
                b'\r' => {
                    // A `\r` at the end of the buffer may be the first half of `\r\n`.
                    if i + 1 == self.buf.len() {
                        break;
                    }
                    if self.buf[i + 1] == b'\n' {
                        (i, i + 2)
                    } else {
                        (i, i + 1)
                    }
                }
                _ => {
                    i += 1;
                    continue;
                }
            };
            let line = String::from_utf8_lossy(&self.buf[start..line_end]).into_owned();
            if let Some(ev) = self.line(&line) {
                out.push(ev);
            }
            start = next;
            i = next;
        }
        self.buf.drain(..start);
        out
    }

    /// The end of a whole body: the last line and event even without the blank line that
    /// would dispatch it.
    pub fn finish(mut self) -> Option<SseEvent> {
        let rest = String::from_utf8_lossy(&self.buf).into_owned();
        let rest = rest.strip_suffix('\r').unwrap_or(&rest).to_string();
        if let Some(ev) = self.line(&rest) {
            return Some(ev);
        }
        self.line("")
    }

    fn line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            let event = self.event.take();
            let id = self.id.take();
            let data = self.data.take()?;
            return Some(SseEvent { event, id, data });
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            "event" => self.event = Some(value.to_string()),
            "id" => self.id = Some(value.to_string()),
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(event: Option<&str>, data: &str) -> SseEvent {
        SseEvent {
            event: event.map(str::to_string),
            id: None,
            data: data.to_string(),
        }
    }

    fn parse_all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut p = SseParser::new();
        chunks.iter().flat_map(|c| p.push(c)).collect()
    }

    #[test]
    fn parses_data_events_and_named_events() {
        let text = b"data: {\"a\":1}\n\nevent: message_start\ndata: {\"b\":2}\n\ndata: [DONE]\n\n";
        assert_eq!(
            parse_all(&[text]),
            vec![
                ev(None, "{\"a\":1}"),
                ev(Some("message_start"), "{\"b\":2}"),
                ev(None, "[DONE]"),
            ]
        );
    }

    #[test]
    fn any_chunking_gives_the_same_events() {
        let text: &[u8] = b"event: x\r\ndata: one\r\ndata:two\r\n\r\n: comment\n\ndata: \xC3\xA9t\xC3\xA9\r\rdata: last\n\n";
        let whole = parse_all(&[text]);
        assert_eq!(
            whole,
            vec![ev(Some("x"), "one\ntwo"), ev(None, "été"), ev(None, "last")]
        );
        for size in 1..text.len() {
            let chunks: Vec<&[u8]> = text.chunks(size).collect();
            assert_eq!(parse_all(&chunks), whole, "chunk size {size}");
        }
    }

    #[test]
    fn comments_and_empty_blocks_dispatch_nothing() {
        let got = parse_all(&[b": ping\n\nid: 7\nretry: 10\n\nevent: lonely\n\n"]);
        assert!(got.is_empty(), "{got:?}");
    }

    #[test]
    fn an_id_belongs_to_its_own_event_only() {
        let got = parse_all(&[
            b": hi\n\nid: 4\nda",
            b"ta: {\"a\":1}\n\ndata: x\r\ndata: y\r\n\r\n",
        ]);
        assert_eq!(got[0].id.as_deref(), Some("4"));
        assert_eq!(got[0].data, "{\"a\":1}");
        assert_eq!(got[1], ev(None, "x\ny"));
    }

    #[test]
    fn finish_takes_the_last_event_of_a_whole_body() {
        let mut p = SseParser::new();
        assert_eq!(p.push(b"data: a\n\ndata: b\r"), vec![ev(None, "a")]);
        assert_eq!(p.finish(), Some(ev(None, "b")));
        let mut p = SseParser::new();
        assert!(p.push(b"data: whole").is_empty());
        assert_eq!(p.finish(), Some(ev(None, "whole")));
        assert_eq!(SseParser::new().finish(), None);
    }

    #[test]
    fn an_unterminated_event_is_not_dispatched_and_a_bom_is_skipped() {
        let got = parse_all(&[b"\xEF\xBB", b"\xBFdata: a\n\ndata: partial"]);
        assert_eq!(got, vec![ev(None, "a")]);
    }

    #[test]
    fn a_field_without_colon_and_a_value_without_space() {
        let got = parse_all(&[b"data\ndata:x\n\n"]);
        assert_eq!(got, vec![ev(None, "\nx")]);
    }
}
