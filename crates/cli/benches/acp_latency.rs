//! The measurement behind `bench/acp.sh` (`cargo bench -p strata --bench acp_latency`; not part
//! of `cargo test`): the same scripted turn (three `read` calls, then a streamed answer)
//! through a running `strata acp` and through `strata run --format json`. For ACP: time from
//! sending `session/prompt` to the first `session/update`, and to the prompt's answer; for
//! `run`: time from starting the process to its first JSON line, and to its exit. The
//! per-update figure is the turn's time divided by the updates (or lines) it produced.

// A measurement harness: a failed step ends it with a panic, as in a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/all/common.rs"]
mod common;
#[path = "../tests/all/e2e_run_support.rs"]
mod e2e_run_support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Project, strata_bin};
use e2e_run_support::{MODEL, command, environment};
use serde_json::{Value, json};
use strata_testkit::model_server::{ModelServer, Turn, call};

/// One turn: three reads in a step, then a long answer (streamed in small deltas).
fn turn() -> Vec<Turn> {
    let reads = (1..=3)
        .map(|i| call(&format!("r{i}"), "read", r#"{"filePath":"a.txt"}"#))
        .collect();
    vec![
        Turn::ToolCalls(reads),
        Turn::text("The file says hello. ".repeat(20)),
    ]
}

struct Figures {
    first: Duration,
    total: Duration,
    items: usize,
}

fn main() {
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let p = Project::new();
    p.file("a.txt", "hello\n");
    p.file("strata.json", format!(r#"{{"model": "{MODEL}"}}"#));
    let model = ModelServer::start(Vec::new());
    let acp: Vec<Figures> = {
        let mut agent = Acp::start(&p, &model);
        (0..runs).map(|_| agent.turn(&model)).collect()
    };
    let run: Vec<Figures> = (0..runs).map(|_| run_once(&p, &model, false)).collect();
    let snap: Vec<Figures> = (0..runs).map(|_| run_once(&p, &model, true)).collect();
    report("strata acp (process running)     ", &acp);
    report("strata run --format json         ", &run);
    // The server core, and so `strata acp`, keeps undo snapshots; `run` does not by default.
    report("strata run, with STRATA_SNAPSHOT=1", &snap);
}

fn report(label: &str, figures: &[Figures]) {
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let first = median(figures.iter().map(|f| f.first).collect());
    let total = median(figures.iter().map(|f| f.total).collect());
    let items = figures[0].items;
    println!(
        "{label}: first item {:>6.1} ms, whole turn {:>6.1} ms, {items} items, {:.2} ms per item \
         (median of {})",
        ms(first),
        ms(total),
        ms(total) / items as f64,
        figures.len()
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn run_once(p: &Project, model: &ModelServer, snapshots: bool) -> Figures {
    for t in turn() {
        model.push(t);
    }
    let mut cmd = command(
        p,
        model,
        &["run", "--format", "json", "-m", MODEL, "read a.txt"],
    );
    if snapshots {
        cmd.env("STRATA_SNAPSHOT", "1");
    }
    let start = Instant::now();
    let mut child = cmd.spawn().unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    let mut first = None;
    let mut items = 0;
    for line in out.lines() {
        line.unwrap();
        first.get_or_insert_with(|| start.elapsed());
        items += 1;
    }
    assert!(child.wait().unwrap().success());
    Figures {
        first: first.unwrap(),
        total: start.elapsed(),
        items,
    }
}

/// A running `strata acp` with one session, spoken to line by line.
struct Acp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    session: String,
    next_id: u64,
}

impl Acp {
    fn start(p: &Project, model: &ModelServer) -> Acp {
        let mut cmd = Command::new(strata_bin());
        cmd.arg("acp");
        environment(&mut cmd, p, model);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().unwrap();
        let mut acp = Acp {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
            session: String::new(),
            next_id: 1,
        };
        acp.request("initialize", json!({"protocolVersion": 1}), |_| {});
        let dir = p.dir.display().to_string();
        let created = acp.request("session/new", json!({"cwd": dir, "mcpServers": []}), |_| {});
        acp.session = created["sessionId"].as_str().unwrap().to_string();
        acp
    }

    /// Sends a request and reads until its answer, handing every notification to `seen`.
    fn request(&mut self, method: &str, params: Value, mut seen: impl FnMut(&Value)) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        loop {
            let mut text = String::new();
            assert!(
                self.stdout.read_line(&mut text).unwrap() > 0,
                "strata acp ended"
            );
            let msg: Value = serde_json::from_str(&text).unwrap();
            if msg["id"] == json!(id) {
                return msg["result"].clone();
            }
            seen(&msg);
        }
    }

    fn turn(&mut self, model: &ModelServer) -> Figures {
        for t in turn() {
            model.push(t);
        }
        let params = json!({"sessionId": self.session,
                            "prompt": [{"type": "text", "text": "read a.txt"}]});
        let start = Instant::now();
        let (mut first, mut items) = (None, 0);
        let answer = self.request("session/prompt", params, |m| {
            if m["method"] == "session/update" {
                first.get_or_insert_with(|| start.elapsed());
                items += 1;
            }
        });
        let total = start.elapsed();
        assert_eq!(answer["stopReason"], "end_turn");
        Figures {
            first: first.unwrap(),
            total,
            items,
        }
    }
}

impl Drop for Acp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
