//! `StreamingProvider<W>`: the one skeleton every provider shares — the client, the base URL and
//! key, `stream` (POST, status check, SSE body driven through the decoder with cancellation)
//! and the end-of-stream rule ([`DecodeState::end`](super::DecodeState::end)). What differs per
//! vendor is a [`Wire`](super::Wire): the endpoint path, the headers, the request body and the
//! decoding of one SSE event.

use std::marker::PhantomData;

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
            wire: PhantomData,
        }
    }

    pub(crate) fn headers(&self) -> Result<HeaderMap, ProviderError> {
        W::headers(self.api_key.as_deref())
    }
}

impl<W> Clone for StreamingProvider<W> {
    fn clone(&self) -> Self {
        Self {
            base_url: self.base_url.clone(),
            api_key: self.api_key.clone(),
            client: self.client.clone(),
            wire: PhantomData,
        }
    }
}

impl<W: Wire> std::fmt::Debug for StreamingProvider<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key itself is never shown.
        f.debug_struct("StreamingProvider")
            .field("name", &W::NAME)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "set"))
            .finish()
    }
}

#[async_trait]
impl<W: Wire> Provider for StreamingProvider<W> {
    fn name(&self) -> &str {
        W::NAME
    }

    fn base_url(&self) -> &str {
        &self.base_url
    }

    async fn stream(
        &self,
        req: ChatRequest,
        cancel: CancellationToken,
    ) -> Result<EventStream, ProviderError> {
        let url = format!("{}{}", self.base_url, W::PATH);
        post_sse::<W>(&self.client, url, self.headers()?, W::body(&req), cancel).await
    }
}
