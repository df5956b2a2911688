//! The server's request bodies through its real axum router: a server core over a temporary
//! project and data folder (one per process), fuzzed bodies sent to the POST, PUT and PATCH
//! routes of the document. Property: no answer is a 500, nothing panics, and `GET /doc` still
//! answers afterwards.
//!
//! Routes that would start a model turn or run a command (`message`, `prompt_async`, `shell`,
//! `summarize`) get a session id that does not exist: their bodies are still decoded and
//! checked, but no turn runs, so nothing leaves the machine and no fuzzed command is executed.

use std::sync::OnceLock;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use strata_server::http::{AuthConfig, HttpOptions};
use strata_server::router;
use strata_server::routes::all_routes;
use tower::ServiceExt;

/// The server a process fuzzes: its router, the routes that take a body, a real session.
pub struct Fixture {
    runtime: tokio::runtime::Runtime,
    app: Router,
    /// `(method, path)` of every POST, PUT and PATCH route.
    pub routes: Vec<(&'static str, &'static str)>,
    session: String,
    _root: tempfile::TempDir,
}

/// Routes whose handlers start a turn or a command once the session exists.
const TURNS: [&str; 4] = ["/message", "/prompt_async", "/shell", "/summarize"];

use crate::core::fail;

impl Fixture {
    fn start() -> Fixture {
        let runtime = crate::core::runtime();
        let root = tempfile::Builder::new()
            .prefix("strata-fuzz-")
            .tempdir()
            .unwrap_or_else(|e| fail("temp dir", e));
        let app = runtime.block_on(start_core(root.path()));
        let routes = all_routes()
            .into_iter()
            .filter(|r| matches!(r.method, "post" | "put" | "patch"))
            .filter(|r| r.path != "/x")
            .map(|r| (r.method, r.path))
            .collect();
        let mut f = Fixture {
            runtime,
            app,
            routes,
            session: String::new(),
            _root: root,
        };
        let (status, body) = f.send("POST", "/session", b"{}".to_vec());
        assert_eq!(status, StatusCode::OK, "creating the fuzz session: {body}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        f.session = v["id"].as_str().unwrap_or_default().to_string();
        f
    }

    /// Sends one request; returns the status and the body as text.
    pub fn send(&self, method: &str, path: &str, body: Vec<u8>) -> (StatusCode, String) {
        let req = Request::builder()
            .method(method)
            .uri(path)
            .header("content-type", "application/json")
            .body(Body::from(body))
            .unwrap_or_else(|e| panic!("request {method} {path}: {e}"));
        let app = self.app.clone();
        self.runtime.block_on(async move {
            let response = app.oneshot(req).await.unwrap_or_else(|e| match e {});
            let status = response.status();
            let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .unwrap_or_default();
            (status, String::from_utf8_lossy(&bytes).into_owned())
        })
    }

    /// The route's path with its parameters filled: the fuzz session (or a missing one for
    /// the routes that start turns), and ids chosen by `pick`.
    pub fn path(&self, template: &str, pick: u8) -> String {
        let session = if TURNS.iter().any(|t| template.ends_with(t)) {
            "ses_missing"
        } else if pick % 4 == 0 {
            "ses_other"
        } else {
            self.session.as_str()
        };
        let other = ["per_1", "que_1", "openai", "edit", "x%20y", ".."][pick as usize % 6];
        let mut out = String::new();
        for (i, segment) in template.split('/').enumerate() {
            if i > 0 {
                out.push('/');
            }
            out.push_str(match segment {
                "{id}" if template.starts_with("/session") => session,
                s if s.starts_with('{') => other,
                s => s,
            });
        }
        out
    }
}

async fn start_core(root: &std::path::Path) -> Router {
    let (core, _) = crate::core::start(root).await;
    router(
        core,
        HttpOptions {
            auth: AuthConfig::default(),
            cors: vec![],
        },
    )
}

/// The process's server, started on first use.
pub fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(Fixture::start)
}

/// First byte: the route; second: the ids in its path; the rest: the body.
pub fn check(data: &[u8]) {
    let f = fixture();
    let (route, pick, body) = match data {
        [r, p, body @ ..] => (*r, *p, body),
        _ => return,
    };
    let (method, template) = f.routes[route as usize % f.routes.len()];
    let path = f.path(template, pick);
    let (status, answer) = f.send(&method.to_uppercase(), &path, body.to_vec());
    assert!(
        status != StatusCode::INTERNAL_SERVER_ERROR,
        "{method} {path} with {:?} answered 500: {answer}",
        String::from_utf8_lossy(body)
    );
    let (doc, _) = f.send("GET", "/doc", vec![]);
    assert_eq!(doc, StatusCode::OK, "/doc after {method} {path}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_get_their_parameters() {
        let f = fixture();
        assert!(f.routes.iter().any(|r| *r == ("patch", "/session/{id}")));
        assert_eq!(
            f.path("/session/{id}/shell", 1),
            "/session/ses_missing/shell"
        );
        assert_eq!(
            f.path("/session/{id}/summarize", 1),
            "/session/ses_missing/summarize"
        );
        assert_eq!(
            f.path("/permission/{id}/reply", 0),
            "/permission/per_1/reply"
        );
        assert_eq!(
            f.path("/session/{id}", 1),
            format!("/session/{}", f.session)
        );
        check(&[0, 0, b'{']);
    }
}
