//! A server core and router over a temporary project, data and config directory, with the
//! scripted model server configured as the `openai` provider.

use std::path::{Path, PathBuf};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};
use strata_graph::{Node, Tier};
use strata_server::http::{AuthConfig, HttpOptions};
use strata_server::{CoreOptions, ServerCore, router};
use strata_services::flags::RuntimeFlags;
use strata_testkit::SseReader;
use strata_testkit::model_server::{ModelServer, Turn};
use tower::ServiceExt;

pub(crate) const MODEL: (&str, &str) = ("openai", "scripted-model");

pub(crate) struct Server {
    pub core: ServerCore,
    pub app: Router,
    pub dir: PathBuf,
    pub model: ModelServer,
    root: tempfile::TempDir,
}

pub(crate) struct Builder {
    script: Vec<Turn>,
    config: Value,
    auth: AuthConfig,
    files: Vec<(&'static str, &'static str)>,
    /// Providers, besides `openai`, whose base URL is the scripted model server.
    served_as: Vec<&'static str>,
    /// The project folder doubles as the home directory (snapshots refuse it).
    home_is_project: bool,
}

impl Builder {
    /// Points provider `id` (a catalogue provider) at the scripted model server too.
    pub(crate) fn served_as(mut self, id: &'static str) -> Self {
        self.served_as.push(id);
        self
    }

    pub(crate) fn config(mut self, extra: Value) -> Self {
        if let (Some(c), Some(e)) = (self.config.as_object_mut(), extra.as_object()) {
            for (k, v) in e {
                c.insert(k.clone(), v.clone());
            }
        }
        self
    }

    pub(crate) fn auth(mut self, password: &str, username: Option<&str>) -> Self {
        self.auth = AuthConfig {
            password: Some(password.into()),
            username: username.map(str::to_string),
        };
        self
    }

    /// Runs the project in what the server takes for the user's home directory.
    pub(crate) fn home_is_project(mut self) -> Self {
        self.home_is_project = true;
        self
    }

    pub(crate) fn file(mut self, rel: &'static str, content: &'static str) -> Self {
        self.files.push((rel, content));
        self
    }

    pub(crate) async fn start(self) -> Server {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let root = tempfile::Builder::new()
            .prefix("strata-server-")
            .tempdir()
            .unwrap();
        let dir = root.path().join("project");
        let (data, config_dir, home) = (
            root.path().join("data"),
            root.path().join("config"),
            root.path().join("home"),
        );
        for d in [&dir, &data, &config_dir, &home] {
            std::fs::create_dir_all(d).unwrap();
        }
        let dir = std::fs::canonicalize(&dir).unwrap();
        for (rel, content) in &self.files {
            std::fs::write(dir.join(rel), content).unwrap();
        }
        let model = ModelServer::start(self.script);
        let mut config = self.config;
        config["model"] = json!(format!("{}/{}", MODEL.0, MODEL.1));
        if !config["provider"].is_object() {
            config["provider"] = json!({});
        }
        config["provider"]["openai"] = json!({"baseURL": model.url()});
        for id in &self.served_as {
            config["provider"][*id] = json!({"options": {"baseURL": model.url()}});
        }
        std::fs::write(dir.join("strata.json"), config.to_string()).unwrap();
        let mut flags = RuntimeFlags::for_dirs(&data, &config_dir);
        flags.home_dir = if self.home_is_project {
            dir.clone()
        } else {
            home
        };
        let mut graph = strata_agent::production();
        graph
            .replace::<RuntimeFlags>(Node::value(Tier::Global, flags))
            .unwrap();
        let core = ServerCore::start(CoreOptions {
            default_dir: dir.clone(),
            graph,
        })
        .await
        .unwrap();
        let app = router(
            core.clone(),
            HttpOptions {
                auth: self.auth,
                cors: vec!["https://app.example".into()],
            },
        );
        Server {
            core,
            app,
            dir,
            model,
            root,
        }
    }
}

pub(crate) fn server(script: Vec<Turn>) -> Builder {
    Builder {
        script,
        config: json!({}),
        auth: AuthConfig::default(),
        files: Vec::new(),
        served_as: Vec::new(),
        home_is_project: false,
    }
}

/// A finished response: status, headers and the body as JSON (`Value::String` when not JSON).
#[derive(Debug)]
pub(crate) struct Answer {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub body: Value,
}

impl Server {
    pub(crate) fn root(&self) -> &Path {
        self.root.path()
    }

    pub(crate) async fn send(&self, req: Request<Body>) -> Answer {
        let response = self.app.clone().oneshot(req).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        let body = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        Answer {
            status,
            headers,
            body,
        }
    }

    pub(crate) async fn call(&self, method: &str, path: &str, body: Option<Value>) -> Answer {
        let req = Request::builder().method(method).uri(path);
        let req = match body {
            Some(b) => req
                .header("content-type", "application/json")
                .body(Body::from(b.to_string())),
            None => req.body(Body::empty()),
        };
        self.send(req.unwrap()).await
    }

    pub(crate) async fn get(&self, path: &str) -> Answer {
        self.call("GET", path, None).await
    }

    pub(crate) async fn post(&self, path: &str, body: Value) -> Answer {
        self.call("POST", path, Some(body)).await
    }

    /// A new session; panics unless created.
    pub(crate) async fn session(&self) -> String {
        let a = self.post("/session", json!({})).await;
        assert_eq!(a.status, StatusCode::OK, "{a:?}");
        a.body["id"].as_str().unwrap().to_string()
    }

    /// A prompt body naming the scripted model.
    pub(crate) fn prompt(text: &str) -> Value {
        json!({
            "model": {"providerID": MODEL.0, "modelID": MODEL.1},
            "parts": [{"type": "text", "text": text}],
        })
    }

    /// Insta settings that make ids, times and paths stable.
    pub(crate) fn redactions(&self) -> insta::Settings {
        let mut s = insta::Settings::clone_current();
        s.add_filter(&regex_escape(&self.dir.to_string_lossy()), "[DIR]");
        s.add_filter(&regex_escape(&self.root().to_string_lossy()), "[ROOT]");
        s.add_filter(r"(ses|msg|prt|per|que|evt)_[0-9A-Za-z]+", "${1}_[ID]");
        s.add_filter(
            r#""(created|updated|start|end|completed|time)": \d+"#,
            "\"$1\": [T]",
        );
        s.add_filter(r#""projectID": "[0-9a-f]+""#, "\"projectID\": \"[P]\"");
        s.add_filter(r#""slug": "[0-9A-Za-z]+""#, "\"slug\": \"[S]\"");
        // Depends on the kernel; `session_sandbox.rs` checks the value itself.
        s.add_filter(r#""sandbox": "[a-z-]+""#, "\"sandbox\": \"[MODE]\"");
        s
    }

    pub(crate) async fn shutdown(self) {
        self.core.shutdown().await;
    }
}

fn regex_escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Generous limit for a scripted turn.
pub(crate) const TURN: Duration = Duration::from_secs(30);

/// An event stream being read: `(cursor, item)` pairs, with a limit on every wait.
pub(crate) struct Sse(SseReader);

impl Server {
    /// Opens an SSE route; `last` is sent as `Last-Event-ID`.
    pub(crate) async fn sse(&self, path: &str, last: Option<i64>) -> Sse {
        let mut req = Request::get(path);
        if let Some(id) = last {
            req = req.header("last-event-id", id.to_string());
        }
        let response = self
            .app
            .clone()
            .oneshot(req.body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        assert_eq!(response.headers()["x-accel-buffering"], "no");
        Sse(SseReader::new(response.into_body().into_data_stream()))
    }
}

impl Sse {
    /// The next frame, or `None` when the stream ended or nothing came within `limit`.
    pub(crate) async fn next(&mut self, limit: Duration) -> Option<(Option<i64>, Value)> {
        self.0.next(limit).await
    }

    /// Frames until one satisfies `stop` (included); panics after `limit` without it.
    pub(crate) async fn until(
        &mut self,
        limit: Duration,
        stop: impl Fn(&Value) -> bool,
    ) -> Vec<(Option<i64>, Value)> {
        self.0.until(limit, stop).await
    }
}

/// `type` of an `/event` item.
pub(crate) fn kind(item: &Value) -> &str {
    item["type"].as_str().unwrap_or("")
}

/// Whether the item is `session.status` idle.
pub(crate) fn idle(item: &Value) -> bool {
    kind(item) == "session.status" && item["properties"]["status"]["type"] == "idle"
}
