//! `webfetch` through the real wrapper against loopback HTTP servers (spec §8, §19 webfetch):
//! the three formats, images, request headers, schemes, statuses and the permission ask.

use std::sync::atomic::Ordering;

use axum::http::header;
use base64::Engine;
use serde_json::{Value, json};
use strata_services::permission::PermissionError;
use strata_testkit::{ReplyMode, TestInstance};
use strata_tools::ToolError;

use crate::webfetch_support::{Endless, PAGE, PNG, Seen, fetch, render, server};

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
