//! The terminal UI against a scripted in-memory server, for the pseudo-terminal test and the
//! benchmarks (`bench/tui.sh`). Events are built as the server's wire JSON and decoded like
//! the HTTP transport's, so the UI runs its real code paths.
//!
//! `strata-tui-demo [--messages N] [--stream N] [--trace FILE]`:
//! - a prompt runs a scripted turn: `read` (completed), an `edit` that asks permission, then
//!   the answer `Done.` (or `--stream N` tokens of text instead);
//! - `--messages N` opens a session of N user/assistant pairs at start.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use strata_tui::client::Result;
use strata_tui::event::decode;
use strata_tui::model::{
    AgentInfo, Bootstrap, MessageWithParts, ModelChoice, PermissionReply, SessionInfo, Snapshot,
};
use strata_tui::run::{RunOptions, print_exit, run};
use strata_tui::{Client, ClientEvent, Prompt};
use tokio::sync::{Mutex, Notify, mpsc};

const SID: &str = "ses_demo";

#[derive(Debug, Default)]
struct Demo {
    tx: Mutex<Option<mpsc::Sender<ClientEvent>>>,
    seq: AtomicU64,
    replied: Notify,
    stream: usize,
    messages: usize,
}

impl Demo {
    async fn send(&self, kind: &str, props: Value, numbered: bool) {
        let mut payload = json!({"id": "evt_demo", "type": kind, "properties": props});
        if numbered {
            payload["seq"] = json!(self.seq.fetch_add(1, Ordering::SeqCst) + 1);
        }
        let item = json!({"directory": ".", "payload": payload}).to_string();
        let Some(env) = decode(&item) else { return };
        if let Some(tx) = self.tx.lock().await.as_ref() {
            let _ = tx.send(ClientEvent::Event(env)).await;
        }
    }

    async fn part(&self, part: Value) {
        self.send(
            "message.part.updated",
            json!({"sessionID": SID, "part": part}),
            true,
        )
        .await;
    }

    async fn status(&self, kind: &str) {
        let props = json!({"sessionID": SID, "status": {"type": kind}});
        self.send("session.status", props, true).await;
    }

    /// The scripted turn: the prompt, the tool calls (unless streaming), the answer.
    async fn turn(self: Arc<Self>, text: String) {
        let assistant = self.open_turn(&text).await;
        if self.stream == 0 {
            self.tool_calls(&assistant).await;
        }
        self.answer(&assistant).await;
        self.status("idle").await;
    }

    /// The user message and its text, the session busy, the assistant message; returns the
    /// assistant message's id.
    async fn open_turn(&self, text: &str) -> String {
        let msg = |id: &str, role: &str| {
            json!({"sessionID": SID, "info": {"id": id, "sessionID": SID, "role": role,
                "agent": "build", "providerID": "demo", "modelID": "scripted",
                "time": {"created": 1}}})
        };
        let n = self.seq.load(Ordering::SeqCst);
        let (u, a) = (format!("msg_u{n}"), format!("msg_a{n}"));
        self.send("message.updated", msg(&u, "user"), true).await;
        self.part(json!({"id": format!("prt_u{n}"), "sessionID": SID, "messageID": u, "type": "text", "text": text}))
            .await;
        self.status("busy").await;
        self.send("message.updated", msg(&a, "assistant"), true)
            .await;
        a
    }

    /// A completed `read`, then an `edit` that waits for the user's permission.
    async fn tool_calls(&self, a: &str) {
        let tool = |id: &str, name: &str, state: Value| {
            json!({"id": id, "sessionID": SID, "messageID": a, "type": "tool", "tool": name,
                "callID": id, "state": state})
        };
        let input = json!({"filePath": "src/app.py"});
        let running = json!({"status": "running", "input": input, "time": {"start": 1}});
        self.part(tool("prt_r", "read", running.clone())).await;
        self.part(tool("prt_r", "read", json!({"status": "completed", "input": input, "title": "src/app.py",
            "output": "def farewell():\n    print(\"Bye\")", "metadata": {}, "time": {"start": 1, "end": 2}})))
            .await;
        let diff = "--- src/app.py\n+++ src/app.py\n@@ -1,2 +1,2 @@\n def farewell():\n-    print(\"Bye\")\n+    print(\"Ciao\")";
        self.part(tool("prt_e", "edit", running)).await;
        self.send(
            "permission.asked",
            json!({"id": "per_demo", "sessionID": SID, "permission": "edit",
            "patterns": ["src/app.py"], "always": ["*"], "metadata": {"diff": diff}}),
            true,
        )
        .await;
        self.replied.notified().await;
        self.send(
            "permission.replied",
            json!({"sessionID": SID, "requestID": "per_demo", "reply": "once"}),
            true,
        )
        .await;
        self.part(tool(
            "prt_e",
            "edit",
            json!({"status": "completed", "input": input, "title": "src/app.py",
            "output": "Edit applied.", "metadata": {"diff": diff}, "time": {"start": 1, "end": 2}}),
        ))
        .await;
    }

    /// The answer: `Done.` at once, or `--stream N` tokens a millisecond apart.
    async fn answer(&self, a: &str) {
        self.part(json!({"id": "prt_t", "sessionID": SID, "messageID": a, "type": "text", "text": "", "time": {"start": 1}}))
            .await;
        let words = [
            "Done.",
            " The",
            " greeting",
            " now",
            " says",
            " `Ciao`",
            ".\n\n",
        ];
        let tokens = if self.stream == 0 { 1 } else { self.stream };
        let mut full = String::new();
        for i in 0..tokens {
            let d = words[i % words.len()];
            full.push_str(d);
            self.send(
                "message.part.delta",
                json!({"sessionID": SID, "messageID": a, "partID": "prt_t",
                "field": "text", "delta": d}),
                false,
            )
            .await;
            if self.stream > 0 {
                tokio::time::sleep(Duration::from_micros(1000)).await;
            }
        }
        self.part(
            json!({"id": "prt_t", "sessionID": SID, "messageID": a, "type": "text", "text": full,
            "time": {"start": 1, "end": 2}}),
        )
        .await;
    }

    fn history(&self) -> Vec<MessageWithParts> {
        (0..self.messages)
            .flat_map(|i| {
                let (u, a) = (format!("msg_h{i:05}u"), format!("msg_h{i:05}a"));
                let body = format!("Answer {i}: here is what I found.\n\n- item **one**\n- item `two`\n\n```rust\nfn f{i}() -> u32 {{ {i} }}\n```");
                [(u, "user", format!("question {i}")), (a, "assistant", body)]
            })
            .filter_map(|(id, role, text)| {
                MessageWithParts::from_json(&json!({
                    "info": {"id": id, "sessionID": SID, "role": role, "finish": "stop", "agent": "build", "modelID": "scripted"},
                    "parts": [{"id": format!("p{id}"), "sessionID": SID, "messageID": id, "type": "text", "text": text, "time": {"start": 1, "end": 2}}]
                }))
            })
            .collect()
    }
}

fn session() -> SessionInfo {
    SessionInfo {
        id: SID.into(),
        title: "Demo session".into(),
        ..Default::default()
    }
}

#[derive(Debug)]
struct DemoClient(Arc<Demo>);

#[async_trait]
impl Client for DemoClient {
    async fn bootstrap(&self) -> Result<Bootstrap> {
        let agent = |n: &str| AgentInfo {
            name: n.into(),
            mode: "primary".into(),
            hidden: false,
        };
        let model = ModelChoice {
            provider_id: "demo".into(),
            model_id: "scripted".into(),
        };
        Ok(Bootstrap {
            agents: vec![agent("build"), agent("plan")],
            models: vec![model.clone()],
            model: Some(model),
            sessions: vec![session()],
            commands: vec![],
        })
    }
    async fn sessions(&self) -> Result<Vec<SessionInfo>> {
        Ok(vec![session()])
    }
    async fn create_session(&self, _agent: &str) -> Result<SessionInfo> {
        Ok(session())
    }
    async fn snapshot(&self, _id: &str) -> Result<Snapshot> {
        Ok(Snapshot {
            session: session(),
            messages: self.0.history(),
            todos: vec![],
            seq: Some(self.0.seq.load(Ordering::SeqCst)),
            older: None,
        })
    }
    async fn prompt(&self, _id: &str, prompt: Prompt) -> Result<()> {
        tokio::spawn(self.0.clone().turn(prompt.text));
        Ok(())
    }
    async fn command(&self, _id: &str, _c: strata_protocol::wire::CommandBody) -> Result<()> {
        Err(strata_tui::client::ClientError::new(
            "running a command",
            "the demo has no commands",
        ))
    }
    async fn abort(&self, _id: &str) -> Result<()> {
        Ok(())
    }
    async fn summarize(&self, _id: &str, _b: strata_protocol::wire::SummarizeBody) -> Result<()> {
        Err(strata_tui::client::ClientError::new(
            "compacting the session",
            "the demo cannot summarize",
        ))
    }
    async fn reply_permission(
        &self,
        _id: &str,
        _r: PermissionReply,
        _m: Option<String>,
    ) -> Result<()> {
        self.0.replied.notify_one();
        Ok(())
    }
    async fn reply_question(&self, _id: &str, _a: Vec<Vec<String>>) -> Result<()> {
        Ok(())
    }
    async fn reject_question(&self, _id: &str) -> Result<()> {
        Ok(())
    }
    async fn revert(&self, _s: &str, _m: &str) -> Result<()> {
        Ok(())
    }
    async fn unrevert(&self, _s: &str) -> Result<()> {
        Ok(())
    }
    async fn tools(&self, _s: &str) -> Result<strata_protocol::wire::SessionTools> {
        Ok(strata_protocol::wire::SessionTools {
            model: "demo/scripted".into(),
            loaded: 12,
            ..Default::default()
        })
    }
    fn events(&self) -> mpsc::Receiver<ClientEvent> {
        let (tx, rx) = mpsc::channel(4096);
        let _ = tx.try_send(ClientEvent::Connected);
        if let Ok(mut slot) = self.0.tx.try_lock() {
            *slot = Some(tx);
        }
        rx
    }
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let demo = Demo {
        stream: arg(&args, "--stream")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0),
        messages: arg(&args, "--messages")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0),
        ..Default::default()
    };
    let open = (demo.messages > 0).then(|| SID.to_string());
    let opts = RunOptions {
        session: open,
        trace: arg(&args, "--trace").map(Into::into),
    };
    match run(Arc::new(DemoClient(Arc::new(demo))), opts).await {
        Ok(exit) => print_exit(&exit),
        Err(e) => {
            eprintln!("strata-tui-demo: {e}");
            std::process::exit(1);
        }
    }
}
