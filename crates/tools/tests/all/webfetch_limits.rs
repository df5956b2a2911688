//! `webfetch` limits against loopback HTTP servers (spec §8): the timeout in seconds,
//! cancellation, the 5 MiB cap while streaming (lying, missing and endless lengths), redirects
//! and the truncation layer.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::json;
use strata_services::http::MAX_REDIRECTS;
use strata_testkit::{TestInstance, poll_with_timeout};
use strata_tools::ToolError;
use tokio_util::sync::CancellationToken;

use crate::webfetch_support::{Endless, Seen, fetch, server};

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
