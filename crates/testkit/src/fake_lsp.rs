//! A scripted language server, so the Lsp service's protocol behaviour (diagnostics, version
//! labels, restarts, shutdown) is tested on every machine, with clangd as the real-server test.
//!
//! It runs as its own process (the `strata-fake-lsp` binary of this crate) and speaks JSON-RPC
//! over stdio with `Content-Length` framing, written here apart from the service's own
//! framing. Its one argument is a JSON [`Script`]. It answers `initialize` and `shutdown`,
//! publishes an error for each `missing` in a document it is sent, and logs every message it
//! receives to a file the test reads ([`FakeLsp::log`]).

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The word the server reports as an error wherever it appears.
pub const FLAGGED: &str = "missing";

/// How the server behaves; every field has a default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Script {
    /// File the server appends one JSON line to per message received and when it exits.
    pub log: Option<PathBuf>,
    /// Which document version its `publishDiagnostics` names.
    pub version: Label,
    /// What it does when asked to shut down.
    pub shutdown: OnShutdown,
    /// A document containing this text makes the server exit at once with status 3.
    pub crash_on: Option<String>,
}

/// The version a publish is labelled with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Label {
    /// The version of the text the diagnostics are for.
    #[default]
    Current,
    /// The version the document was opened with, even for newer text (as clangd may do).
    Opened,
    /// No version at all.
    None,
}

/// Behaviour on `shutdown`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum OnShutdown {
    /// Answers `shutdown`, then exits on `exit`.
    #[default]
    Exit,
    /// Never answers and never exits on its own: it has to be killed.
    Hang,
}

/// What the server does after a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Then {
    Continue,
    /// Exit with this status.
    Exit(u8),
}

/// The server's state between messages. Pure: [`Server::handle`] returns what to send.
#[derive(Debug, Default)]
pub struct Server {
    script: Script,
    /// Each open document's first version.
    opened: HashMap<String, i64>,
    shut_down: bool,
}

impl Server {
    pub fn new(script: Script) -> Self {
        Self {
            script,
            ..Self::default()
        }
    }

    /// The messages to send in answer to `msg`, and what to do next.
    pub fn handle(&mut self, msg: &Value) -> (Vec<Value>, Then) {
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        let reply = |result: Value| json!({"jsonrpc": "2.0", "id": msg["id"], "result": result});
        match method {
            "initialize" => (
                vec![reply(json!({
                    "capabilities": {"textDocumentSync": 1},
                    "serverInfo": {"name": "strata-fake-lsp"},
                }))],
                Then::Continue,
            ),
            "shutdown" if self.script.shutdown == OnShutdown::Hang => (vec![], Then::Continue),
            "shutdown" => {
                self.shut_down = true;
                (vec![reply(Value::Null)], Then::Continue)
            }
            "exit" if self.script.shutdown == OnShutdown::Hang => (vec![], Then::Continue),
            // The protocol's rule: status 0 only after a shutdown request.
            "exit" => (vec![], Then::Exit(if self.shut_down { 0 } else { 1 })),
            "textDocument/didOpen" | "textDocument/didChange" => self.document(method, &params),
            _ if msg.get("id").is_some() && !method.is_empty() => {
                let error =
                    json!({"code": -32601, "message": format!("fake server has no `{method}`")});
                (
                    vec![json!({"jsonrpc": "2.0", "id": msg["id"], "error": error})],
                    Then::Continue,
                )
            }
            _ => (vec![], Then::Continue),
        }
    }

    fn document(&mut self, method: &str, params: &Value) -> (Vec<Value>, Then) {
        let doc = &params["textDocument"];
        let uri = doc["uri"].as_str().unwrap_or_default().to_string();
        let version = doc["version"].as_i64().unwrap_or(0);
        let text = if method == "textDocument/didOpen" {
            doc["text"].as_str()
        } else {
            params["contentChanges"]
                .as_array()
                .and_then(|c| c.last())
                .and_then(|c| c["text"].as_str())
        }
        .unwrap_or_default();
        if let Some(marker) = &self.script.crash_on
            && text.contains(marker.as_str())
        {
            return (vec![], Then::Exit(3));
        }
        let first = *self.opened.entry(uri.clone()).or_insert(version);
        let mut publish = json!({"uri": uri, "diagnostics": diagnose(text)});
        match self.script.version {
            Label::Current => publish["version"] = json!(version),
            Label::Opened => publish["version"] = json!(first),
            Label::None => {}
        }
        let note = json!({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": publish});
        (vec![note], Then::Continue)
    }
}

/// An error for each [`FLAGGED`] word, at its (zero-based) line and column.
pub fn diagnose(text: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for (line, content) in text.lines().enumerate() {
        for (col, _) in content.match_indices(FLAGGED) {
            let at = |c: usize| json!({"line": line, "character": c});
            out.push(json!({
                "range": {"start": at(col), "end": at(col + FLAGGED.len())},
                "severity": 1,
                "source": "fake-lsp",
                "message": format!("`{FLAGGED}` is not declared"),
            }));
        }
    }
    out
}

/// Reads one framed message; `Ok(None)` at the end of input.
pub fn read_message(input: &mut impl BufRead) -> std::io::Result<Option<Value>> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((key, value)) = line.split_once(':')
            && key.trim().eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let length = length.ok_or_else(|| std::io::Error::other("a header without Content-Length"))?;
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(std::io::Error::other)
}

/// Writes one framed message.
pub fn write_message(output: &mut impl Write, msg: &Value) -> std::io::Result<()> {
    let body = msg.to_string();
    write!(output, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    output.flush()
}

/// Serves until `exit`, a crash, or the end of input. Returns the exit status, or `None` for
/// a server scripted to hang, which the caller keeps running until it is killed.
pub fn serve(
    script: Script,
    mut input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<Option<u8>> {
    let log = script.log.clone();
    let hang = script.shutdown == OnShutdown::Hang;
    let mut server = Server::new(script);
    let ending = loop {
        let Some(msg) = read_message(&mut input)? else {
            break if hang { None } else { Some(0) };
        };
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("reply");
        let version = msg["params"]["textDocument"]["version"].as_i64();
        append(
            log.as_deref(),
            json!({"method": method, "version": version}),
        );
        let (replies, then) = server.handle(&msg);
        for reply in &replies {
            write_message(&mut output, reply)?;
        }
        if let Then::Exit(code) = then {
            break Some(code);
        }
    };
    if let Some(code) = ending {
        append(log.as_deref(), json!({"exit": code}));
    }
    Ok(ending)
}

fn append(log: Option<&Path>, entry: Value) {
    let Some(log) = log else { return };
    let mut entry = entry;
    entry["pid"] = json!(std::process::id());
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log);
    // The log is how a test sees the server; losing a line would only fail that test.
    if let Ok(mut file) = file {
        let _ = writeln!(file, "{entry}");
    }
}

/// A test's handle on the scripted server: the script written to a temporary folder, the
/// server's entry for the config's `lsp` key, and its log.
#[derive(Debug)]
pub struct FakeLsp {
    program: PathBuf,
    script: PathBuf,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl FakeLsp {
    /// `program` is the `strata-fake-lsp` binary (`env!("CARGO_BIN_EXE_strata-fake-lsp")` in
    /// this crate's tests); the script's `log` is set to a file in the handle's folder.
    pub fn new(program: impl Into<PathBuf>, mut script: Script) -> Self {
        let dir = tempfile::tempdir().expect("create a folder for the fake server's script");
        let (script_path, log) = (dir.path().join("script.json"), dir.path().join("log.jsonl"));
        script.log = Some(log.clone());
        let text = serde_json::to_string(&script).expect("a script is plain data");
        std::fs::write(&script_path, text).expect("write the fake server's script");
        Self {
            program: program.into(),
            script: script_path,
            log,
            _dir: dir,
        }
    }

    /// The command that starts the server.
    pub fn command(&self) -> Vec<String> {
        [&self.program, &self.script]
            .map(|p| p.display().to_string())
            .to_vec()
    }

    /// The server's entry in the config's `lsp` key, for files with these extensions.
    pub fn config(&self, extensions: &[&str]) -> Value {
        json!({"command": self.command(), "extensions": extensions})
    }

    /// Every entry logged so far, by every process started with this script.
    pub fn log(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("the fake server logs JSON lines"))
            .collect()
    }

    /// What process `pid` received and did, in order: method names, and `exit N`.
    pub fn events(&self, pid: u32) -> Vec<String> {
        self.log()
            .into_iter()
            .filter(|e| e["pid"] == pid)
            .map(|e| match e["exit"].as_u64() {
                Some(code) => format!("exit {code}"),
                None => e["method"].as_str().unwrap_or_default().to_string(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(version: i64, text: &str) -> Value {
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": "file:///p/a.fake", "languageId": "plaintext", "version": version, "text": text}}})
    }

    fn change(version: i64, text: &str) -> Value {
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": "file:///p/a.fake", "version": version},
            "contentChanges": [{"text": text}]}})
    }

    fn published_version(out: &(Vec<Value>, Then)) -> Value {
        out.0[0]["params"]["version"].clone()
    }

    #[test]
    fn each_flagged_word_is_an_error_where_it_stands() {
        let found = diagnose("ok\nreturn missing + missing;\n");
        let starts: Vec<_> = found.iter().map(|d| d["range"]["start"].clone()).collect();
        assert_eq!(
            starts,
            [
                json!({"line": 1, "character": 7}),
                json!({"line": 1, "character": 17})
            ]
        );
        assert_eq!(found[0]["severity"], 1);
        assert!(diagnose("fine\n").is_empty());
    }

    #[test]
    fn publishes_are_labelled_as_scripted() {
        let mut current = Server::new(Script::default());
        assert_eq!(published_version(&current.handle(&open(0, "x"))), 0);
        assert_eq!(published_version(&current.handle(&change(1, "x"))), 1);
        let mut opened = Server::new(Script {
            version: Label::Opened,
            ..Script::default()
        });
        opened.handle(&open(0, "x"));
        let out = opened.handle(&change(4, "missing"));
        assert_eq!(published_version(&out), 0);
        assert_eq!(
            out.0[0]["params"]["diagnostics"].as_array().unwrap().len(),
            1
        );
        let mut none = Server::new(Script {
            version: Label::None,
            ..Script::default()
        });
        assert_eq!(published_version(&none.handle(&open(0, "x"))), Value::Null);
    }

    #[test]
    fn shutdown_exit_crash_and_hang_follow_the_script() {
        let request = |id: i64, method: &str| json!({"jsonrpc": "2.0", "id": id, "method": method});
        let exit = json!({"jsonrpc": "2.0", "method": "exit"});
        let mut polite = Server::new(Script::default());
        assert_eq!(
            polite.handle(&exit).1,
            Then::Exit(1),
            "exit before shutdown"
        );
        let (replies, _) = polite.handle(&request(7, "shutdown"));
        assert_eq!(
            replies,
            [json!({"jsonrpc": "2.0", "id": 7, "result": null})]
        );
        assert_eq!(polite.handle(&exit).1, Then::Exit(0));
        let (replies, _) = polite.handle(&request(8, "textDocument/hover"));
        assert_eq!(replies[0]["error"]["code"], -32601);

        let mut stubborn = Server::new(Script {
            shutdown: OnShutdown::Hang,
            ..Script::default()
        });
        assert_eq!(
            stubborn.handle(&request(1, "shutdown")),
            (vec![], Then::Continue)
        );
        assert_eq!(stubborn.handle(&exit), (vec![], Then::Continue));

        let mut crashing = Server::new(Script {
            crash_on: Some("CRASH".into()),
            ..Script::default()
        });
        assert_eq!(crashing.handle(&open(0, "fine")).1, Then::Continue);
        assert_eq!(
            crashing.handle(&change(1, "CRASH")),
            (vec![], Then::Exit(3))
        );
    }

    #[test]
    fn serving_reads_and_writes_framed_messages_and_logs_them() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log.jsonl");
        let mut input = Vec::new();
        for msg in [
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}),
            open(0, "missing"),
            json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}),
            json!({"jsonrpc": "2.0", "method": "exit"}),
        ] {
            write_message(&mut input, &msg).unwrap();
        }
        let mut output = Vec::new();
        let script = Script {
            log: Some(log.clone()),
            ..Script::default()
        };
        assert_eq!(serve(script, &input[..], &mut output).unwrap(), Some(0));
        let mut replies = Vec::new();
        let mut reader = &output[..];
        while let Some(msg) = read_message(&mut reader).unwrap() {
            replies.push(msg);
        }
        assert_eq!(replies.len(), 3, "{replies:?}");
        assert_eq!(replies[1]["method"], "textDocument/publishDiagnostics");
        let logged = std::fs::read_to_string(&log).unwrap();
        assert_eq!(logged.lines().count(), 5, "{logged}");
        assert!(logged.lines().last().unwrap().contains("\"exit\":0"));
    }
}
