//! HttpClient against a real axum server on 127.0.0.1.

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Redirect;
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
    HttpClient::new().unwrap()
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
