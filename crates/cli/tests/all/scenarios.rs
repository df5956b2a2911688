//! The scripted-model scenarios of the top-level `tests/scenarios/`, each run through
//! `strata run --format json` and through `strata serve`, and compared with its golden
//! files in `tests/golden/` (ids, times and the machine's paths replaced by placeholders).
//!
//! Adding a scenario is adding its file: run the suite with `STRATA_BLESS=1` to write its
//! golden files, and review them. `STRATA_SCENARIO_BIN` runs another build of `strata` (an
//! older one, to prove a refactor changed no output).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use strata_testkit::model_server::{ModelServer, ScriptedCall, Turn, call};

use crate::common::{Project, Run, finish};
use crate::e2e_run_support::{MODEL, environment};
use crate::e2e_serve_support::{prompt, serve_with};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests")
}

/// The `strata` under test: this build, or `STRATA_SCENARIO_BIN`.
fn bin() -> PathBuf {
    std::env::var_os("STRATA_SCENARIO_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::common::strata_bin().to_path_buf())
}

/// One scenario file.
pub(crate) struct Scenario {
    pub(crate) name: String,
    files: Map<String, Value>,
    pub(crate) prompt: String,
    pub(crate) turns: Vec<Turn>,
    /// The tools its calls use, in order, repeats kept.
    pub(crate) tools: Vec<String>,
}

pub(crate) fn scenarios() -> Vec<Scenario> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join("scenarios"))
        .expect("tests/scenarios")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths.iter().map(|p| parse(p)).collect()
}

fn parse(path: &Path) -> Scenario {
    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(path).unwrap();
    let doc: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let turns = doc["turns"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}: `turns` is a list"))
        .iter()
        .map(|t| turn(&name, t))
        .collect();
    let tools = doc["turns"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| t["calls"].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c["tool"].as_str().map(str::to_string))
        .collect();
    Scenario {
        tools,
        files: doc["files"].as_object().cloned().unwrap_or_default(),
        prompt: doc["prompt"]
            .as_str()
            .expect("`prompt` is text")
            .to_string(),
        turns,
        name,
    }
}

/// `{"text": …, "calls": [{"id", "tool", "input"}]}` as the scripted model's turn.
fn turn(name: &str, t: &Value) -> Turn {
    let calls: Vec<ScriptedCall> = t["calls"]
        .as_array()
        .map(|calls| {
            calls
                .iter()
                .map(|c| {
                    let field = |k: &str| {
                        c[k].as_str()
                            .unwrap_or_else(|| panic!("{name}: a call's `{k}` is text"))
                    };
                    call(field("id"), field("tool"), &c["input"].to_string())
                })
                .collect()
        })
        .unwrap_or_default();
    match (t["text"].as_str(), calls.is_empty()) {
        (Some(text), true) => Turn::text(text),
        (Some(text), false) => Turn::TextAndToolCalls(text.into(), calls),
        (None, false) => Turn::ToolCalls(calls),
        (None, true) => panic!("{name}: a turn needs `text` or `calls`"),
    }
}

pub(crate) fn project(s: &Scenario) -> Project {
    let p = Project::new();
    for (path, content) in &s.files {
        p.file(path, content.as_str().expect("file contents are text"));
    }
    p
}

/// `strata run --format json` of the scenario: one event per line.
fn run_events(s: &Scenario) -> Value {
    let p = project(s);
    let server = ModelServer::start(s.turns.clone());
    let mut cmd = std::process::Command::new(bin());
    cmd.args(["run", "--model", MODEL, "--format", "json", &s.prompt]);
    environment(&mut cmd, &p, &server);
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let run: Run = finish(cmd.spawn().expect("strata starts"));
    run.expect_code(0);
    let mut events: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", s.name)))
        .collect();
    in_call_order(&mut events);
    Normalizer::new(&p).value(Value::Array(events))
}

/// Calls of one step run at once and are reported as each finishes, in no fixed order: a run
/// of `tool_use` events is put in call-id order.
fn in_call_order(events: &mut [Value]) {
    let is_call = |e: &Value| e["type"] == "tool_use";
    let mut start = 0;
    while start < events.len() {
        let len = events[start..].iter().take_while(|e| is_call(e)).count();
        events[start..start + len].sort_by(|a, b| {
            let id = |e: &Value| e["part"]["callID"].as_str().unwrap_or_default().to_string();
            id(a).cmp(&id(b))
        });
        start += len.max(1);
    }
}

/// The server's answers for the scenario: the prompt's reply, the session and its messages.
async fn served(s: &Scenario) -> Value {
    let p = project(s);
    let server = ModelServer::start(s.turns.clone());
    let served = serve_with(&bin(), &p, &server, &[]);
    let id = served.session().await;
    let (status, answer) = served
        .post(&format!("/session/{id}/message"), prompt(&s.prompt))
        .await;
    assert_eq!(status, 200, "{}: {answer}", s.name);
    let (_, messages) = served.get(&format!("/session/{id}/message")).await;
    let (_, session) = served.get(&format!("/session/{id}")).await;
    let (_, todo) = served.get(&format!("/session/{id}/todo")).await;
    let all = json!({"answer": answer, "messages": messages, "session": session, "todo": todo});
    Normalizer::new(&p).value(all)
}

/// Replaces what differs between two runs of one scenario: ids (by first appearance), times,
/// and the project's and temp directory's paths.
struct Normalizer {
    paths: Vec<(String, &'static str)>,
    ids: HashMap<String, String>,
}

const ID_PREFIXES: [&str; 5] = ["ses_", "msg_", "prt_", "per_", "que_"];
const TIME_KEYS: [&str; 7] = [
    "timestamp",
    "start",
    "end",
    "created",
    "updated",
    "completed",
    "initialized",
];

impl Normalizer {
    fn new(p: &Project) -> Self {
        let paths = vec![
            (p.dir.display().to_string(), "[dir]"),
            (p.tmp.display().to_string(), "[tmp]"),
            (p.data.display().to_string(), "[data]"),
        ];
        Self {
            paths,
            ids: HashMap::new(),
        }
    }

    fn value(&mut self, v: Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(items) => Value::Array(items.into_iter().map(|i| self.value(i)).collect()),
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(k, v)| {
                        let v = match (&v, k.as_str()) {
                            (Value::Number(_), k) if TIME_KEYS.contains(&k) => json!(0),
                            // The sandbox mode depends on the kernel the test runs on.
                            (Value::String(_), "projectID" | "slug" | "sandbox") => {
                                json!(format!("<{k}>"))
                            }
                            _ => self.value(v),
                        };
                        (k, v)
                    })
                    .collect(),
            ),
            other => other,
        }
    }

    fn text(&mut self, s: String) -> String {
        if let Some(prefix) = ID_PREFIXES.iter().find(|p| s.starts_with(*p)) {
            let n = self.ids.len() + 1;
            return self
                .ids
                .entry(s)
                .or_insert_with(|| format!("<{prefix}{n}>"))
                .clone();
        }
        let mut s = s;
        for (path, placeholder) in &self.paths {
            s = s.replace(path.as_str(), placeholder);
        }
        s
    }
}

/// Compares `actual` with the golden file, or writes it under `STRATA_BLESS=1`.
fn check(file: &str, actual: &Value) -> Option<String> {
    let path = root().join("golden").join(file);
    let text = serde_json::to_string_pretty(actual).unwrap() + "\n";
    if std::env::var_os("STRATA_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
        return None;
    }
    match std::fs::read_to_string(&path) {
        Ok(golden) if golden == text => None,
        Ok(golden) => Some(format!(
            "tests/golden/{file} differs (run with STRATA_BLESS=1 to accept):\n{}",
            first_difference(&golden, &text)
        )),
        Err(_) => Some(format!(
            "tests/golden/{file} is missing: run with STRATA_BLESS=1 to write it"
        )),
    }
}

fn first_difference(golden: &str, actual: &str) -> String {
    let (g, a): (Vec<_>, Vec<_>) = (golden.lines().collect(), actual.lines().collect());
    let at = g
        .iter()
        .zip(&a)
        .position(|(x, y)| x != y)
        .unwrap_or(g.len().min(a.len()));
    format!(
        "line {}:\n  golden: {}\n  actual: {}",
        at + 1,
        g.get(at).unwrap_or(&"<end>"),
        a.get(at).unwrap_or(&"<end>")
    )
}

#[test]
fn every_scenario_prints_its_golden_run_events() {
    let failures: Vec<String> = scenarios()
        .iter()
        .filter_map(|s| check(&format!("{}.run.json", s.name), &run_events(s)))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[tokio::test(flavor = "multi_thread")]
async fn every_scenario_gets_its_golden_server_answers() {
    let mut failures = Vec::new();
    for s in scenarios() {
        failures.extend(check(&format!("{}.serve.json", s.name), &served(&s).await));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_scenario_turn_reads_text_calls_or_both() {
    let both = turn(
        "t",
        &json!({"text": "hi", "calls": [{"id": "c1", "tool": "read", "input": {"filePath": "a"}}]}),
    );
    assert_eq!(
        both,
        Turn::TextAndToolCalls("hi".into(), vec![call("c1", "read", r#"{"filePath":"a"}"#)])
    );
    assert_eq!(turn("t", &json!({"text": "bye"})), Turn::text("bye"));
}
