//! `StreamingProvider<W>`: the one skeleton every provider shares — the client, the base URL and
//! key, `stream` (POST, status check, SSE body driven through the decoder with cancellation)
//! and the end-of-stream rule ([`DecodeState::end`](super::DecodeState::end)). What differs per
//! vendor is a [`Wire`](super::Wire): the endpoint path, the headers, the request body and the
//! decoding of one SSE event.

use std::marker::PhantomData;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::HeaderMap;
use tokio_util::sync::CancellationToken;

use super::http::{build_client, post_sse};
use super::wire::Wire;
use super::{ChatRequest, EventStream, Provider, ProviderError};

/// A provider speaking protocol `W` over reqwest.
pub struct StreamingProvider<W> {
    base_url: String,
    api_key: Option<String>,
    client: reqwest::Client,
    /// The provider id shown in messages and stored on answers; the protocol's own by default.
    name: Option<String>,
    /// Headers from the config (`options.headers`), sent after the protocol's own.
    extra_headers: HeaderMap,
    /// A query string (without `?`) appended to the endpoint (Azure's `api-version`).
    query: Option<String>,
    /// How long to wait for the response headers (`options.timeout`).
    timeout: Option<Duration>,
    /// Whether the endpoint takes `prompt_cache_key`; when not, the key is left out.
    cache_key: bool,
    wire: PhantomData<fn() -> W>,
}

impl<W: Wire> StreamingProvider<W> {
    /// A provider for `base_url` (see the protocol for what it includes); the key, when given
    /// and not empty, is sent as the protocol wants.
    pub fn new(
        base_url: impl Into<String>,
        api_key: Option<String>,
    ) -> Result<Self, ProviderError> {
        let base_url = base_url.into();
        let client = build_client(&base_url)?;
        Ok(Self::with_client(client, base_url, api_key))
    }

    /// Like [`new`](Self::new) but sharing an existing client.
    pub fn with_client(
        client: reqwest::Client,
        base_url: impl Into<String>,
        api_key: Option<String>,
    ) -> Self {
        Self {
            base_url: W::base_url(base_url.into().trim_end_matches('/')),
            api_key: api_key.filter(|k| !k.is_empty()),
            client,
            name: None,
            extra_headers: HeaderMap::new(),
            query: None,
            timeout: None,
            cache_key: true,
            wire: PhantomData,
        }
    }

    /// Shows and stores answers under provider id `name` (`ollama`, `groq`) instead of the
    /// protocol's.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Sends `headers` with every request (they replace the protocol's of the same name).
    pub fn with_headers(mut self, headers: HeaderMap) -> Self {
        self.extra_headers = headers;
        self
    }

    /// Appends `query` (without `?`) to the endpoint URL.
    pub fn with_query(mut self, query: Option<String>) -> Self {
        self.query = query.filter(|q| !q.is_empty());
        self
    }

    /// Gives up when the response headers have not arrived within `timeout`.
    pub fn with_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// Whether `prompt_cache_key` is sent (endpoints that reject unknown fields need `false`).
    pub fn with_cache_key(mut self, accepted: bool) -> Self {
        self.cache_key = accepted;
        self
    }

    pub(crate) fn headers(&self) -> Result<HeaderMap, ProviderError> {
        let mut headers = W::headers(self.api_key.as_deref())?;
        for (name, value) in &self.extra_headers {
            headers.insert(name.clone(), value.clone());
        }
        Ok(headers)
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> String {
        match &self.query {
            Some(q) => format!("{}{}?{q}", self.base_url, W::PATH),
            None => format!("{}{}", self.base_url, W::PATH),
        }
    }
}

impl<W> Clone for StreamingProvider<W> {
    fn clone(&self) -> Self {
        Self {
            base_url: self.base_url.clone(),
            api_key: self.api_key.clone(),
            client: self.client.clone(),
            name: self.name.clone(),
            extra_headers: self.extra_headers.clone(),
            query: self.query.clone(),
            timeout: self.timeout,
            cache_key: self.cache_key,
            wire: PhantomData,
        }
    }
}

impl<W: Wire> std::fmt::Debug for StreamingProvider<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key itself is never shown.
        f.debug_struct("StreamingProvider")
            .field("name", &self.name.as_deref().unwrap_or(W::NAME))
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "set"))
            .finish()
    }
}

#[async_trait]
impl<W: Wire> Provider for StreamingProvider<W> {
    fn name(&self) -> &str {
        self.name.as_deref().unwrap_or(W::NAME)
    }

    fn base_url(&self) -> &str {
        &self.base_url
    }

    async fn stream(
        &self,
        mut req: ChatRequest,
        cancel: CancellationToken,
    ) -> Result<EventStream, ProviderError> {
        if !self.cache_key {
            req.cache_key = None;
        }
        let post = post_sse::<W>(
            &self.client,
            self.endpoint(),
            self.headers()?,
            (W::BODY)(&req),
            cancel,
        );
        match self.timeout {
            None => post.await,
            Some(limit) => tokio::time::timeout(limit, post).await.unwrap_or_else(|_| {
                Err(ProviderError::Connect {
                    url: self.endpoint(),
                    detail: format!(
                        "no response within {} ms (the provider's `options.timeout`)",
                        limit.as_millis()
                    ),
                })
            }),
        }
    }
}
