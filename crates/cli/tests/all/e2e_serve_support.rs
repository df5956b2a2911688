//! `strata serve` as a child process for end-to-end tests: started on a free port with the
//! scripted model, its URL read from stdout, its stderr kept in a file (unknown routes are
//! logged there), killed when dropped. Plus small HTTP and SSE helpers.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use strata_testkit::SseReader;
use strata_testkit::model_server::ModelServer;

use super::common::{Project, strata_bin};
use super::e2e_run_support::MODEL;

pub(crate) const LIMIT: Duration = Duration::from_secs(60);

pub(crate) struct Served {
    pub child: Child,
    pub url: String,
    pub log: PathBuf,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `strata serve --port 0` for `p` talking to `model`, with extra env vars.
pub(crate) fn serve(p: &Project, model: &ModelServer, env: &[(&str, &str)]) -> Served {
    serve_with(strata_bin(), p, model, env)
}

/// Like [`serve`], with another build of `strata`.
pub(crate) fn serve_with(
    bin: &std::path::Path,
    p: &Project,
    model: &ModelServer,
    env: &[(&str, &str)],
) -> Served {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let log = p.tmp.join(format!("serve-{}.log", std::process::id()));
    let log = unique(log);
    let mut cmd = Command::new(bin);
    cmd.args(["serve", "--port", "0", "--dir"])
        .arg(&p.dir)
        .current_dir(&p.dir)
        .env("STRATA_DATA_DIR", &p.data)
        .env("STRATA_CONFIG_DIR", &p.config)
        .env("HOME", &p.home)
        .env("TMPDIR", &p.tmp)
        .env("OPENAI_BASE_URL", model.url())
        .env_remove("OPENAI_API_KEY")
        .env_remove("STRATA_SERVER_PASSWORD")
        .env_remove("OPENCODE_SERVER_PASSWORD")
        .env_remove("STRATA_LOG")
        .env_remove("OPENCODE_CONFIG")
        .env_remove("OPENCODE_CONFIG_CONTENT")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap());
    let mut child = cmd.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let line = rx.recv_timeout(LIMIT).unwrap_or_else(|_| {
        panic!(
            "strata serve printed no URL; log: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        )
    });
    let url = line
        .rsplit(' ')
        .next()
        .filter(|u| u.starts_with("http://"))
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_string();
    Served { child, url, log }
}

fn unique(path: PathBuf) -> PathBuf {
    let mut n = 0;
    loop {
        let candidate = path.with_extension(format!("{n}.log"));
        if !candidate.exists() {
            return candidate;
        }
        n += 1;
    }
}

impl Served {
    pub(crate) fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub(crate) async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let r = reqwest::Client::new()
            .post(format!("{}{path}", self.url))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    pub(crate) async fn get(&self, path: &str) -> (u16, Value) {
        let r = reqwest::get(format!("{}{path}", self.url)).await.unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    pub(crate) async fn session(&self) -> String {
        let (status, body) = self.post("/session", json!({})).await;
        assert_eq!(status, 200, "{body}");
        body["id"].as_str().unwrap().to_string()
    }

    /// A new session with its `/event` stream open and `text` sent without waiting.
    pub(crate) async fn prompted(&self, text: &str) -> (String, Events) {
        let id = self.session().await;
        let events = self.events("/event", None).await;
        self.post(&format!("/session/{id}/prompt_async"), prompt(text))
            .await;
        (id, events)
    }

    pub(crate) async fn events(&self, path: &str, last: Option<i64>) -> Events {
        let mut req = reqwest::Client::new().get(format!("{}{path}", self.url));
        if let Some(id) = last {
            req = req.header("last-event-id", id.to_string());
        }
        let r = req.send().await.unwrap();
        assert_eq!(r.status().as_u16(), 200);
        Events(SseReader::new(r.bytes_stream()))
    }
}

pub(crate) fn prompt(text: &str) -> Value {
    let (provider, model) = MODEL.split_once('/').unwrap();
    json!({"model": {"providerID": provider, "modelID": model}, "parts": [{"type": "text", "text": text}]})
}

/// An event stream being read: `(cursor, item)` pairs, each wait limited to `LIMIT`.
pub(crate) struct Events(SseReader);

impl Events {
    /// The next `(cursor, item)`; `None` when the stream ends or stalls past `LIMIT`.
    pub(crate) async fn next(&mut self) -> Option<(Option<i64>, Value)> {
        self.0.next(LIMIT).await
    }

    /// Items until `stop` matches one (included).
    pub(crate) async fn until(
        &mut self,
        stop: impl Fn(&Value) -> bool,
    ) -> Vec<(Option<i64>, Value)> {
        self.0.until(LIMIT, stop).await
    }
}

pub(crate) fn is(item: &Value, kind: &str) -> bool {
    item["type"] == kind
}

pub(crate) fn idle(item: &Value) -> bool {
    is(item, "session.status") && item["properties"]["status"]["type"] == "idle"
}
