//! The pieces of the crash-under-load test (`e2e_crash`): the scripted model every session
//! talks to, the `/global/event` clients that record what they got until the server dies, and
//! the checks run on the data directory after each restart.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use strata_agent::store::{Role, Store};
use strata_protocol::wire::GlobalEnvelope;
use strata_server::core::convert::Converter;
use strata_services::process::live_members;
use strata_testkit::SseReader;
use strata_testkit::model_server::{ModelServer, SentItem, SentRequest, Turn};
use tokio::sync::watch;

/// The prompt of session `n` of round `r` holds `crash-r-n:`.
pub(crate) const KEY: &str = "crash-";
/// Where each bash call appends its shell's pid, which leads its process group.
pub(crate) const GROUPS_FILE: &str = "groups.txt";

/// Session `n`'s turn: `read`, a bash call that records its group and sleeps 1–3 s, `read`,
/// then an answer. Requests without tools (titles) get a title.
pub(crate) fn script(model: &ModelServer) {
    model.respond_with(|_, body| {
        let sent = SentRequest::from_body(body);
        if sent.tools.is_empty() {
            return Some(Turn::text("Crash title"));
        }
        let n = session_number(&sent)?;
        let id = format!("call_{n}_{}", sent.results().len());
        Some(match sent.results().len() {
            0 => Turn::tool_call(&id, "read", r#"{"filePath":"a.txt"}"#),
            1 => {
                let command = format!("echo $$ >> {GROUPS_FILE}; sleep {}", 1 + n % 3);
                let args = serde_json::json!({"command": command, "description": "Sleep a little"});
                Turn::tool_call(&id, "bash", &args.to_string())
            }
            2 => Turn::tool_call(&id, "read", r#"{"filePath":"b.txt"}"#),
            _ => Turn::text(format!("Crash answer {n}.")),
        })
    });
}

/// The session number in the first user text (`crash-R-N:`).
fn session_number(sent: &SentRequest) -> Option<usize> {
    let user = sent.messages.iter().find(|m| m.role == "user")?;
    user.items.iter().find_map(|i| match i {
        SentItem::Text(t) => {
            let rest = &t[t.find(KEY)? + KEY.len()..];
            let rest = &rest[rest.find('-')? + 1..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        }
        _ => None,
    })
}

/// What one client got: `(cursor, envelope)` in arrival order.
pub(crate) type Items = Vec<(Option<i64>, Value)>;

/// Progress seen by the first client: stored items so far, and turns ended.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Progress {
    pub stored: usize,
    pub idle: usize,
}

/// Reads `/global/event` at `url` until the stream ends (the server died), reporting progress
/// on `progress` (the first client only) and `connected` once the server greeted it.
pub(crate) async fn record(
    url: String,
    connected: tokio::sync::oneshot::Sender<()>,
    progress: Option<watch::Sender<Progress>>,
) -> Items {
    let res = reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .get(format!("{url}/global/event"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 200, "GET /global/event");
    let mut reader = SseReader::new(res.bytes_stream());
    let mut connected = Some(connected);
    let mut out = Vec::new();
    let mut seen = Progress::default();
    // Long enough for any pause of a loaded server; the kill ends the stream much sooner.
    while let Some((cursor, item)) = reader.next(Duration::from_secs(120)).await {
        let kind = item["payload"]["type"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if kind.starts_with("server.") {
            if let Some(tx) = connected.take() {
                let _ = tx.send(());
            }
            continue;
        }
        if cursor.is_some() {
            seen.stored += 1;
        }
        if kind == "session.idle" {
            seen.idle += 1;
        }
        out.push((cursor, item));
        if let Some(p) = &progress {
            let _ = p.send(seen);
        }
    }
    out
}

/// Process groups listed in the project's [`GROUPS_FILE`] that still have a live member.
pub(crate) fn live_groups(project: &Path) -> Vec<i32> {
    let listed = std::fs::read_to_string(project.join(GROUPS_FILE)).unwrap_or_default();
    listed
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .filter(|&g| live_members(g).is_some_and(|m| !m.is_empty()))
        .collect()
}

/// What the checks after a restart found, when they all passed.
#[derive(Debug, Default)]
pub(crate) struct Checked {
    /// Stored items the clients had received (each client counted), all found in the store.
    pub received: usize,
    /// Tool calls the restart closed as interrupted, over all rounds so far.
    pub interrupted: usize,
}

/// After a restart on `data`: the database is sound, every stored item any client received
/// is in it unchanged, and no tool call or turn is left open.
pub(crate) fn check_store(data: &Path, clients: &[Items]) -> Result<Checked, String> {
    let store = Store::open_in(data).map_err(|e| format!("reopening the store: {e}"))?;
    let problems = store.integrity_check().map_err(|e| e.to_string())?;
    if !problems.is_empty() {
        return Err(format!("PRAGMA integrity_check: {problems:?}"));
    }
    let stored = stored_items(&store)?;
    let mut received = 0;
    for (n, items) in clients.iter().enumerate() {
        for (cursor, item) in items {
            let Some(cursor) = cursor else { continue };
            let found = stored.get(cursor).is_some_and(|all| all.contains(item));
            if !found {
                return Err(format!(
                    "client {n} received item {cursor} that the store does not hold: {item}; \
                     stored under that cursor: {:?}",
                    stored.get(cursor)
                ));
            }
            received += 1;
        }
    }
    let open = store.unfinished_tool_parts().map_err(|e| e.to_string())?;
    if let Some(part) = open.first() {
        return Err(format!(
            "{} tool calls still open, e.g. {}",
            open.len(),
            part.data
        ));
    }
    if let Some(open) = open_answers(&store)?.first() {
        return Err(format!(
            "an answer or its text is still open after the restart: {open}"
        ));
    }
    let busy = store.busy_sessions().map_err(|e| e.to_string())?;
    if !busy.is_empty() {
        return Err(format!("sessions still busy after the restart: {busy:?}"));
    }
    Ok(Checked {
        received,
        interrupted: interrupted_calls(&store)?,
    })
}

/// Assistant messages without a completion time, and text or reasoning parts without an end,
/// in every stored session: what a killed turn leaves until recovery closes it.
fn open_answers(store: &Store) -> Result<Vec<String>, String> {
    let mut open = Vec::new();
    for session in store.list_sessions(None).map_err(|e| e.to_string())? {
        for (message, parts) in store.messages(&session.id).map_err(|e| e.to_string())? {
            let is_answer = message.role == Role::Assistant;
            if is_answer && message.data["time"]["completed"].is_null() {
                open.push(format!("message {}: {}", message.id, message.data));
            }
            for p in parts {
                let streamed = matches!(p.kind.as_str(), "text" | "reasoning");
                let time = &p.data["time"];
                if streamed && !time["start"].is_null() && time["end"].is_null() {
                    open.push(format!("part {}: {}", p.id, p.data));
                }
            }
        }
    }
    Ok(open)
}

/// Every stored event as the server sends it: cursor → the envelopes it gives.
fn stored_items(store: &Store) -> Result<HashMap<i64, Vec<Value>>, String> {
    let mut converter = Converter::new(store.clone());
    let events = store
        .global_events_after(0, usize::MAX >> 1)
        .map_err(|e| e.to_string())?;
    let mut out: HashMap<i64, Vec<Value>> = HashMap::new();
    for stored in &events {
        for frame in converter.frames(stored) {
            let Some(cursor) = frame.cursor else { continue };
            let envelope = GlobalEnvelope {
                directory: frame.directory,
                project: None,
                payload: frame.envelope,
            };
            let value = serde_json::to_value(&envelope).map_err(|e| e.to_string())?;
            out.entry(cursor).or_default().push(value);
        }
    }
    Ok(out)
}

/// Tool calls in the store closed as interrupted by a recovery.
fn interrupted_calls(store: &Store) -> Result<usize, String> {
    let mut n = 0;
    for session in store.list_sessions(None).map_err(|e| e.to_string())? {
        for (_, parts) in store.messages(&session.id).map_err(|e| e.to_string())? {
            n += parts
                .iter()
                .filter(|p| p.data["state"]["metadata"]["interrupted"] == true)
                .count();
        }
    }
    Ok(n)
}

/// A small xorshift generator: the kill points of a run follow from its printed seed.
#[derive(Debug)]
pub(crate) struct Dice(u64);

impl Dice {
    /// Seeded from `STRATA_CRASH_SEED`, else from the clock.
    pub(crate) fn new() -> Dice {
        let seed = std::env::var("STRATA_CRASH_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            });
        eprintln!("crash: seed {seed} (STRATA_CRASH_SEED={seed} repeats the kill points)");
        Dice(seed.max(1))
    }

    /// A number in `lo..=hi`.
    pub(crate) fn roll(&mut self, lo: usize, hi: usize) -> usize {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        lo + (x % (hi - lo + 1) as u64) as usize
    }
}
