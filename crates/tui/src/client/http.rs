//! The remote transport: the server's HTTP routes plus its SSE streams, with Basic auth, the
//! project directory, and streams that reconnect with capped exponential backoff and resume
//! from the last `id:` with `Last-Event-ID`. Besides the [`Client`] interface it has what a
//! one-shot run needs (`strata run --attach`): a session created with permission rules, a
//! prompt that returns when its turn has ended, and one session's events.

use std::time::Duration;

use async_trait::async_trait;
use base64::Engine as _;
use futures::StreamExt;
use reqwest::{Method, RequestBuilder, StatusCode};
use serde::Serialize;
use serde_json::{Value, json};
use strata_protocol::wire::{
    CommandBody, SessionCreateBody, SessionInfo, SessionTools, SummarizeBody,
};
use tokio::sync::mpsc;

use super::feed::Feed;
use super::{Client, ClientError, ClientEvent, PAGE, Prompt, Result, read};
use crate::event::decode;
use crate::model::{Bootstrap, OlderPage, PermissionReply, Snapshot};
use read::parse;

/// How to reach the server.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// `http://host:port`, without a trailing slash.
    pub base_url: String,
    /// Basic auth password (`--password` or `STRATA_SERVER_PASSWORD`).
    pub password: Option<String>,
    /// Basic auth user name (`opencode` when not given, as opencode's clients send).
    pub username: Option<String>,
    /// The project directory on the server's side, sent with every request.
    pub directory: Option<String>,
    /// The first reconnect delay; doubled per attempt up to `max_backoff`.
    pub backoff: Duration,
    pub max_backoff: Duration,
    /// Added to a 401's message: how the user of this command gives the password.
    pub unauthorized_hint: String,
}

impl HttpOptions {
    pub fn new(base_url: &str) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_string(),
            password: None,
            username: None,
            directory: None,
            backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(30),
            unauthorized_hint: " (set --password or STRATA_SERVER_PASSWORD)".into(),
        }
    }

    /// The delay before reconnect `attempt` (from 1): `backoff · 2^(attempt-1)`, capped.
    pub fn delay(&self, attempt: u32) -> Duration {
        let factor = 1u32 << attempt.saturating_sub(1).min(16);
        (self.backoff * factor).min(self.max_backoff)
    }
}

/// [`Client`] over HTTP and SSE.
#[derive(Debug, Clone)]
pub struct HttpClient {
    http: reqwest::Client,
    opts: HttpOptions,
}

impl HttpClient {
    pub fn new(opts: HttpOptions) -> Result<Self> {
        // reqwest is built without a default TLS provider; an Err only means one is installed.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .build()
            .map_err(|e| ClientError::new("building the HTTP client", e.to_string()))?;
        Ok(Self { http, opts })
    }

    fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.request_with(method, path, &[])
    }

    /// A request to `path` with these query parameters (encoded) and `directory`.
    fn request_with(&self, method: Method, path: &str, query: &[(&str, &str)]) -> RequestBuilder {
        let url = format!("{}{}", self.opts.base_url, path);
        let mut req = match reqwest::Url::parse(&url) {
            Ok(mut url) => {
                if !query.is_empty() {
                    url.query_pairs_mut().extend_pairs(query);
                }
                if let Some(dir) = &self.opts.directory {
                    url.query_pairs_mut().append_pair("directory", dir);
                }
                self.http.request(method, url)
            }
            // An unparsable URL fails at send with reqwest's own message.
            Err(_) => self.http.request(method, url),
        };
        if let Some(value) = self.auth() {
            req = req.header(reqwest::header::AUTHORIZATION, value);
        }
        req
    }

    fn auth(&self) -> Option<String> {
        let password = self.opts.password.as_deref().filter(|p| !p.is_empty())?;
        let user = self.opts.username.as_deref().unwrap_or("opencode");
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
        Some(format!("Basic {token}"))
    }

    /// Sends `req` and reads its JSON; a non-2xx answer becomes an error carrying the
    /// server's `data.message`.
    async fn call(&self, what: &str, req: RequestBuilder) -> Result<Value> {
        Ok(self.call_paged(what, req).await?.0)
    }

    /// [`call`](Self::call), also giving the `X-Next-Cursor` of a paged list.
    async fn call_paged(&self, what: &str, req: RequestBuilder) -> Result<(Value, Option<String>)> {
        let resp = req
            .send()
            .await
            .map_err(|e| ClientError::new(what, format!("{e}; is the server running?")))?;
        let status = resp.status();
        let next = resp
            .headers()
            .get("x-next-cursor")
            .and_then(|v| v.to_str().ok())
            .filter(|v| !v.is_empty())
            .map(str::to_string);
        let body = resp.text().await.unwrap_or_default();
        if !status.is_success() {
            let message = serde_json::from_str::<Value>(&body)
                .ok()
                .and_then(|v| {
                    let m = v.pointer("/data/message").or_else(|| v.get("name"))?;
                    m.as_str().map(str::to_string)
                })
                .unwrap_or_else(|| body.chars().take(200).collect());
            let hint = if status == StatusCode::UNAUTHORIZED {
                self.opts.unauthorized_hint.as_str()
            } else {
                ""
            };
            return Err(ClientError::new(what, format!("{status}: {message}{hint}")));
        }
        if body.is_empty() {
            return Ok((Value::Null, next));
        }
        let value = serde_json::from_str(&body)
            .map_err(|e| ClientError::new(what, format!("bad JSON: {e}")))?;
        Ok((value, next))
    }

    async fn get(&self, what: &str, path: &str) -> Result<Value> {
        self.call(what, self.request(Method::GET, path)).await
    }

    async fn post(&self, what: &str, path: &str, body: &impl Serialize) -> Result<Value> {
        self.call(what, self.request(Method::POST, path).json(body))
            .await
    }

    /// `GET /session/:id/message?limit=PAGE[&before=…]`: a page of the newest messages and
    /// the cursor for the ones before it. A server that ignores `limit` sends them all.
    async fn page(&self, session_id: &str, before: Option<&str>) -> Result<OlderPage> {
        let path = format!("/session/{session_id}/message");
        let limit = PAGE.to_string();
        let mut query = vec![("limit", limit.as_str())];
        query.extend(before.map(|b| ("before", b)));
        let req = self.request_with(Method::GET, &path, &query);
        let (list, older) = self.call_paged(&format!("GET {path}"), req).await?;
        Ok(OlderPage {
            messages: read::messages(&list),
            older,
        })
    }

    /// `POST /session` with `body`: a session with its own title or permission rules.
    pub async fn create_session_with(&self, body: &SessionCreateBody) -> Result<SessionInfo> {
        let what = "POST /session";
        parse(what, self.post(what, "/session", body).await?)
    }

    /// `POST /session/:id/message`: sends `prompt` and returns once its turn has ended.
    pub async fn prompt_and_wait(&self, session_id: &str, prompt: Prompt) -> Result<()> {
        let path = format!("/session/{session_id}/message");
        self.post(&format!("POST {path}"), &path, &prompt.body())
            .await
            .map(drop)
    }

    /// The project's stream (`/event`) with only the events of `session_id` and of the
    /// subagent sessions started under it; it reconnects like [`Client::events`] and ends when
    /// the receiver is dropped.
    pub fn session_events(&self, session_id: &str) -> mpsc::Receiver<ClientEvent> {
        self.stream(Feed::family("/event", session_id))
    }

    fn stream(&self, feed: Feed) -> mpsc::Receiver<ClientEvent> {
        let (tx, rx) = mpsc::channel(1024);
        tokio::spawn(stream_events(self.clone(), feed, tx));
        rx
    }
}

#[async_trait]
impl Client for HttpClient {
    async fn bootstrap(&self) -> Result<Bootstrap> {
        let agents = self.get("GET /agent", "/agent").await?;
        let providers = self
            .get("GET /config/providers", "/config/providers")
            .await?;
        let config = self.get("GET /config", "/config").await?;
        // The lists are a convenience: a server without them still works.
        let sessions = self.sessions().await.unwrap_or_default();
        let mut boot = read::bootstrap(agents, &providers, &config, sessions)?;
        let commands = self.get("GET /command", "/command").await;
        boot.commands = commands
            .and_then(|c| parse("GET /command", c))
            .unwrap_or_default();
        Ok(boot)
    }

    async fn sessions(&self) -> Result<Vec<SessionInfo>> {
        let all = parse("GET /session", self.get("GET /session", "/session").await?)?;
        Ok(read::top_sessions(all))
    }

    async fn create_session(&self, agent: &str) -> Result<SessionInfo> {
        let body = if agent.is_empty() {
            json!({})
        } else {
            json!({"agent": agent})
        };
        parse(
            "POST /session",
            self.post("POST /session", "/session", &body).await?,
        )
    }

    async fn snapshot(&self, session_id: &str) -> Result<Snapshot> {
        let what = format!("GET /session/{session_id}");
        let info = self.get(&what, &format!("/session/{session_id}")).await?;
        let page = self.page(session_id, None).await?;
        let todos = self
            .get("todo", &format!("/session/{session_id}/todo"))
            .await
            .ok();
        Ok(read::snapshot(
            parse(&what, info)?,
            page.messages,
            page.older,
            todos.map(read::todos),
        ))
    }

    async fn older(&self, session_id: &str, before: &str) -> Result<OlderPage> {
        self.page(session_id, Some(before)).await
    }

    async fn prompt(&self, session_id: &str, prompt: Prompt) -> Result<()> {
        let path = format!("/session/{session_id}/prompt_async");
        self.post(&format!("POST {path}"), &path, &prompt.body())
            .await
            .map(drop)
    }

    /// `POST /session/:id/command`, which answers when the turn has ended; the UI follows
    /// the turn through its events meanwhile.
    async fn command(&self, session_id: &str, command: CommandBody) -> Result<()> {
        let path = format!("/session/{session_id}/command");
        self.post(&format!("POST {path}"), &path, &command)
            .await
            .map(drop)
    }

    async fn abort(&self, session_id: &str) -> Result<()> {
        let path = format!("/session/{session_id}/abort");
        self.post(&format!("POST {path}"), &path, &json!({}))
            .await
            .map(drop)
    }

    async fn reply_permission(
        &self,
        request_id: &str,
        reply: PermissionReply,
        message: Option<String>,
    ) -> Result<()> {
        let mut body = json!({"reply": reply});
        if let Some(m) = message.filter(|m| !m.is_empty()) {
            body["message"] = json!(m);
        }
        let path = format!("/permission/{request_id}/reply");
        self.post(&format!("POST {path}"), &path, &body)
            .await
            .map(drop)
    }

    async fn reply_question(&self, request_id: &str, answers: Vec<Vec<String>>) -> Result<()> {
        let path = format!("/question/{request_id}/reply");
        self.post(&format!("POST {path}"), &path, &json!({"answers": answers}))
            .await
            .map(drop)
    }

    async fn reject_question(&self, request_id: &str) -> Result<()> {
        let path = format!("/question/{request_id}/reject");
        self.post(&format!("POST {path}"), &path, &json!({}))
            .await
            .map(drop)
    }

    async fn tools(&self, session_id: &str) -> Result<SessionTools> {
        let path = format!("/session/{session_id}/tools");
        let what = format!("GET {path}");
        parse(&what, self.get(&what, &path).await?)
    }

    async fn revert(&self, session_id: &str, message_id: &str) -> Result<()> {
        let path = format!("/session/{session_id}/revert");
        self.post(
            &format!("POST {path}"),
            &path,
            &json!({"messageID": message_id}),
        )
        .await
        .map(drop)
    }

    async fn summarize(&self, session_id: &str, body: SummarizeBody) -> Result<()> {
        let path = format!("/session/{session_id}/summarize");
        self.post(&format!("POST {path}"), &path, &body)
            .await
            .map(drop)
    }

    async fn unrevert(&self, session_id: &str) -> Result<()> {
        let path = format!("/session/{session_id}/unrevert");
        self.post(&format!("POST {path}"), &path, &json!({}))
            .await
            .map(drop)
    }

    fn events(&self) -> mpsc::Receiver<ClientEvent> {
        self.stream(Feed::all("/global/event"))
    }
}

/// Reads the stream until the receiver goes away, reconnecting after every drop.
async fn stream_events(client: HttpClient, mut feed: Feed, tx: mpsc::Sender<ClientEvent>) {
    let mut cursor: Option<String> = None;
    let mut attempt = 0u32;
    loop {
        let error = match read_stream(&client, &mut feed, &tx, &mut cursor, &mut attempt).await {
            Ok(()) => "the server closed the event stream".to_string(),
            Err(e) => e,
        };
        if tx.is_closed() {
            return;
        }
        attempt += 1;
        let event = ClientEvent::Disconnected { attempt, error };
        if tx.send(event).await.is_err() {
            return;
        }
        tokio::time::sleep(client.opts.delay(attempt)).await;
    }
}

async fn read_stream(
    client: &HttpClient,
    feed: &mut Feed,
    tx: &mpsc::Sender<ClientEvent>,
    cursor: &mut Option<String>,
    attempt: &mut u32,
) -> std::result::Result<(), String> {
    let mut req = client
        .request(Method::GET, feed.path)
        .header(reqwest::header::ACCEPT, "text/event-stream");
    if let Some(id) = cursor.as_deref() {
        req = req.header("Last-Event-ID", id);
    }
    let resp = req.send().await.map_err(|e| e.to_string())?;
    if !resp.status().is_success() {
        return Err(format!("GET {} answered {}", feed.path, resp.status()));
    }
    *attempt = 0;
    tx.send(ClientEvent::Connected)
        .await
        .map_err(|_| "closed")?;
    let mut parser = strata_protocol::sse::SseParser::new();
    let mut body = resp.bytes_stream();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| e.to_string())?;
        for frame in parser.push(&chunk) {
            if frame.id.is_some() {
                cursor.clone_from(&frame.id);
            }
            if let Some(envelope) = decode(&frame.data).filter(|e| feed.wants(e)) {
                tx.send(ClientEvent::Event(envelope))
                    .await
                    .map_err(|_| "closed")?;
            }
        }
    }
    Ok(())
}
