//! Basic auth, opt-in: with a password configured (`STRATA_SERVER_PASSWORD`, also
//! `OPENCODE_SERVER_PASSWORD`), every request needs `Authorization: Basic base64(user:pass)` or
//! `?auth_token=base64(user:pass)` (for EventSource clients that cannot set headers). The
//! username is checked only when one is configured. Comparisons take constant time.

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use strata_protocol::wire::ServerCredentials;

use super::AppState;
use super::error::ApiFailure;

/// The credentials the server requires (none: open).
#[derive(Clone, Default)]
pub struct AuthConfig {
    pub password: Option<String>,
    pub username: Option<String>,
}

impl std::fmt::Debug for AuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthConfig")
            .field("password", &self.password.as_ref().map(|_| "<set>"))
            .field("username", &self.username)
            .finish()
    }
}

impl AuthConfig {
    /// From the environment, read as every client reads it ([`ServerCredentials`]): an empty
    /// password counts as none.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Self {
        let c = ServerCredentials::from_env(var);
        Self {
            password: c.password,
            username: c.username,
        }
    }

    pub fn enabled(&self) -> bool {
        self.password.is_some()
    }

    /// Whether `user:pass` (decoded) matches.
    fn accepts(&self, credentials: &[u8]) -> bool {
        let Some(password) = &self.password else {
            return true;
        };
        let Some(colon) = credentials.iter().position(|b| *b == b':') else {
            return false;
        };
        let (user, pass) = (&credentials[..colon], &credentials[colon + 1..]);
        let user_ok = self
            .username
            .as_ref()
            .is_none_or(|u| constant_time_eq(u.as_bytes(), user));
        let pass_ok = constant_time_eq(password.as_bytes(), pass);
        user_ok & pass_ok
    }
}

/// Equal lengths and bytes, in time that depends only on the lengths.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = u8::from(a.len() != b.len());
    for i in 0..a.len().max(b.len()) {
        diff |= a.get(i).copied().unwrap_or(0) ^ b.get(i).copied().unwrap_or(0xff);
    }
    diff == 0
}

fn supplied(req: &Request) -> Option<Vec<u8>> {
    let header = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Basic ")
                .or_else(|| v.strip_prefix("basic "))
        })
        .map(str::trim);
    let query = || {
        req.uri()
            .query()
            .and_then(|q| q.split('&').find_map(|p| p.strip_prefix("auth_token=")))
    };
    let token = header.or_else(query)?;
    let token = super::dir::percent_decode(token);
    STANDARD.decode(token.as_bytes()).ok()
}

/// The middleware.
pub(crate) async fn require(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let auth = &state.options.auth;
    // CORS preflights carry no credentials by design.
    if !auth.enabled() || req.method() == axum::http::Method::OPTIONS {
        return next.run(req).await;
    }
    if supplied(&req).is_some_and(|c| auth.accepts(&c)) {
        return next.run(req).await;
    }
    let mut response = ApiFailure::new(
        StatusCode::UNAUTHORIZED,
        "Unauthorized",
        "this server needs a password: send Authorization: Basic base64(user:password) or \
         ?auth_token=base64(user:password)",
    )
    .into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        header::HeaderValue::from_static("Basic realm=\"Secure Area\""),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn username_is_checked_only_when_configured() {
        let open = AuthConfig {
            password: Some("pw".into()),
            username: None,
        };
        assert!(open.accepts(b"opencode:pw"));
        assert!(open.accepts(b"anyone:pw"));
        assert!(!open.accepts(b"opencode:pw2"));
        assert!(!open.accepts(b"pw"));
        let named = AuthConfig {
            password: Some("pw".into()),
            username: Some("me".into()),
        };
        assert!(named.accepts(b"me:pw"));
        assert!(!named.accepts(b"opencode:pw"));
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
        assert!(!constant_time_eq(b"", b"\xff"));
    }
}
