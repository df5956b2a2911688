//! The load driver shared by the load test and `bench/serve_load.sh`: `sessions` sessions each
//! run one scripted 5-step turn (four cheap tool calls, `read` of `a.txt` and `b.txt` in turn,
//! then a text answer) at the same time, while `clients` SSE clients read `/global/event` over real HTTP.
//! It works against any server speaking opencode's API (Strata's router on a loopback
//! listener, a `strata serve` process, `opencode serve`), and measures what the bench prints.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{Value, json};
use strata_testkit::model_server::{ModelServer, SentItem, SentRequest, Turn};

/// Model requests per turn: four tool steps and the answer.
pub(crate) const STEPS: usize = 5;
/// The prompt of session `n` starts with this and `n`.
const KEY: &str = "load-session-";

/// Where the load goes.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub url: String,
    /// The project directory, sent as `?directory=`.
    pub dir: String,
    /// `(providerID, modelID)` of the scripted model.
    pub model: (String, String),
}

/// The scripted model's answers, chosen from the conversation so far: the step is the number
/// of tool results in the request. Requests without tools (opencode's title requests) get a
/// short title. Returns request number → `(session number, step)`.
pub(crate) fn script(model: &ModelServer) -> Arc<Mutex<HashMap<usize, (usize, usize)>>> {
    let asked = Arc::new(Mutex::new(HashMap::new()));
    let record = asked.clone();
    model.respond_with(move |n, body| {
        let sent = SentRequest::from_body(body);
        if sent.tools.is_empty() {
            return Some(Turn::text("Load title"));
        }
        let session = session_number(&sent)?;
        let step = sent.results().len();
        record.lock().unwrap().insert(n, (session, step));
        let id = format!("call_{session}_{step}");
        Some(match step {
            0 | 2 => Turn::tool_call(&id, "read", r#"{"filePath":"a.txt"}"#),
            1 | 3 => Turn::tool_call(&id, "read", r#"{"filePath":"b.txt"}"#),
            _ => Turn::text(answer(session)),
        })
    });
    asked
}

fn session_number(sent: &SentRequest) -> Option<usize> {
    let user = sent.messages.iter().find(|m| m.role == "user")?;
    user.items.iter().find_map(|i| match i {
        SentItem::Text(t) => {
            let rest = &t[t.find(KEY)? + KEY.len()..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        }
        _ => None,
    })
}

/// The answer session `n` ends its turn with.
pub(crate) fn answer(n: usize) -> String {
    format!("Load answer {n}.")
}

/// One SSE item as a client got it.
#[derive(Debug, Clone)]
pub(crate) struct Got {
    pub at: Instant,
    /// The `id:` line (Strata's cursor), when there was one.
    pub cursor: Option<i64>,
    /// The `payload` of the global envelope.
    pub payload: Value,
    /// The `data:` line as it came (the whole envelope), to compare items between clients.
    pub raw: String,
}

impl Got {
    pub(crate) fn kind(&self) -> &str {
        self.payload["type"].as_str().unwrap_or("")
    }

    /// The session the item is about, when it names one.
    pub(crate) fn session(&self) -> Option<&str> {
        let p = &self.payload["properties"];
        p["sessionID"]
            .as_str()
            .or_else(|| p["info"]["sessionID"].as_str())
            .or_else(|| p["part"]["sessionID"].as_str())
            .or_else(|| match self.kind() {
                "session.created" | "session.updated" => p["info"]["id"].as_str(),
                _ => None,
            })
    }
}

/// What a run gives back.
#[derive(Debug)]
pub(crate) struct Run {
    /// Session number → id.
    pub sessions: Vec<String>,
    /// Every client's items (without `server.*`), in arrival order.
    pub clients: Vec<Vec<Got>>,
    /// When the prompts went out.
    pub start: Instant,
}

/// `text` for a query value: unreserved characters and `/` as they are, the rest escaped.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("an HTTP client without TLS settings builds")
}

/// Runs the load: connects the clients, creates the sessions, sends every prompt at once and
/// waits (at most `limit`) until each client has seen every session go busy and idle again.
pub(crate) async fn run(target: &Target, sessions: usize, clients: usize, limit: Duration) -> Run {
    let mut readers = Vec::new();
    let mut connected = Vec::new();
    for _ in 0..clients {
        let (tx, rx) = tokio::sync::oneshot::channel();
        connected.push(rx);
        readers.push(tokio::spawn(read_events(target.url.clone(), sessions, tx)));
    }
    for rx in connected {
        tokio::time::timeout(limit, rx)
            .await
            .expect("every SSE client connects in time")
            .expect("the SSE client task is alive");
    }
    let client = http();
    let url = &target.url;
    let dir = &encode(&target.dir);
    let created = futures::future::join_all((0..sessions).map(|_| {
        let client = client.clone();
        async move {
            let res = client
                .post(format!("{url}/session?directory={dir}"))
                .json(&json!({}))
                .send()
                .await
                .expect("POST /session answers");
            assert!(res.status().is_success(), "POST /session: {}", res.status());
            let body: Value = res.json().await.expect("a session is JSON");
            body["id"]
                .as_str()
                .expect("a session has an id")
                .to_string()
        }
    }))
    .await;
    let start = Instant::now();
    futures::future::join_all(created.iter().enumerate().map(|(n, id)| {
        let client = client.clone();
        let body = json!({
            "model": {"providerID": target.model.0, "modelID": target.model.1},
            "parts": [{"type": "text", "text": format!("{KEY}{n}: look at a.txt and the text files, then answer.")}],
        });
        async move {
            let res = client
                .post(format!("{url}/session/{id}/prompt_async?directory={dir}"))
                .json(&body)
                .send()
                .await
                .expect("POST prompt_async answers");
            assert!(res.status().is_success(), "prompt_async: {}", res.status());
        }
    }))
    .await;
    let mut got = Vec::new();
    for (n, reader) in readers.into_iter().enumerate() {
        let items = tokio::time::timeout(limit, reader)
            .await
            .unwrap_or_else(|_| {
                panic!("SSE client {n} did not see every turn end within {limit:?}")
            })
            .expect("the SSE client task ends cleanly");
        got.push(items);
    }
    Run {
        sessions: created,
        clients: got,
        start,
    }
}

/// One `/global/event` client: reads until `sessions` sessions went busy and then idle.
async fn read_events(
    url: String,
    sessions: usize,
    connected: tokio::sync::oneshot::Sender<()>,
) -> Vec<Got> {
    let res = http()
        .get(format!("{url}/global/event"))
        .send()
        .await
        .expect("GET /global/event answers");
    assert!(res.status().is_success(), "/global/event: {}", res.status());
    let mut stream = res.bytes_stream();
    let mut buffer: Vec<u8> = Vec::new();
    let mut connected = Some(connected);
    let mut out = Vec::new();
    let mut busy = HashSet::new();
    let mut done = HashSet::new();
    while done.len() < sessions {
        let Some(chunk) = stream.next().await else {
            panic!(
                "the event stream ended after {} items ({} turns done)",
                out.len(),
                done.len()
            )
        };
        let at = Instant::now();
        buffer.extend_from_slice(&chunk.expect("the event stream reads"));
        while let Some(end) = buffer.windows(2).position(|w| w == b"\n\n") {
            let frame: Vec<u8> = buffer.drain(..end + 2).collect();
            let text = String::from_utf8(frame).expect("SSE frames are UTF-8");
            let (mut cursor, mut data) = (None, None);
            for line in text.lines() {
                if let Some(v) = line.strip_prefix("id:") {
                    cursor = v.trim().parse().ok();
                } else if let Some(v) = line.strip_prefix("data:") {
                    data = Some(v.trim_start().to_string());
                }
            }
            let Some(raw) = data else { continue };
            let mut envelope: Value = serde_json::from_str(&raw).expect("an SSE item is JSON");
            let payload = match envelope.get_mut("payload") {
                Some(p) => p.take(),
                None => envelope,
            };
            let got = Got {
                at,
                cursor,
                payload,
                raw,
            };
            if got.kind().starts_with("server.") {
                if let Some(tx) = connected.take() {
                    let _ = tx.send(());
                }
                continue;
            }
            // A turn ends with `session.status` idle and then `session.idle` (both servers).
            let sid = got.session().unwrap_or_default().to_string();
            if got.kind() == "session.status"
                && got.payload["properties"]["status"]["type"] == "busy"
            {
                busy.insert(sid);
            } else if got.kind() == "session.idle" && busy.contains(&sid) {
                done.insert(sid);
            }
            out.push(got);
        }
    }
    out
}

/// Every client got the same items in the same order (none lost, none repeated).
pub(crate) fn same_everywhere(run: &Run) -> Result<(), String> {
    let first: Vec<&str> = run.clients[0].iter().map(|g| g.raw.as_str()).collect();
    for (n, other) in run.clients.iter().enumerate().skip(1) {
        let theirs: Vec<&str> = other.iter().map(|g| g.raw.as_str()).collect();
        if theirs != first {
            let at = first
                .iter()
                .zip(&theirs)
                .position(|(a, b)| a != b)
                .unwrap_or(first.len().min(theirs.len()));
            return Err(format!(
                "client {n} differs from client 0 at item {at} ({} vs {} items): {:?} vs {:?}",
                theirs.len(),
                first.len(),
                theirs.get(at),
                first.get(at)
            ));
        }
    }
    // One stored event may give two items of different types under one id.
    let ids: HashSet<(&str, &str)> = run.clients[0]
        .iter()
        .filter_map(|g| Some((g.payload["id"].as_str()?, g.kind())))
        .collect();
    let with_id = run.clients[0]
        .iter()
        .filter(|g| g.payload["id"].is_string())
        .count();
    if ids.len() != with_id {
        return Err(format!(
            "{} items carry an id but only {} ids are distinct: some item came twice",
            with_id,
            ids.len()
        ));
    }
    Ok(())
}

/// The `p`-th percentile (0..=100) of `v` (sorted in place), nearest rank.
pub(crate) fn percentile(v: &mut [Duration], p: f64) -> Duration {
    if v.is_empty() {
        return Duration::ZERO;
    }
    v.sort();
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

/// The measured figures of a run.
#[derive(Debug)]
pub(crate) struct Figures {
    pub turns_per_second: f64,
    pub wall: Duration,
    /// Model response end → `step-finish` of that step at each client, every step.
    pub step: Vec<Duration>,
    /// The same for the answer step only (no tool runs in between).
    pub answer: Vec<Duration>,
    /// Per item: arrival at each client − the earliest arrival of that item.
    pub spread: Vec<Duration>,
    pub items: usize,
}

/// Computes the figures of `run` from the model's response ends (`asked` maps a request to
/// its session and step).
pub(crate) fn figures(
    run: &Run,
    ends: &[(usize, Instant)],
    asked: &HashMap<usize, (usize, usize)>,
) -> Figures {
    let index: HashMap<&str, usize> = run
        .sessions
        .iter()
        .enumerate()
        .map(|(n, id)| (id.as_str(), n))
        .collect();
    let end_of: HashMap<(usize, usize), Instant> = ends
        .iter()
        .filter_map(|(n, at)| asked.get(n).map(|k| (*k, *at)))
        .collect();
    let (mut step, mut answer, mut spread) = (Vec::new(), Vec::new(), Vec::new());
    let mut first_at: HashMap<&str, Instant> = HashMap::new();
    let mut last_idle = run.start;
    for items in &run.clients {
        let mut finishes: HashMap<usize, usize> = HashMap::new();
        let mut seen_parts = HashSet::new();
        for g in items {
            let e = first_at.entry(g.raw.as_str()).or_insert(g.at);
            *e = (*e).min(g.at);
            if g.kind() == "session.status" && g.payload["properties"]["status"]["type"] == "idle" {
                last_idle = last_idle.max(g.at);
            }
            let part = &g.payload["properties"]["part"];
            if g.kind() != "message.part.updated" || part["type"] != "step-finish" {
                continue;
            }
            let part_id = part["id"].as_str().unwrap_or_default();
            if !seen_parts.insert(part_id) {
                continue;
            }
            let Some(&n) = g.session().and_then(|s| index.get(s)) else {
                continue;
            };
            let k = finishes.entry(n).or_default();
            if let Some(end) = end_of.get(&(n, *k)) {
                let d = g.at.saturating_duration_since(*end);
                step.push(d);
                if *k == STEPS - 1 {
                    answer.push(d);
                }
            }
            *k += 1;
        }
    }
    for items in &run.clients {
        for g in items {
            spread.push(g.at.saturating_duration_since(first_at[g.raw.as_str()]));
        }
    }
    let wall = last_idle.saturating_duration_since(run.start);
    Figures {
        turns_per_second: run.sessions.len() as f64 / wall.as_secs_f64().max(1e-9),
        wall,
        step,
        answer,
        spread,
        items: run.clients.first().map_or(0, Vec::len),
    }
}

/// Each session's stored conversation: the answer ends it, every tool part completed. Returns
/// a description of the first problem.
pub(crate) async fn check_sessions(target: &Target, run: &Run) -> Result<(), String> {
    let client = http();
    for (n, id) in run.sessions.iter().enumerate() {
        let url = format!(
            "{}/session/{id}/message?directory={}",
            target.url,
            encode(&target.dir)
        );
        let res = client
            .get(url)
            .send()
            .await
            .map_err(|e| format!("GET messages of {id}: {e}"))?;
        let messages: Vec<Value> = res.json().await.map_err(|e| format!("{id}: {e}"))?;
        let parts: Vec<&Value> = messages
            .iter()
            .filter(|m| m["info"]["role"] == "assistant")
            .flat_map(|m| m["parts"].as_array().into_iter().flatten())
            .collect();
        let tools: Vec<&Value> = parts
            .iter()
            .copied()
            .filter(|p| p["type"] == "tool")
            .collect();
        let finished = parts.iter().filter(|p| p["type"] == "step-finish").count();
        let text = parts
            .iter()
            .filter(|p| p["type"] == "text")
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("");
        let all_done = tools.iter().all(|t| t["state"]["status"] == "completed");
        if tools.len() != STEPS - 1 || !all_done || finished != STEPS || text != answer(n) {
            let states: Vec<String> = tools
                .iter()
                .map(|t| {
                    let state = &t["state"];
                    format!("{} {} {}", t["tool"], state["status"], state["error"])
                })
                .collect();
            return Err(format!(
                "session {n} ({id}): {} tool parts ({states:?}), {finished} step-finish parts, \
                 text {text:?}",
                tools.len()
            ));
        }
    }
    Ok(())
}
