//! The loopback web server and helpers shared by the `webfetch` test modules.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use serde_json::Value;
use strata_testkit::{FixtureServer, TestInstance};
use strata_tools::webfetch::MAX_BYTES;
use strata_tools::{ToolError, ToolResult};

pub(crate) const PAGE: &str = "<!doctype html><html><head><title>Test Page</title>\
<meta charset=\"utf-8\"><link rel=\"stylesheet\" href=\"/s.css\">\
<style>body { color: red }</style><script>var secret = 42;</script></head>\
<body><h1>Main Title</h1>\n<p>First <b>bold</b> paragraph with a \
<a href=\"https://example.com/x\">link</a>.</p>\n<ul><li>one</li><li>two</li></ul>\
<pre><code>fn main() {}</code></pre><noscript>Scripts are off</noscript></body></html>";

pub(crate) const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3];

/// What the fixture server saw.
#[derive(Clone, Default)]
pub(crate) struct Seen {
    pub(crate) requests: Arc<AtomicUsize>,
    pub(crate) headers: Arc<std::sync::Mutex<Vec<HeaderMap>>>,
}

/// An endless body's progress, and whether the server dropped it.
#[derive(Clone, Default)]
pub(crate) struct Endless {
    pub(crate) sent: Arc<AtomicUsize>,
    pub(crate) dropped: Arc<AtomicBool>,
}

struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

fn typed(content_type: &'static str, body: impl Into<Body>) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body.into()).into_response()
}

pub(crate) async fn server(seen: Seen, endless: Endless) -> FixtureServer {
    let app = Router::new()
        .route(
            "/page",
            get(|| async { typed("text/html; charset=utf-8", PAGE) }),
        )
        .route(
            "/plain",
            get(|| async { typed("text/plain", "just text\n  kept as is") }),
        )
        .route(
            "/logo.svg",
            get(|| async {
                typed(
                    "image/svg+xml",
                    "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
                )
            }),
        )
        .route("/logo.png", get(|| async { typed("image/png", PNG) }))
        .route(
            "/missing",
            get(|| async { (StatusCode::NOT_FOUND, "gone") }),
        )
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(60)).await;
                "late"
            }),
        )
        .route(
            "/big",
            get(|| async { typed("text/plain", "x".repeat(MAX_BYTES + 1)) }),
        )
        .route(
            "/long",
            get(|| async {
                let lines: String = (1..=3000).map(|i| format!("<p>line {i}</p>")).collect();
                typed("text/html", format!("<html><body>{lines}</body></html>"))
            }),
        )
        .route(
            "/endless",
            get(move || {
                let e = endless.clone();
                async move {
                    let flag = DropFlag(e.dropped.clone());
                    let sent = e.sent.clone();
                    let chunks = futures::stream::repeat_with(move || {
                        let _alive = &flag;
                        sent.fetch_add(65_536, Ordering::SeqCst);
                        Ok::<_, std::io::Error>(Bytes::from(vec![b'<'; 65_536]))
                    });
                    typed("text/html", Body::from_stream(chunks))
                }
            }),
        )
        .route(
            "/hop/{n}",
            get(|Path(n): Path<usize>| async move {
                if n == 0 {
                    typed("text/plain", "arrived")
                } else {
                    Redirect::temporary(&format!("/hop/{}", n - 1)).into_response()
                }
            }),
        )
        .route(
            "/challenge",
            get(|headers: HeaderMap| async move {
                let ua = headers
                    .get(header::USER_AGENT)
                    .and_then(|v| v.to_str().ok());
                if ua == Some("strata") {
                    typed("text/plain", "let through")
                } else {
                    (
                        StatusCode::FORBIDDEN,
                        [("cf-mitigated", "challenge")],
                        "prove it",
                    )
                        .into_response()
                }
            }),
        )
        .layer(axum::middleware::from_fn(
            move |req: axum::extract::Request, next: axum::middleware::Next| {
                let seen = seen.clone();
                async move {
                    seen.requests.fetch_add(1, Ordering::SeqCst);
                    seen.headers.lock().unwrap().push(req.headers().clone());
                    next.run(req).await
                }
            },
        ));
    FixtureServer::start(app).await.unwrap()
}

pub(crate) async fn fetch(t: &TestInstance, args: Value) -> Result<ToolResult, ToolError> {
    t.call("webfetch", args).await
}

/// Title, output and metadata as the model and front-end get them, the port redacted.
pub(crate) fn render(r: &ToolResult, s: &FixtureServer) -> String {
    format!(
        "title: {}\nmetadata: {}\n---\n{}",
        r.title,
        Value::Object(r.metadata.clone()),
        r.output
    )
    .replace(&s.addr().to_string(), "127.0.0.1:[PORT]")
}
