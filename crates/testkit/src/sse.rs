//! Reading a server's event stream in a test: [`SseReader`] turns any body's byte stream into
//! `(cursor, item)` pairs with the house's SSE decoder, and waits for an item with a limit,
//! never a bare sleep.

use std::collections::VecDeque;
use std::pin::Pin;
use std::time::Duration;

use futures::{Stream, StreamExt};
use serde_json::Value;
use strata_protocol::sse::SseParser;

/// One item of the stream: its `id:` cursor (stored events have one) and its JSON data.
pub type Item = (Option<i64>, Value);

type Chunks = Pin<Box<dyn Stream<Item = Result<Vec<u8>, String>> + Send>>;

/// An event stream being read.
pub struct SseReader {
    chunks: Chunks,
    parser: SseParser,
    ready: VecDeque<Item>,
}

impl std::fmt::Debug for SseReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SseReader")
            .field("ready", &self.ready.len())
            .finish_non_exhaustive()
    }
}

impl SseReader {
    /// Reads `body`: a reqwest `bytes_stream()`, an axum `into_data_stream()`, or any stream
    /// of byte chunks.
    pub fn new<S, B, E>(body: S) -> Self
    where
        S: Stream<Item = Result<B, E>> + Send + 'static,
        B: AsRef<[u8]>,
        E: std::fmt::Display,
    {
        let chunks = body.map(|c| c.map(|b| b.as_ref().to_vec()).map_err(|e| e.to_string()));
        Self {
            chunks: Box::pin(chunks),
            parser: SseParser::new(),
            ready: VecDeque::new(),
        }
    }

    /// The next item, or `None` when the stream ended, failed, or nothing came within `limit`.
    /// Data that is not JSON panics: every item a server sends is JSON.
    pub async fn next(&mut self, limit: Duration) -> Option<Item> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(item);
            }
            let chunk = match tokio::time::timeout(limit, self.chunks.next()).await {
                Ok(Some(Ok(chunk))) => chunk,
                _ => return None,
            };
            for event in self.parser.push(&chunk) {
                let data = serde_json::from_str(&event.data)
                    .unwrap_or_else(|e| panic!("an item is not JSON ({e}): {:?}", event.data));
                let cursor = event.id.and_then(|id| id.parse().ok());
                self.ready.push_back((cursor, data));
            }
        }
    }

    /// Items until one satisfies `stop` (included); panics, showing what came, when the
    /// stream ends or stalls for `limit` first.
    pub async fn until(&mut self, limit: Duration, stop: impl Fn(&Value) -> bool) -> Vec<Item> {
        let mut out = Vec::new();
        loop {
            let Some(item) = self.next(limit).await else {
                panic!("the stream ended or stalled; got {out:#?}");
            };
            let done = stop(&item.1);
            out.push(item);
            if done {
                return out;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(chunks: &[&'static str]) -> SseReader {
        let owned: Vec<Result<&'static [u8], String>> =
            chunks.iter().map(|c| Ok(c.as_bytes())).collect();
        SseReader::new(futures::stream::iter(owned))
    }

    #[tokio::test]
    async fn items_come_with_their_cursor_across_chunks() {
        let mut r = reader(&[": hi\n\nid: 7\nda", "ta: {\"a\":1}\n\ndata: {\"b\":2}\n\n"]);
        let limit = Duration::from_secs(5);
        assert_eq!(
            r.next(limit).await,
            Some((Some(7), serde_json::json!({"a": 1})))
        );
        let rest = r.until(limit, |v| v["b"] == 2).await;
        assert_eq!(rest, vec![(None, serde_json::json!({"b": 2}))]);
        assert_eq!(r.next(limit).await, None, "the stream ended");
    }

    #[tokio::test]
    #[should_panic(expected = "the stream ended or stalled")]
    async fn until_panics_when_the_stream_ends_first() {
        reader(&["data: {\"a\":1}\n\n"])
            .until(Duration::from_secs(5), |v| v["a"] == 2)
            .await;
    }
}
