//! The HTTP half shared by every provider: building the client, POSTing a request, turning a
//! non-success status into [`ProviderError::Http`], and driving a streamed SSE body through a
//! protocol's decoding ([`Wire::decode`]) and the shared end-of-stream rule
//! ([`DecodeState::end`]) while honouring the cancellation token.

use std::collections::VecDeque;
use std::marker::PhantomData;
use std::time::Duration;

use futures::StreamExt;
use reqwest::header::HeaderMap;
use tokio_util::sync::CancellationToken;

use super::EventStream;
use super::error::{ERROR_BODY_LIMIT, ProviderError, clip_body};
use super::sse::SseParser;
use super::stream_state::DecodeState;
use super::types::StreamEvent;
use super::wire::Wire;

/// How long to wait for a TCP/TLS connection to the model endpoint.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long to wait for the rest of an error body before giving up on it.
const ERROR_BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// Builds the reqwest client providers use (rustls with the ring provider).
pub fn build_client(url_for_errors: &str) -> Result<reqwest::Client, ProviderError> {
    // Installing twice is an error we do not care about: some provider is installed either way.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .build()
        .map_err(|e| ProviderError::Connect {
            url: url_for_errors.to_string(),
            detail: format!("could not build the HTTP client: {e}"),
        })
}

/// The wait a rate-limited or overloaded server asks for: `retry-after-ms` (milliseconds, as
/// OpenAI sends it), `retry-after` in whole seconds, else the vendors' own reset headers
/// (`x-ratelimit-reset-requests`/`-tokens` as Go-style durations such as `1m30s` or `250ms`,
/// from OpenAI, Groq and others), the longer of those two. An HTTP-date form is not used.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    if let Some(secs) = text("retry-after").and_then(|v| v.parse::<u64>().ok()) {
        return Some(Duration::from_secs(secs));
    }
    ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"]
        .iter()
        .filter_map(|h| text(h).and_then(go_duration))
        .max()
}

/// A Go-style duration (`6m0s`, `1.5s`, `20ms`, `2h`); a bare number is seconds.
fn go_duration(text: &str) -> Option<Duration> {
    if let Ok(secs) = text.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let mut total = 0.0;
    let mut rest = text;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|n| *n > 0)?;
        let value: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 0.001,
            "us" | "µs" => 0.000_001,
            "ns" => 0.000_000_001,
            _ => return None,
        };
        total += value * scale;
        rest = &rest[unit_len..];
    }
    (total.is_finite() && total >= 0.0).then(|| Duration::from_secs_f64(total))
}

/// Runs a whole SSE `body` through protocol `W`'s decoding as the stream driver does (tests of
/// decoders).
#[cfg(test)]
pub(crate) fn decode_all<W: Wire>(
    url: &str,
    body: &str,
) -> (Vec<StreamEvent>, Option<ProviderError>) {
    let mut state = DecodeState::new(url.to_string());
    let mut out = Vec::new();
    for ev in SseParser::new().push(body.as_bytes()) {
        if let Err(e) = W::decode(ev, &mut state, &mut out) {
            return (out, Some(e));
        }
        if state.done {
            break;
        }
    }
    let err = state.end(None, &mut out).err();
    (out, err)
}

/// POSTs `body` as JSON to `url` and returns the event stream decoded by protocol `W`.
pub(crate) async fn post_sse<W: Wire>(
    client: &reqwest::Client,
    url: String,
    headers: HeaderMap,
    body: serde_json::Value,
    cancel: CancellationToken,
) -> Result<EventStream, ProviderError> {
    let send = client
        .post(&url)
        .headers(headers)
        .header("accept", "text/event-stream")
        .json(&body)
        .send();
    let response = tokio::select! {
        biased;
        _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
        r = send => r.map_err(|e| ProviderError::Connect { url: url.clone(), detail: error_chain(&e) })?,
    };
    let status = response.status();
    if !status.is_success() {
        let retry_after = retry_after(response.headers());
        let body = read_error_body(response, &cancel).await?;
        return Err(ProviderError::Http {
            url,
            status: status.as_u16(),
            body,
            retry_after,
        });
    }
    let drive = Drive::<W, _> {
        body: response.bytes_stream().boxed(),
        parser: SseParser::new(),
        state: DecodeState::new(url),
        pending: VecDeque::new(),
        finished: false,
        cancel,
        wire: PhantomData,
    };
    Ok(futures::stream::unfold(drive, Drive::next).boxed())
}

struct Drive<W, S> {
    body: S,
    parser: SseParser,
    state: DecodeState,
    pending: VecDeque<Result<StreamEvent, ProviderError>>,
    finished: bool,
    cancel: CancellationToken,
    wire: PhantomData<fn() -> W>,
}

impl<W, S, B> Drive<W, S>
where
    W: Wire,
    S: futures::Stream<Item = Result<B, reqwest::Error>> + Unpin + Send,
    B: AsRef<[u8]>,
{
    async fn next(mut self) -> Option<(Result<StreamEvent, ProviderError>, Self)> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Some((item, self));
            }
            if self.finished {
                return None;
            }
            let chunk = tokio::select! {
                biased;
                _ = self.cancel.cancelled() => {
                    self.finished = true;
                    return Some((Err(ProviderError::Cancelled), self));
                }
                c = self.body.next() => c,
            };
            match chunk {
                Some(Ok(bytes)) => self.feed(bytes.as_ref()),
                Some(Err(e)) => self.end(Some(error_chain(&e))),
                None => self.end(None),
            }
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        for ev in self.parser.push(bytes) {
            let mut out = Vec::new();
            let result = W::decode(ev, &mut self.state, &mut out);
            self.pending.extend(out.into_iter().map(Ok));
            if let Err(e) = result {
                self.pending.push_back(Err(e));
                self.finished = true;
                return;
            }
            if self.state.done {
                self.end(None);
                return;
            }
        }
    }

    fn end(&mut self, broken: Option<String>) {
        let mut out = Vec::new();
        let result = self.state.end(broken, &mut out);
        self.pending.extend(out.into_iter().map(Ok));
        if let Err(e) = result {
            self.pending.push_back(Err(e));
        }
        self.finished = true;
    }
}

/// Reads at most [`ERROR_BODY_LIMIT`] bytes of an error response.
async fn read_error_body(
    response: reqwest::Response,
    cancel: &CancellationToken,
) -> Result<String, ProviderError> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    let read = async {
        while let Some(Ok(chunk)) = stream.next().await {
            body.extend_from_slice(chunk.as_ref());
            if body.len() > ERROR_BODY_LIMIT {
                break;
            }
        }
    };
    tokio::select! {
        biased;
        _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
        _ = tokio::time::timeout(ERROR_BODY_TIMEOUT, read) => {}
    }
    Ok(clip_body(String::from_utf8_lossy(&body).trim()))
}

/// The error with its sources, so "error sending request" also says "connection refused".
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let part = s.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn the_wait_a_server_asks_for_is_read_from_its_headers() {
        let wait = |pairs: &[(&'static str, &str)]| retry_after(&headers(pairs));
        assert_eq!(
            wait(&[("retry-after", "20")]),
            Some(Duration::from_secs(20))
        );
        assert_eq!(
            wait(&[("retry-after", " 3 ")]),
            Some(Duration::from_secs(3))
        );
        assert_eq!(
            wait(&[("retry-after-ms", "1500.5"), ("retry-after", "9")]),
            Some(Duration::from_micros(1_500_500)),
            "milliseconds win"
        );
        assert_eq!(
            wait(&[("retry-after-ms", "-1"), ("retry-after", "9")]),
            Some(Duration::from_secs(9))
        );
        assert_eq!(
            wait(&[("retry-after", "Wed, 21 Oct 2026 07:28:00 GMT")]),
            None
        );
        assert_eq!(wait(&[]), None);
        // The vendors' own reset headers, the longer of the two.
        assert_eq!(
            wait(&[
                ("x-ratelimit-reset-requests", "1m30s"),
                ("x-ratelimit-reset-tokens", "250ms")
            ]),
            Some(Duration::from_secs(90))
        );
        assert_eq!(
            wait(&[("x-ratelimit-reset-tokens", "7.66s")]),
            Some(Duration::from_millis(7660))
        );
        assert_eq!(
            wait(&[("retry-after", "2"), ("x-ratelimit-reset-tokens", "1m")]),
            Some(Duration::from_secs(2)),
            "retry-after wins"
        );
        assert_eq!(wait(&[("x-ratelimit-reset-tokens", "soon")]), None);
    }
}
