//! HttpClient against a real axum server on 127.0.0.1.

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect};
use axum::routing::{get, post};
use serde_json::{Value, json};
use strata_services::http::{HttpClient, HttpError, RequestOptions};

async fn server() -> String {
    let app = Router::new()
        .route("/hello", get(|| async { "hello world" }))
        .route(
            "/teapot",
            get(|| async { (StatusCode::IM_A_TEAPOT, "short and stout") }),
        )
        .route(
            "/slow",
            get(|| async {
                // The server is slow on purpose; the client must give up first.
                tokio::time::sleep(Duration::from_secs(30)).await;
                "late"
            }),
        )
        .route("/big", get(|| async { "x".repeat(100_000) }))
        .route(
            "/stream",
            get(|| async {
                // No Content-Length: the cap must be enforced while reading.
                let chunks =
                    (0..100).map(|_| Ok::<_, std::io::Error>(bytes::Bytes::from(vec![b'y'; 1000])));
                Body::from_stream(futures::stream::iter(chunks))
            }),
        )
        .route("/redirect", get(|| async { Redirect::temporary("/hello") }))
        .route(
            "/header",
            get(|headers: HeaderMap| async move {
                headers
                    .get("x-test")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("none")
                    .to_string()
            }),
        )
        .route(
            "/echo",
            post(|axum::Json(v): axum::Json<Value>| async move { axum::Json(json!({ "got": v })) }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    format!("http://{addr}")
}

fn client() -> HttpClient {
    HttpClient::new()
}

#[tokio::test]
async fn get_returns_body_headers_and_final_url() {
    let base = server().await;
    let r = client()
        .get(&format!("{base}/hello"), RequestOptions::default())
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.text(), "hello world");
    assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
    assert_eq!(r.final_url, format!("{base}/hello"));

    let r = client()
        .get(&format!("{base}/redirect"), RequestOptions::default())
        .await
        .unwrap();
    assert_eq!(r.text(), "hello world");
    assert_eq!(r.final_url, format!("{base}/hello"));
}

#[tokio::test]
async fn non_success_status_is_returned_not_an_error() {
    let base = server().await;
    let r = client()
        .get(&format!("{base}/teapot"), RequestOptions::default())
        .await
        .unwrap();
    assert_eq!(r.status, StatusCode::IM_A_TEAPOT.as_u16());
    assert_eq!(r.text(), "short and stout");
}

#[tokio::test]
async fn timeout_names_the_url_and_duration() {
    let base = server().await;
    let url = format!("{base}/slow");
    let opts = RequestOptions {
        timeout: Some(Duration::from_millis(200)),
        ..Default::default()
    };
    let started = std::time::Instant::now();
    let err = client().get(&url, opts).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10));
    match &err {
        HttpError::Timeout { url: u, after } => {
            assert_eq!(u, &url);
            assert_eq!(*after, Duration::from_millis(200));
        }
        other => panic!("expected a timeout, got {other}"),
    }
    assert!(err.to_string().contains(&url), "{err}");
}

#[tokio::test]
async fn size_cap_applies_with_and_without_content_length() {
    let base = server().await;
    for path in ["/big", "/stream"] {
        let url = format!("{base}{path}");
        let opts = RequestOptions {
            max_bytes: Some(10_000),
            ..Default::default()
        };
        let err = client().get(&url, opts).await.unwrap_err();
        match &err {
            HttpError::TooLarge { url: u, limit } => {
                assert_eq!(u, &url);
                assert_eq!(*limit, 10_000);
            }
            other => panic!("expected TooLarge for {path}, got {other}"),
        }
        let msg = err.to_string();
        assert!(msg.contains(&url) && msg.contains("10000"), "{msg}");
        // Under a big enough cap the whole body arrives.
        let opts = RequestOptions {
            max_bytes: Some(100_000),
            ..Default::default()
        };
        assert_eq!(client().get(&url, opts).await.unwrap().body.len(), 100_000);
    }
}

#[tokio::test]
async fn post_json_and_headers_reach_the_server() {
    let base = server().await;
    let r = client()
        .post_json(
            &format!("{base}/echo"),
            &json!({"a": [1, 2]}),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    let v: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(v, json!({"got": {"a": [1, 2]}}));

    let opts = RequestOptions {
        headers: vec![("x-test".into(), "present".into())],
        ..Default::default()
    };
    let r = client().get(&format!("{base}/header"), opts).await.unwrap();
    assert_eq!(r.text(), "present");
}

#[tokio::test]
async fn connect_and_input_errors_name_the_url() {
    // A port that was just free: nothing listens there any more.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/x", listener.local_addr().unwrap());
    drop(listener);
    let err = client()
        .get(&url, RequestOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(err, HttpError::Connect { .. }), "{err}");
    assert!(err.to_string().contains(&url), "{err}");

    let err = client()
        .get("not a url", RequestOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(err, HttpError::InvalidUrl { .. }), "{err}");
    let err = client()
        .get("ftp://127.0.0.1/x", RequestOptions::default())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("ftp"), "{err}");

    let opts = RequestOptions {
        headers: vec![("bad header".into(), "v".into())],
        ..Default::default()
    };
    let err = client()
        .get("http://127.0.0.1:9/x", opts)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("bad header"), "{err}");
}

/// Counts the bytes an endless body has produced, and notices when the server drops it.
#[derive(Clone, Default)]
struct Endless {
    sent: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    dropped: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

struct DropFlag(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Endless {
    /// A chunked body of 64 KiB chunks that never ends.
    fn body(&self) -> Body {
        let sent = self.sent.clone();
        let flag = DropFlag(self.dropped.clone());
        let chunks = futures::stream::repeat_with(move || {
            let _keep = &flag;
            sent.fetch_add(65_536, std::sync::atomic::Ordering::SeqCst);
            Ok::<_, std::io::Error>(bytes::Bytes::from(vec![b'z'; 65_536]))
        });
        Body::from_stream(chunks)
    }
}

#[tokio::test]
async fn an_endless_chunked_body_stops_at_the_cap_and_the_connection_is_dropped() {
    let endless = Endless::default();
    let e = endless.clone();
    let app = Router::new().route("/endless", get(move || async move { e.body() }));
    let server = serve(app).await;
    let url = format!("{server}/endless");
    let opts = RequestOptions {
        max_bytes: Some(1 << 20),
        timeout: Some(Duration::from_secs(30)),
        ..Default::default()
    };
    let err = client().get(&url, opts).await.unwrap_err();
    assert!(
        matches!(err, HttpError::TooLarge { limit, .. } if limit == 1 << 20),
        "{err}"
    );
    // The client hung up: the server's body is dropped soon, having sent the cap plus what the
    // loopback socket buffers held (several MiB with TCP autotuning), not an endless amount.
    let dropped = endless.dropped.clone();
    wait_until(
        "the server to stop sending",
        Duration::from_secs(10),
        move || dropped.load(std::sync::atomic::Ordering::SeqCst),
    )
    .await;
    let sent = endless.sent.load(std::sync::atomic::Ordering::SeqCst);
    assert!(sent < 64 << 20, "the server sent {sent} bytes");
}

/// A raw HTTP/1.1 server that answers every connection with `head` and then `body_len` bytes
/// (or bytes forever when `None`), ignoring what the head promised.
async fn raw_server(head: &'static str, body_len: Option<usize>) -> String {
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
                let chunk = vec![b'q'; 65_536];
                let mut written = 0;
                while body_len.is_none_or(|n| written < n) {
                    if socket.write_all(&chunk).await.is_err() {
                        return;
                    }
                    written += chunk.len();
                }
            });
        }
    });
    format!("http://{addr}")
}

#[tokio::test]
async fn a_lying_or_missing_content_length_cannot_push_the_body_past_the_cap() {
    let opts = || RequestOptions {
        max_bytes: Some(1 << 20),
        timeout: Some(Duration::from_secs(30)),
        ..Default::default()
    };
    // Claims 1000 bytes and sends megabytes: only the declared 1000 are read.
    let base = raw_server(
        "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 1000\r\n\r\n",
        Some(8 << 20),
    )
    .await;
    let r = client().get(&format!("{base}/x"), opts()).await.unwrap();
    assert_eq!(r.body.len(), 1000);
    // No length at all, the body ends when the connection closes, and it never does.
    let base = raw_server(
        "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n",
        None,
    )
    .await;
    let err = client()
        .get(&format!("{base}/x"), opts())
        .await
        .unwrap_err();
    assert!(matches!(err, HttpError::TooLarge { .. }), "{err}");
    // Claims more than the cap: refused before the body is read.
    let base = raw_server(
        "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 99999999\r\n\r\n",
        Some(65_536),
    )
    .await;
    let err = client()
        .get(&format!("{base}/x"), opts())
        .await
        .unwrap_err();
    assert!(matches!(err, HttpError::TooLarge { .. }), "{err}");
}

#[tokio::test]
async fn cancellation_stops_the_exchange_and_names_the_url() {
    let base = server().await;
    let url = format!("{base}/slow");
    let cancel = tokio_util::sync::CancellationToken::new();
    let opts = RequestOptions {
        cancel: Some(cancel.clone()),
        ..Default::default()
    };
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let started = std::time::Instant::now();
    let err = client().get(&url, opts).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(matches!(err, HttpError::Cancelled { .. }), "{err}");
    assert!(err.to_string().contains(&url), "{err}");
}

#[tokio::test]
async fn redirects_are_followed_up_to_the_limit() {
    use strata_services::http::MAX_REDIRECTS;
    // `/hop/N` redirects to `/hop/N-1`; `/hop/0` answers.
    let app = Router::new().route(
        "/hop/{n}",
        get(
            |axum::extract::Path(n): axum::extract::Path<usize>| async move {
                if n == 0 {
                    "landed".into_response()
                } else {
                    Redirect::temporary(&format!("/hop/{}", n - 1)).into_response()
                }
            },
        ),
    );
    let base = serve(app).await;
    let url = format!("{base}/hop/{MAX_REDIRECTS}");
    let r = client().get(&url, RequestOptions::default()).await.unwrap();
    assert_eq!(r.text(), "landed");
    assert_eq!(r.final_url, format!("{base}/hop/0"));
    let url = format!("{base}/hop/{}", MAX_REDIRECTS + 1);
    let err = client()
        .get(&url, RequestOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(err, HttpError::TooManyRedirects { limit, .. } if limit == MAX_REDIRECTS),
        "{err}"
    );
    assert!(err.to_string().contains(&url), "{err}");
}

/// Serves `app` on a free loopback port.
async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    format!("http://{addr}")
}

/// Polls `done` every few milliseconds until it holds; fails the test after `limit`.
/// (The testkit's poll helper sits above this crate.)
async fn wait_until(what: &str, limit: Duration, done: impl Fn() -> bool) {
    let polled = tokio::time::timeout(limit, async {
        while !done() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert!(polled.is_ok(), "waited {limit:?} for {what}");
}
