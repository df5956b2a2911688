//! A scripted model server for tests: real HTTP on 127.0.0.1 speaking the streaming protocols
//! the providers use — OpenAI chat completions (`POST /v1/chat/completions`), Anthropic
//! Messages (`POST /v1/messages`) and OpenAI Responses (`POST /v1/responses`, same base URL
//! as chat completions) — and answering each request with the next [`Turn`] of its
//! script. Every request is recorded so tests can assert what the client sent (tool schemas,
//! tool results, headers), read back into one neutral shape ([`SentRequest`]) and rendered
//! readably for snapshots ([`ModelServer::rendered`]).
//!
//! A turn may also be a real vendor's recorded stream, served verbatim ([`Turn::Recorded`] with
//! a [`Recording`]).
//!
//! Requests of subagent sessions can follow scripts of their own: [`ModelServer::route`] gives
//! every request whose first user message contains a given text its own queue of turns, so a
//! parent and its children, running at the same time, each get the answers meant for them.
//!
//! A simulated prompt cache that follows Anthropic's rules ([`ModelServer::simulate_cache`])
//! makes responses report cache reads and writes, so tests can measure what caching saves.
//!
//! The server runs on its own thread and runtime, so it works from plain `#[test]`s, from
//! `#[tokio::test]`s and for child processes alike; it stops when dropped.
//!
//! ```ignore
//! let server = ModelServer::start(vec![Turn::tool_call("c1", "read", r#"{"filePath":"a"}"#), Turn::text("done")]);
//! // point OPENAI_BASE_URL at server.url() or ANTHROPIC_BASE_URL at server.anthropic_url()
//! assert_eq!(server.sent()[1].results()[0].0, "c1");
//! insta::assert_snapshot!(server.rendered());
//! ```

mod cache;
mod handle;
mod recorded;
mod responses;
mod script;
mod sent;
mod wire;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

pub use cache::{CacheRules, CacheUsage, MAX_BREAKPOINTS};
#[cfg(test)]
use handle::first_user_text;
use handle::{Protocol, handle};
pub use recorded::Recording;
pub use responses::{RESPONSES_CACHED_TOKENS, RESPONSES_PATH, RESPONSES_REASONING_TOKENS};
pub use script::{Gate, Pause, ScriptedCall, Turn, call, text_deltas};
pub use sent::{
    SentItem, SentMessage, SentRequest, relative, render_requests, render_requests_against,
};
pub use wire::{USAGE_INPUT_TOKENS, USAGE_OUTPUT_TOKENS};

/// The OpenAI-style endpoint path.
pub const OPENAI_PATH: &str = "/v1/chat/completions";
/// The Anthropic-style endpoint path.
pub const ANTHROPIC_PATH: &str = "/v1/messages";

/// How long open connections get to finish after the server is dropped.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(500);

/// One request the server received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    pub path: String,
    /// Header names in lower case, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (a JSON string holding the raw text when it was not JSON).
    pub body: Value,
}

impl RecordedRequest {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A script for the requests whose first user message contains `key`.
struct Route {
    key: String,
    turns: VecDeque<Turn>,
    scripted: usize,
}

struct Shared {
    script: Mutex<VecDeque<Turn>>,
    routes: Mutex<Vec<Route>>,
    scripted: AtomicUsize,
    log: Mutex<Vec<RecordedRequest>>,
    hangs_released: AtomicUsize,
    /// When not 0, the input tokens a response reports are the size of the request's
    /// `messages` in bytes divided by this (so usage grows with the conversation); else
    /// [`USAGE_INPUT_TOKENS`].
    bytes_per_token: AtomicUsize,
    /// Standing answers: a request whose body contains the needle gets the turn, and the
    /// script is left as it is.
    rules: Mutex<Vec<(String, Turn)>>,
    /// Consulted before everything else: `(request number, body)` → the answer, if any.
    responder: Mutex<Option<Responder>>,
    /// `(request number, when its streamed body ended)`, in the order the bodies ended.
    ends: Mutex<Vec<(usize, Instant)>>,
    /// The simulated prompt cache, when a test turned it on (see [`cache`]).
    cache: Mutex<Option<cache::PromptCache>>,
    stop: CancellationToken,
}

/// A function that picks the answer to a request from its number (from 1) and body.
pub type Responder = Arc<dyn Fn(usize, &Value) -> Option<Turn> + Send + Sync>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking test thread must not hide the recorded requests from the others.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A running scripted model server; stops when dropped.
pub struct ModelServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for ModelServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl ModelServer {
    /// Starts a server replaying `script`, one turn per model request, in order.
    ///
    /// Panics when no loopback port can be bound: this is a test fixture, and the panic message
    /// is the test failure. Use [`try_start`](Self::try_start) to handle the error instead.
    pub fn start(script: Vec<Turn>) -> ModelServer {
        match Self::try_start(script) {
            Ok(server) => server,
            Err(e) => panic!("the scripted model server could not start on 127.0.0.1: {e}"),
        }
    }

    /// Like [`start`](Self::start), returning the I/O error instead of panicking.
    pub fn try_start(script: Vec<Turn>) -> std::io::Result<ModelServer> {
        let std_listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        std_listener.set_nonblocking(true)?;
        let addr = std_listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let listener = {
            let _entered = runtime.enter();
            tokio::net::TcpListener::from_std(std_listener)?
        };
        let shared = Arc::new(Shared {
            scripted: AtomicUsize::new(script.len()),
            script: Mutex::new(script.into()),
            routes: Mutex::new(Vec::new()),
            log: Mutex::new(Vec::new()),
            hangs_released: AtomicUsize::new(0),
            bytes_per_token: AtomicUsize::new(0),
            rules: Mutex::new(Vec::new()),
            responder: Mutex::new(None),
            ends: Mutex::new(Vec::new()),
            cache: Mutex::new(None),
            stop: CancellationToken::new(),
        });
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let stop = shared.stop.clone();
        let thread = std::thread::Builder::new()
            .name(format!("model-server-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    let serve = axum::serve(listener, app)
                        .with_graceful_shutdown(stop.clone().cancelled_owned());
                    tokio::select! {
                        _ = serve => {}
                        _ = async { stop.cancelled().await; tokio::time::sleep(SHUTDOWN_GRACE).await } => {}
                    }
                });
                // Dropping the runtime here ends any connection still open.
            })?;
        Ok(ModelServer {
            addr,
            shared,
            thread: Some(thread),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The OpenAI-style base URL, for chat completions and Responses alike:
    /// `http://127.0.0.1:PORT/v1`.
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The Anthropic-style base URL: `http://127.0.0.1:PORT`.
    pub fn anthropic_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Bodies of every request received so far, in order.
    pub fn requests(&self) -> Vec<Value> {
        lock(&self.shared.log)
            .iter()
            .map(|r| r.body.clone())
            .collect()
    }

    /// Every request received so far, read into the protocol-neutral [`SentRequest`].
    pub fn sent(&self) -> Vec<SentRequest> {
        lock(&self.shared.log)
            .iter()
            .map(|r| SentRequest::from_body(&r.body))
            .collect()
    }

    /// A readable rendering of every request received so far, for snapshots (see
    /// [`render_requests`]).
    pub fn rendered(&self) -> String {
        render_requests(&self.requests())
    }

    /// Like [`rendered`](Self::rendered), with each tool list written against the default
    /// surface of the request's model (see [`render_requests_against`]).
    pub fn rendered_against(&self, default_for: &dyn Fn(&str) -> Option<Vec<String>>) -> String {
        render_requests_against(&self.requests(), default_for)
    }

    /// Every request received so far with its path and headers.
    pub fn recorded(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.log).clone()
    }

    /// Makes each response report as input tokens the size of its request's `messages` in
    /// bytes divided by `bytes_per_token` (0 goes back to the fixed [`USAGE_INPUT_TOKENS`]), so
    /// a growing conversation reports growing usage.
    pub fn count_input_tokens(&self, bytes_per_token: usize) {
        self.shared
            .bytes_per_token
            .store(bytes_per_token, Ordering::SeqCst);
    }

    /// Answers every request whose JSON body contains `needle` with `turn`, without using up
    /// the script (e.g. the summary requests of compaction, whenever they come).
    pub fn answer_when(&self, needle: &str, turn: Turn) {
        lock(&self.shared.rules).push((needle.to_string(), turn));
    }

    /// Answers every request for which `responder` returns a turn, before any rule, route or
    /// script is consulted; it gets the request's number (from 1, as in
    /// [`ends`](Self::ends)) and its JSON body. For load tests whose answers follow from the
    /// conversation so far rather than from a fixed order.
    pub fn respond_with(
        &self,
        responder: impl Fn(usize, &Value) -> Option<Turn> + Send + Sync + 'static,
    ) {
        *lock(&self.shared.responder) = Some(Arc::new(responder));
    }

    /// Forgets the requests recorded so far (and their end times), for long runs whose
    /// memory is measured: the log otherwise grows with every request's whole conversation.
    pub fn clear_log(&self) {
        lock(&self.shared.log).clear();
        lock(&self.shared.ends).clear();
    }

    /// When each streamed response handed its last byte to the connection:
    /// `(request number, instant)`, in the order they ended.
    pub fn ends(&self) -> Vec<(usize, Instant)> {
        lock(&self.shared.ends).clone()
    }

    /// Turns not yet served.
    pub fn remaining(&self) -> usize {
        lock(&self.shared.script).len()
    }

    /// Appends a turn to the script.
    pub fn push(&self, turn: Turn) {
        lock(&self.shared.script).push_back(turn);
        self.shared.scripted.fetch_add(1, Ordering::SeqCst);
    }

    /// Answers every request whose first user message contains `key` from `script` instead of
    /// the main script, one turn per request in order (the first matching route wins). This is
    /// how a test scripts a subagent: its session starts with the task's prompt.
    pub fn route(&self, key: &str, script: Vec<Turn>) {
        lock(&self.shared.routes).push(Route {
            key: key.to_string(),
            scripted: script.len(),
            turns: script.into(),
        });
    }

    /// Turns of the route for `key` not yet served (0 for an unknown key).
    pub fn route_remaining(&self, key: &str) -> usize {
        lock(&self.shared.routes)
            .iter()
            .find(|r| r.key == key)
            .map_or(0, |r| r.turns.len())
    }

    /// How many [`Turn::Hang`] responses ended because the client went away (or the server
    /// stopped): lets a test see that a cancelled client really dropped its connection.
    pub fn hangs_released(&self) -> usize {
        self.shared.hangs_released.load(Ordering::SeqCst)
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.shared.stop.cancel();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests;
