//! CORS: requests without an Origin pass; localhost and 127.0.0.1 origins (any port) and the
//! configured ones (`--cors`) get the CORS headers and their preflights answered; other origins
//! get no CORS headers (so browsers refuse the response) and their preflights a 403.

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::error::ApiFailure;

/// Whether a browser page at `origin` may call the server.
pub(crate) fn allowed(origin: &str, configured: &[String]) -> bool {
    let local = [
        "http://localhost",
        "http://127.0.0.1",
        "https://localhost",
        "https://127.0.0.1",
    ]
    .iter()
    .any(|base| {
        origin.strip_prefix(base).is_some_and(|rest| {
            rest.is_empty()
                || (rest.starts_with(':') && rest[1..].bytes().all(|b| b.is_ascii_digit()))
        })
    });
    local || configured.iter().any(|c| c == origin)
}

pub(crate) async fn apply(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let Some(origin) = req
        .headers()
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
        .map(str::to_string)
    else {
        return next.run(req).await;
    };
    let ok = allowed(&origin, &state.options.cors);
    if req.method() == Method::OPTIONS {
        if !ok {
            return ApiFailure::new(
                StatusCode::FORBIDDEN,
                "Forbidden",
                format!("origin {origin} is not allowed; start the server with --cors {origin}"),
            )
            .into_response();
        }
        let mut response = StatusCode::NO_CONTENT.into_response();
        let h = response.headers_mut();
        h.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, POST, PUT, PATCH, DELETE, OPTIONS"),
        );
        let asked = req
            .headers()
            .get(header::ACCESS_CONTROL_REQUEST_HEADERS)
            .cloned()
            .unwrap_or_else(|| HeaderValue::from_static("*"));
        h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, asked);
        h.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("86400"),
        );
        add_origin(&mut response, &origin);
        return response;
    }
    let mut response = next.run(req).await;
    if ok {
        add_origin(&mut response, &origin);
    }
    response
}

fn add_origin(response: &mut Response, origin: &str) {
    if let Ok(value) = HeaderValue::from_str(origin) {
        let h = response.headers_mut();
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
        h.insert(
            header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
            HeaderValue::from_static("true"),
        );
        h.append(header::VARY, HeaderValue::from_static("Origin"));
        // Paged message lists name the next page in headers a page script must be let read.
        h.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static("X-Next-Cursor, Link"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::allowed;

    #[test]
    fn local_origins_and_configured_ones_only() {
        assert!(allowed("http://localhost:3000", &[]));
        assert!(allowed("http://127.0.0.1:4096", &[]));
        assert!(allowed("http://localhost", &[]));
        assert!(!allowed("http://localhost.evil.com", &[]));
        assert!(!allowed("http://evil.com", &[]));
        assert!(allowed(
            "https://app.example",
            &["https://app.example".into()]
        ));
    }
}
