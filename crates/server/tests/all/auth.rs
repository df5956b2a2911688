//! Basic auth (header or `auth_token`), the username rule, and CORS.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use base64::Engine;

use super::fixture::server;

fn basic(user_pass: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(user_pass)
}

#[tokio::test]
async fn every_route_needs_the_password_when_one_is_set() {
    let s = server(vec![]).auth("s3cret", None).start().await;
    let open = s.get("/global/health").await;
    assert_eq!(open.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        open.headers["www-authenticate"],
        "Basic realm=\"Secure Area\""
    );
    assert_eq!(open.body["name"], "Unauthorized");
    let unknown = s.get("/nothing/here").await;
    assert_eq!(unknown.status, StatusCode::UNAUTHORIZED);

    let with = |auth: String| {
        Request::get("/global/health")
            .header("authorization", format!("Basic {auth}"))
            .body(Body::empty())
            .unwrap()
    };
    assert_eq!(
        s.send(with(basic("opencode:s3cret"))).await.status,
        StatusCode::OK
    );
    assert_eq!(
        s.send(with(basic("anyone:s3cret"))).await.status,
        StatusCode::OK
    );
    assert_eq!(
        s.send(with(basic("opencode:wrong"))).await.status,
        StatusCode::UNAUTHORIZED
    );
    let token = s
        .get(&format!(
            "/global/health?auth_token={}",
            basic("opencode:s3cret")
        ))
        .await;
    assert_eq!(token.status, StatusCode::OK);
    s.shutdown().await;

    let named = server(vec![]).auth("pw", Some("me")).start().await;
    let req = |u: &str| {
        Request::get("/global/health")
            .header("authorization", format!("Basic {}", basic(u)))
            .body(Body::empty())
            .unwrap()
    };
    assert_eq!(named.send(req("me:pw")).await.status, StatusCode::OK);
    assert_eq!(
        named.send(req("opencode:pw")).await.status,
        StatusCode::UNAUTHORIZED
    );
    named.shutdown().await;
}

#[tokio::test]
async fn cors_allows_local_and_configured_origins_only() {
    let s = server(vec![]).start().await;
    let from = |origin: &str, method: &str| {
        Request::builder()
            .method(method)
            .uri("/global/health")
            .header("origin", origin)
            .header("access-control-request-method", "GET")
            .body(Body::empty())
            .unwrap()
    };
    let local = s.send(from("http://localhost:5173", "GET")).await;
    assert_eq!(
        local.headers["access-control-allow-origin"],
        "http://localhost:5173"
    );
    let configured = s.send(from("https://app.example", "OPTIONS")).await;
    assert_eq!(configured.status, StatusCode::NO_CONTENT);
    assert_eq!(
        configured.headers["access-control-allow-origin"],
        "https://app.example"
    );
    let foreign = s.send(from("https://evil.example", "GET")).await;
    assert!(foreign.headers.get("access-control-allow-origin").is_none());
    let preflight = s.send(from("https://evil.example", "OPTIONS")).await;
    assert_eq!(preflight.status, StatusCode::FORBIDDEN);
    s.shutdown().await;
}
