//! Server-sent events framing: bytes in, `{id?, data}` frames out. Comments (`:`) and
//! `event:` lines are skipped; several `data:` lines join with `\n`; `\r\n` endings work too.

/// One SSE frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The `id:` line, the cursor to resume from.
    pub id: Option<String>,
    pub data: String,
}

/// Incremental parser: feed chunks as they arrive, take whole frames out.
#[derive(Debug, Default)]
pub struct FrameParser {
    buf: Vec<u8>,
}

impl FrameParser {
    /// Adds `chunk` and returns the frames it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<Frame> {
        self.buf.extend_from_slice(chunk);
        let mut frames = vec![];
        while let Some((end, sep)) = boundary(&self.buf) {
            let block: Vec<u8> = self.buf.drain(..end + sep).take(end).collect();
            if let Some(f) = parse_block(&String::from_utf8_lossy(&block)) {
                frames.push(f);
            }
        }
        frames
    }
}

/// Where the first blank line is: (offset of the block's end, separator length).
fn boundary(buf: &[u8]) -> Option<(usize, usize)> {
    let mut i = 0;
    while i + 1 < buf.len() {
        if buf[i] == b'\n' {
            if buf[i + 1] == b'\n' {
                return Some((i, 2));
            }
            if buf[i + 1] == b'\r' && buf.get(i + 2) == Some(&b'\n') {
                return Some((i, 3));
            }
        }
        i += 1;
    }
    None
}

fn parse_block(block: &str) -> Option<Frame> {
    let mut id = None;
    let mut data: Vec<&str> = vec![];
    for line in block.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "data" => data.push(value),
            "id" => id = Some(value.to_string()),
            _ => {}
        }
    }
    (!data.is_empty()).then(|| Frame {
        id,
        data: data.join("\n"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_across_chunks_and_line_endings() {
        let mut p = FrameParser::default();
        assert!(p.push(b": hi\n\nid: 4\nda").is_empty());
        let f = p.push(b"ta: {\"a\":1}\n\ndata: x\r\ndata: y\r\n\r\n");
        assert_eq!(
            f,
            vec![
                Frame {
                    id: Some("4".into()),
                    data: "{\"a\":1}".into()
                },
                Frame {
                    id: None,
                    data: "x\ny".into()
                }
            ]
        );
    }
}
