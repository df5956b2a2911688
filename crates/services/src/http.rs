//! The HttpClient service: reqwest over rustls with per-request timeouts, cancellation and a
//! size cap enforced while the body streams in.
//!
//! A non-success status is not an error: the caller gets the response and decides. Redirects
//! are followed up to [`MAX_REDIRECTS`]. Every error names the URL it was about. Streaming
//! callers take the inner [`reqwest::Client`] through [`HttpClient::client`].
//!
//! The client is built on first use, not when the graph is: building it reads every root
//! certificate of the system, which a command that never goes online (`strata tools`, a run
//! whose tools stay local) should not pay for.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{RequestBuilder, StatusCode};
use serde_json::Value;
use strata_graph::{BoxError, Node, Scope, Tier};
use tokio_util::sync::CancellationToken;

/// How many redirects one request follows before it fails.
pub const MAX_REDIRECTS: usize = 10;

/// Per-request settings.
#[derive(Debug, Clone, Default)]
pub struct RequestOptions {
    /// Limit for the whole exchange (connect, headers and body); `None` waits indefinitely.
    pub timeout: Option<Duration>,
    /// Largest body accepted, in bytes; `None` accepts any size. Checked against
    /// `Content-Length` and again while the body arrives, so a server that sends no length (or
    /// a wrong one) still cannot make the client hold more than this plus one network chunk.
    pub max_bytes: Option<usize>,
    /// Extra request headers (they replace the client's defaults, e.g. `User-Agent`).
    pub headers: Vec<(String, String)>,
    /// Stops the exchange when it fires (the connection is dropped).
    pub cancel: Option<CancellationToken>,
}

/// A fully read response.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
    /// The URL after redirects.
    pub final_url: String,
}

impl HttpResponse {
    /// The body as text, with invalid UTF-8 replaced.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// A header's value when present and valid text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// Why a request failed. A non-success status is not an error.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("could not build the HTTP client: {reason}; check the system's root certificates")]
    Build { reason: String },
    #[error("`{url}` is not a valid URL ({reason}); pass an absolute http:// or https:// URL")]
    InvalidUrl { url: String, reason: String },
    #[error(
        "the request header `{name}` for {url} is not valid; remove it or fix its name and value"
    )]
    InvalidHeader { url: String, name: String },
    #[error("the request to {url} timed out after {after:?}; try again, or allow a longer timeout")]
    Timeout { url: String, after: Duration },
    #[error("the request to {url} was cancelled before it finished")]
    Cancelled { url: String },
    #[error(
        "{url} redirected more than {limit} times; the redirects probably loop, so request the \
         final address directly"
    )]
    TooManyRedirects { url: String, limit: usize },
    #[error(
        "could not connect to {url}: {source}; check the address and that the server is reachable"
    )]
    Connect {
        url: String,
        #[source]
        source: reqwest::Error,
    },
    #[error(
        "the response from {url} is larger than the limit of {limit} bytes; \
         request a smaller resource or raise the limit"
    )]
    TooLarge { url: String, limit: usize },
    #[error("the request to {url} failed: {source}")]
    Request {
        url: String,
        #[source]
        source: reqwest::Error,
    },
}

/// Handle to the shared HTTP client, built on first use.
#[derive(Debug, Clone, Default)]
pub struct HttpClient {
    client: Arc<OnceLock<Result<reqwest::Client, String>>>,
}

impl strata_graph::Service for HttpClient {
    const KEY: &'static str = "HttpClient";
}

impl HttpClient {
    /// A handle whose client (rustls with the ring provider) is built on first use.
    pub fn new() -> Self {
        Self::default()
    }

    /// Wraps an existing client.
    pub fn from_client(client: reqwest::Client) -> Self {
        Self {
            client: Arc::new(OnceLock::from(Ok(client))),
        }
    }

    /// The global-tier node.
    pub fn node() -> Node {
        Node::new(Tier::Global, |(): (), _scope: Scope| async move {
            Ok::<_, BoxError>(HttpClient::new())
        })
    }

    /// The inner client, for callers that stream responses themselves; built by the first
    /// caller. A client that could not be built fails every call the same way.
    pub fn client(&self) -> Result<reqwest::Client, HttpError> {
        self.client
            .get_or_init(build)
            .clone()
            .map_err(|reason| HttpError::Build { reason })
    }

    pub async fn get(&self, url: &str, opts: RequestOptions) -> Result<HttpResponse, HttpError> {
        let parsed = parse_url(url)?;
        self.send(url, self.client()?.get(parsed), opts).await
    }

    pub async fn post_json(
        &self,
        url: &str,
        body: &Value,
        opts: RequestOptions,
    ) -> Result<HttpResponse, HttpError> {
        let parsed = parse_url(url)?;
        self.send(url, self.client()?.post(parsed).json(body), opts)
            .await
    }

    async fn send(
        &self,
        url: &str,
        mut request: RequestBuilder,
        opts: RequestOptions,
    ) -> Result<HttpResponse, HttpError> {
        for (name, value) in &opts.headers {
            let invalid = || HttpError::InvalidHeader {
                url: url.to_string(),
                name: name.clone(),
            };
            let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| invalid())?;
            let value = HeaderValue::from_str(value).map_err(|_| invalid())?;
            request = request.header(name, value);
        }
        let exchange = exchange(url, request, opts.max_bytes);
        let timed =
            async {
                match opts.timeout {
                    Some(after) => tokio::time::timeout(after, exchange).await.map_err(|_| {
                        HttpError::Timeout {
                            url: url.to_string(),
                            after,
                        }
                    })?,
                    None => exchange.await,
                }
            };
        match opts.cancel {
            Some(cancel) => tokio::select! {
                result = timed => result,
                () = cancel.cancelled() => Err(HttpError::Cancelled { url: url.to_string() }),
            },
            None => timed.await,
        }
    }
}

fn build() -> Result<reqwest::Client, String> {
    // Fails only when a provider is already installed, which is what we want anyway.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .user_agent(concat!("strata/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::limited(MAX_REDIRECTS))
        .build()
        .map_err(|e| e.to_string())
}

fn parse_url(url: &str) -> Result<reqwest::Url, HttpError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| HttpError::InvalidUrl {
        url: url.to_string(),
        reason: e.to_string(),
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(HttpError::InvalidUrl {
            url: url.to_string(),
            reason: format!("the scheme `{}` is not supported", parsed.scheme()),
        });
    }
    Ok(parsed)
}

/// Sends the request and reads the body, stopping as soon as it passes `max_bytes`.
async fn exchange(
    url: &str,
    request: RequestBuilder,
    max_bytes: Option<usize>,
) -> Result<HttpResponse, HttpError> {
    let failed = |source: reqwest::Error| classify(url, source);
    let mut response = request.send().await.map_err(failed)?;
    let too_large = || HttpError::TooLarge {
        url: url.to_string(),
        limit: max_bytes.unwrap_or(usize::MAX),
    };
    if let (Some(limit), Some(len)) = (max_bytes, response.content_length())
        && len > limit as u64
    {
        return Err(too_large());
    }
    let status = response.status();
    let headers = response.headers().clone();
    let final_url = response.url().to_string();
    // With a cap, a declared length within it sizes the buffer once, and growth never goes
    // past the cap, so a missing or false length cannot make the buffer outgrow it.
    let declared = usize::try_from(response.content_length().unwrap_or(0)).unwrap_or(0);
    let mut body: Vec<u8> = Vec::with_capacity(declared.min(max_bytes.unwrap_or(0)));
    while let Some(chunk) = response.chunk().await.map_err(failed)? {
        let needed = body.len() + chunk.len();
        if let Some(limit) = max_bytes {
            if needed > limit {
                return Err(too_large());
            }
            if needed > body.capacity() {
                let grown = needed.max(body.capacity() * 2).min(limit);
                body.reserve_exact(grown - body.len());
            }
        }
        body.extend_from_slice(&chunk);
    }
    Ok(HttpResponse {
        status,
        headers,
        body: Bytes::from(body),
        final_url,
    })
}

fn classify(url: &str, source: reqwest::Error) -> HttpError {
    let url = url.to_string();
    if source.is_connect() {
        HttpError::Connect { url, source }
    } else if source.is_redirect() {
        HttpError::TooManyRedirects {
            url,
            limit: MAX_REDIRECTS,
        }
    } else {
        HttpError::Request { url, source }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_is_built_once_by_its_first_user_and_shared_by_clones() {
        let http = HttpClient::new();
        let copy = http.clone();
        assert!(http.client.get().is_none(), "built before anyone used it");
        copy.client().unwrap();
        assert!(
            matches!(http.client.get(), Some(Ok(_))),
            "a clone built its own"
        );
    }
}
