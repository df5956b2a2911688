//! `webfetch` through the real wrapper against loopback HTTP servers (spec §8, §19 webfetch):
//! the three formats, images, the 5 MiB cap while streaming, timeouts, statuses, schemes,
//! redirects, cancellation and the permission ask.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use base64::Engine;
use serde_json::{Value, json};
use strata_services::http::MAX_REDIRECTS;
use strata_services::permission::PermissionError;
use strata_testkit::{FixtureServer, ReplyMode, TestInstance, poll_with_timeout};
use strata_tools::webfetch::MAX_BYTES;
use strata_tools::{ToolError, ToolResult};
use tokio_util::sync::CancellationToken;

const PAGE: &str = "<!doctype html><html><head><title>Test Page</title>\
<meta charset=\"utf-8\"><link rel=\"stylesheet\" href=\"/s.css\">\
<style>body { color: red }</style><script>var secret = 42;</script></head>\
<body><h1>Main Title</h1>\n<p>First <b>bold</b> paragraph with a \
<a href=\"https://example.com/x\">link</a>.</p>\n<ul><li>one</li><li>two</li></ul>\
<pre><code>fn main() {}</code></pre><noscript>Scripts are off</noscript></body></html>";

const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3];

/// What the fixture server saw.
#[derive(Clone, Default)]
struct Seen {
    requests: Arc<AtomicUsize>,
    headers: Arc<std::sync::Mutex<Vec<HeaderMap>>>,
}

/// An endless body's progress, and whether the server dropped it.
#[derive(Clone, Default)]
struct Endless {
    sent: Arc<AtomicUsize>,
    dropped: Arc<AtomicBool>,
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

async fn server(seen: Seen, endless: Endless) -> FixtureServer {
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

async fn fetch(t: &TestInstance, args: Value) -> Result<ToolResult, ToolError> {
    t.call("webfetch", args).await
}

/// Title, output and metadata as the model and front-end get them, the port redacted.
fn render(r: &ToolResult, s: &FixtureServer) -> String {
    format!(
        "title: {}\nmetadata: {}\n---\n{}",
        r.title,
        Value::Object(r.metadata.clone()),
        r.output
    )
    .replace(&s.addr().to_string(), "127.0.0.1:[PORT]")
}

#[tokio::test]
async fn html_in_each_format() {
    TestInstance::builder()
        .run(|t| async move {
            let s = server(Seen::default(), Endless::default()).await;
            let url = s.url("/page");
            let md = fetch(&t, json!({"url": url})).await.unwrap();
            insta::assert_snapshot!("webfetch_markdown", render(&md, &s));
            assert!(!md.output.contains("secret") && !md.output.contains("color"));
            let text = fetch(&t, json!({"url": url, "format": "text"}))
                .await
                .unwrap();
            insta::assert_snapshot!("webfetch_text", render(&text, &s));
            let html = fetch(&t, json!({"url": url, "format": "html"}))
                .await
                .unwrap();
            assert_eq!(html.output, PAGE);
            assert_eq!(html.title, format!("{url} (text/html; charset=utf-8)"));
            assert_eq!(Value::Object(html.metadata), json!({"truncated": false}));
            // `null` counts as absent: the default format.
            let null = fetch(&t, json!({"url": url, "format": null}))
                .await
                .unwrap();
            assert_eq!(null.output, md.output);
        })
        .await;
}

#[tokio::test]
async fn non_html_bodies_come_back_as_they_are_and_svg_is_not_attached() {
    TestInstance::builder()
        .run(|t| async move {
            let s = server(Seen::default(), Endless::default()).await;
            for format in ["text", "markdown", "html"] {
                let r = fetch(&t, json!({"url": s.url("/plain"), "format": format}))
                    .await
                    .unwrap();
                assert_eq!(r.output, "just text\n  kept as is", "{format}");
            }
            let r = fetch(&t, json!({"url": s.url("/logo.svg"), "format": "html"}))
                .await
                .unwrap();
            assert!(r.output.starts_with("<svg"), "{}", r.output);
            assert!(r.attachments.is_empty());
        })
        .await;
}

#[tokio::test]
async fn an_image_comes_back_as_an_attachment() {
    TestInstance::builder()
        .run(|t| async move {
            let s = server(Seen::default(), Endless::default()).await;
            let r = fetch(&t, json!({"url": s.url("/logo.png")})).await.unwrap();
            insta::assert_snapshot!("webfetch_image", render(&r, &s));
            assert_eq!(r.attachments.len(), 1);
            let a = serde_json::to_value(&r.attachments[0]).unwrap();
            for key in ["id", "sessionID", "messageID"] {
                assert!(a.get(key).is_none(), "tools never set `{key}`: {a}");
            }
            assert_eq!(a["type"], "file");
            assert_eq!(a["mime"], "image/png");
            let b64 = base64::engine::general_purpose::STANDARD.encode(PNG);
            assert_eq!(a["url"], format!("data:image/png;base64,{b64}"));
        })
        .await;
}

#[tokio::test]
async fn the_permission_ask_names_the_url_and_a_rejection_sends_nothing() {
    // Every tool is allowed by default; asking makes the request visible.
    TestInstance::builder()
        .config(json!({"permission": {"webfetch": "ask"}}))
        .run(|t| async move {
            let seen = Seen::default();
            let s = server(seen.clone(), Endless::default()).await;
            let url = s.url("/plain");
            fetch(&t, json!({"url": url, "format": "text", "timeout": 10}))
                .await
                .unwrap();
            let asks = t.asked_for("webfetch");
            assert_eq!(asks.len(), 1);
            assert_eq!(asks[0].patterns, [url.as_str()]);
            assert_eq!(asks[0].always, ["*"]);
            assert_eq!(
                asks[0].metadata,
                json!({"url": url, "format": "text", "timeout": 10.0})
            );
            fetch(&t, json!({"url": url})).await.unwrap();
            let asks = t.asked_for("webfetch");
            assert_eq!(asks[1].metadata, json!({"url": url, "format": "markdown"}));
            assert_eq!(seen.requests.load(Ordering::SeqCst), 2);

            t.reply_mode(ReplyMode::Reject(None));
            let err = fetch(&t, json!({"url": url})).await.unwrap_err();
            assert!(
                matches!(err, ToolError::Permission(PermissionError::Rejected { .. })),
                "{err}"
            );
            assert_eq!(seen.requests.load(Ordering::SeqCst), 2, "nothing was sent");
        })
        .await;
}

#[tokio::test]
async fn request_headers_follow_the_format() {
    TestInstance::builder()
        .run(|t| async move {
            let seen = Seen::default();
            let s = server(seen.clone(), Endless::default()).await;
            for format in ["markdown", "text", "html"] {
                fetch(&t, json!({"url": s.url("/plain"), "format": format}))
                    .await
                    .unwrap();
            }
            let headers = seen.headers.lock().unwrap().clone();
            let accept: Vec<&str> = headers
                .iter()
                .map(|h| h[header::ACCEPT].to_str().unwrap())
                .collect();
            assert!(accept[0].starts_with("text/markdown;q=1.0"), "{accept:?}");
            assert!(accept[1].starts_with("text/plain;q=1.0"), "{accept:?}");
            assert!(accept[2].starts_with("text/html;q=1.0"), "{accept:?}");
            for h in &headers {
                assert_eq!(h[header::ACCEPT_LANGUAGE], "en-US,en;q=0.9");
                let ua = h[header::USER_AGENT].to_str().unwrap();
                assert!(ua.starts_with("Mozilla/5.0"), "{ua}");
            }
        })
        .await;
}

#[tokio::test]
async fn a_cloudflare_challenge_is_retried_once_as_strata() {
    TestInstance::builder()
        .run(|t| async move {
            let seen = Seen::default();
            let s = server(seen.clone(), Endless::default()).await;
            let r = fetch(&t, json!({"url": s.url("/challenge")}))
                .await
                .unwrap();
            assert_eq!(r.output, "let through");
            assert_eq!(seen.requests.load(Ordering::SeqCst), 2);
        })
        .await;
}

#[tokio::test]
async fn other_schemes_are_refused_before_any_ask_or_request() {
    TestInstance::builder()
        .run(|t| async move {
            let seen = Seen::default();
            let s = server(seen.clone(), Endless::default()).await;
            let host = s.addr().to_string();
            for url in [
                "file:///etc/passwd".to_string(),
                "data:text/plain;base64,aGk=".to_string(),
                format!("ftp://{host}/page"),
                format!("{host}/page"),
                format!("//{host}/page"),
            ] {
                let err = fetch(&t, json!({"url": url})).await.unwrap_err();
                assert!(matches!(err, ToolError::Model(_)), "{url}: {err:?}");
                let msg = err.to_string();
                assert!(msg.contains("http://") && msg.contains("https://"), "{msg}");
            }
            let err = fetch(&t, json!({"url": "ftp://example.com/x"}))
                .await
                .unwrap_err();
            insta::assert_snapshot!("webfetch_bad_scheme", err.to_string());
            assert!(t.asked_for("webfetch").is_empty());
            assert_eq!(
                seen.requests.load(Ordering::SeqCst),
                0,
                "no request was made"
            );
        })
        .await;
}

#[tokio::test]
async fn a_non_success_status_is_an_error_naming_it() {
    TestInstance::builder()
        .run(|t| async move {
            let s = server(Seen::default(), Endless::default()).await;
            let url = s.url("/missing");
            let err = fetch(&t, json!({"url": url})).await.unwrap_err();
            assert!(matches!(err, ToolError::Model(_)), "{err:?}");
            let msg = err.to_string();
            assert!(msg.contains(&format!("404 GET {url}")), "{msg}");
            insta::assert_snapshot!(
                "webfetch_not_found",
                msg.replace(&s.addr().to_string(), "127.0.0.1:[PORT]")
            );
        })
        .await;
}

#[tokio::test]
async fn the_timeout_is_in_seconds() {
    TestInstance::builder()
        .run(|t| async move {
            let s = server(Seen::default(), Endless::default()).await;
            let started = Instant::now();
            let err = fetch(&t, json!({"url": s.url("/slow"), "timeout": 0.3}))
                .await
                .unwrap_err();
            assert!(started.elapsed() < Duration::from_secs(10));
            assert!(matches!(err, ToolError::Model(_)), "{err:?}");
            insta::assert_snapshot!(
                "webfetch_timeout",
                err.to_string()
                    .replace(&s.addr().to_string(), "127.0.0.1:[PORT]")
            );
            let err = fetch(&t, json!({"url": s.url("/slow"), "timeout": -1}))
                .await
                .unwrap_err();
            assert!(err.to_string().contains("`timeout`"), "{err}");
        })
        .await;
}

#[tokio::test]
async fn cancelling_the_call_stops_the_request() {
    TestInstance::builder()
        .run(|t| async move {
            let s = server(Seen::default(), Endless::default()).await;
            let abort = CancellationToken::new();
            let cx = t.cx().abort(abort.clone()).build();
            let trigger = abort.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(200)).await;
                trigger.cancel();
            });
            let started = Instant::now();
            let err = t
                .call_with("webfetch", json!({"url": s.url("/slow")}), cx)
                .await
                .unwrap_err();
            assert!(matches!(err, ToolError::Cancelled), "{err:?}");
            // Well inside the wrapper's grace: the request itself stopped.
            assert!(started.elapsed() < Duration::from_secs(5));
        })
        .await;
}

#[tokio::test]
async fn bodies_over_five_mib_are_refused_with_or_without_a_length() {
    TestInstance::builder()
        .run(|t| async move {
            let endless = Endless::default();
            let s = server(Seen::default(), endless.clone()).await;
            let err = fetch(&t, json!({"url": s.url("/big")})).await.unwrap_err();
            assert!(err.to_string().contains("5 MB"), "{err}");
            let err = fetch(&t, json!({"url": s.url("/endless"), "format": "html"}))
                .await
                .unwrap_err();
            insta::assert_snapshot!(
                "webfetch_too_large",
                err.to_string()
                    .replace(&s.addr().to_string(), "127.0.0.1:[PORT]")
            );
            // The endless body stopped being read at the cap: the server's stream is dropped,
            // having sent the cap plus what the loopback socket buffers held (several MiB with
            // TCP autotuning), not an endless amount.
            let dropped = endless.dropped.clone();
            poll_with_timeout(
                "the server to drop the body",
                Duration::from_secs(10),
                || {
                    let done = dropped.load(Ordering::SeqCst);
                    async move { done.then_some(()) }
                },
            )
            .await;
            let sent = endless.sent.load(Ordering::SeqCst);
            assert!(sent < 64 << 20, "the server sent {sent} bytes");
        })
        .await;
}

/// A raw HTTP/1.1 server: answers with `head`, then bytes forever, whatever `head` promised.
async fn lying_server(head: &'static str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = [0u8; 4096];
                let _ = socket.read(&mut request).await;
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let chunk = vec![b'a'; 65_536];
                while socket.write_all(&chunk).await.is_ok() {}
            });
        }
    });
    format!("http://{addr}/")
}

#[tokio::test]
async fn a_lying_or_missing_content_length_cannot_exceed_the_cap() {
    TestInstance::builder()
        .run(|t| async move {
            // Promises 2048 bytes and keeps sending: only the promised bytes are taken.
            let url = lying_server(
                "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2048\r\n\r\n",
            )
            .await;
            let r = fetch(&t, json!({"url": url})).await.unwrap();
            assert_eq!(r.output.len(), 2048);
            // No length, the body ends at close, and it never closes: refused at the cap.
            let url = lying_server(
                "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n",
            )
            .await;
            let err = fetch(&t, json!({"url": url})).await.unwrap_err();
            assert!(err.to_string().contains("5 MB"), "{err}");
        })
        .await;
}

#[tokio::test]
async fn redirects_are_followed_up_to_the_limit() {
    TestInstance::builder()
        .run(|t| async move {
            let s = server(Seen::default(), Endless::default()).await;
            let r = fetch(&t, json!({"url": s.url(&format!("/hop/{MAX_REDIRECTS}"))}))
                .await
                .unwrap();
            assert_eq!(r.output, "arrived");
            let url = s.url(&format!("/hop/{}", MAX_REDIRECTS + 1));
            let err = fetch(&t, json!({"url": url})).await.unwrap_err();
            assert!(matches!(err, ToolError::Model(_)), "{err:?}");
            let msg = err.to_string();
            assert!(msg.contains("redirected more than"), "{msg}");
        })
        .await;
}

#[tokio::test]
async fn long_pages_go_through_the_truncation_layer() {
    TestInstance::builder()
        .run(|t| async move {
            let s = server(Seen::default(), Endless::default()).await;
            let r = fetch(&t, json!({"url": s.url("/long"), "format": "text"}))
                .await
                .unwrap();
            assert_eq!(r.metadata["truncated"], true);
            let saved = r.metadata["outputPath"].as_str().unwrap();
            let full = std::fs::read_to_string(saved).unwrap();
            assert!(full.ends_with("line 3000"), "{}", &full[full.len() - 20..]);
            assert!(r.output.contains("lines truncated"), "{}", r.output);
        })
        .await;
}

#[tokio::test]
async fn bad_arguments_are_named() {
    TestInstance::builder()
        .run(|t| async move {
            for (args, field) in [
                (json!({}), "url"),
                (json!({"url": 5}), "url"),
                (json!({"url": "http://x", "format": "pdf"}), "format"),
                (json!({"url": "http://x", "timeout": "10"}), "timeout"),
            ] {
                let err = fetch(&t, args.clone()).await.unwrap_err();
                assert!(
                    matches!(err, ToolError::InvalidArguments { .. }),
                    "{args}: {err}"
                );
                assert!(err.to_string().contains(field), "{args}: {err}");
            }
            assert!(t.asked_for("webfetch").is_empty());
        })
        .await;
}
