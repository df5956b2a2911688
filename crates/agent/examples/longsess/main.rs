//! Writes one long stored session through the real [`Store`], as the loop would have left it:
//! turns of a prompt, tool steps (reasoning, a little text, `read`/`bash`/`grep`/`edit` calls
//! with their outputs) and an answer, each step opened with `step-start` and closed with
//! `step-finish` and its token counts, and a compaction summary wherever the context passed
//! the threshold. Parts are written as the loop writes them (text empty then whole, a call
//! pending then completed), so the event log is realistic too. For `bench/longsess.sh`.
//!
//! ```sh
//! cargo run --release -p strata-agent --example longsess -- --data DIR --dir PROJECT \
//!     [--messages 20000] [--tokens 1000000] [--compact-every 150000] [--seed 22] \
//!     [--model openai/bench-model]
//! ```
//! Prints the session id on stdout and what it wrote on stderr.

// A generator run by hand: a failed write ends it with the store's own message.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod plan;
mod text;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use serde_json::{Map, Value, json};
use strata_agent::store::{Role, Store, StoreError, now_ms};
use strata_protocol::message::{AssistantMessage, CacheTokens, Tokens, UserMessage};
use strata_protocol::part::{
    CompactionPart, PartData, ReasoningPart, StepFinish, TextPart, TextTime,
};
use strata_protocol::tool::{Completed, Span, ToolPart, ToolState};

use plan::{BYTES_PER_TOKEN, Call, Msg, Tool};
use text::Rng;

const USAGE: &str = "usage: longsess --data DIR [--dir PROJECT] [--messages N] [--tokens N] \
                     [--compact-every N] [--seed N] [--model PROVIDER/MODEL]";

/// The end of the last answer, by which `bench/longsess.py` sees the session on screen.
const MARKER: &str = "\n\n(end of the long session)";

struct Args {
    data: PathBuf,
    dir: PathBuf,
    messages: usize,
    tokens: u64,
    compact_every: u64,
    seed: u64,
    provider: String,
    model: String,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        data: PathBuf::new(),
        dir: std::env::current_dir().map_err(|e| format!("reading the current folder: {e}"))?,
        messages: 20_000,
        tokens: 1_000_000,
        compact_every: 150_000,
        seed: 22,
        provider: "openai".into(),
        model: "bench-model".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value; {USAGE}"))?;
        let number = || {
            value
                .parse::<u64>()
                .map_err(|e| format!("{flag} {value}: {e}"))
        };
        match flag.as_str() {
            "--data" => a.data = value.clone().into(),
            "--dir" => a.dir = value.clone().into(),
            "--messages" => a.messages = number()? as usize,
            "--tokens" => a.tokens = number()?,
            "--compact-every" => a.compact_every = number()?,
            "--seed" => a.seed = number()?,
            "--model" => {
                let (p, m) = value
                    .split_once('/')
                    .ok_or(format!("--model {value}: {USAGE}"))?;
                (a.provider, a.model) = (p.into(), m.into());
            }
            _ => return Err(format!("unknown option {flag}; {USAGE}")),
        }
    }
    if a.data.as_os_str().is_empty() {
        return Err(format!("--data is required; {USAGE}"));
    }
    Ok(a)
}

fn main() -> ExitCode {
    let result = args().and_then(|a| run(&a).map_err(|e| e.to_string()));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("longsess: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(a: &Args) -> Result<(), StoreError> {
    let started = Instant::now();
    let plan = plan::plan(a.seed, a.messages, a.tokens, a.compact_every);
    let store = Store::open_in(&a.data)?;
    let session = store.create_session(&a.dir, None)?;
    store.update_session_title(&session.id, "A long session (bench/longsess.sh)")?;
    let mut w = Writer {
        store: &store,
        session: &session.id,
        args: a,
        rng: Rng::new(a.seed ^ 0x5eed),
        calls: 0,
        last_bytes: 0,
        last: false,
    };
    for (i, msg) in plan.iter().enumerate() {
        w.last = i + 1 == plan.len();
        w.message(msg)?;
        w.last_bytes = msg.bytes();
    }
    let bytes: usize = plan.iter().map(Msg::bytes).sum();
    let summaries = plan
        .iter()
        .filter(|m| matches!(m, Msg::Summary { .. }))
        .count();
    eprintln!(
        "longsess: {} messages ({summaries} compactions, {} tool calls), ~{} tokens of text, in {:.1} s",
        plan.len(),
        w.calls,
        bytes / BYTES_PER_TOKEN,
        started.elapsed().as_secs_f64()
    );
    println!("{}", session.id);
    Ok(())
}

struct Writer<'a> {
    store: &'a Store,
    session: &'a str,
    args: &'a Args,
    rng: Rng,
    calls: usize,
    /// The size of the message before, which a step's input tokens count as new.
    last_bytes: usize,
    /// Writing the last message: its text ends with [`MARKER`].
    last: bool,
}

impl Writer<'_> {
    fn message(&mut self, msg: &Msg) -> Result<(), StoreError> {
        match msg {
            Msg::User { text } => {
                let data = UserMessage::new(now_ms(), "build")
                    .sent_to(&self.args.provider, &self.args.model);
                let m = self
                    .store
                    .append_message(self.session, Role::User, to_value(&data))?;
                let text = text::prose(&mut self.rng, *text);
                self.part(&m.id, None, &TextPart::user(&text).into())?;
            }
            Msg::Summary { text } => self.summary(*text)?,
            Msg::Step { .. } => self.step(msg)?,
        }
        Ok(())
    }

    fn part(&self, message: &str, id: Option<&str>, data: &PartData) -> Result<String, StoreError> {
        let part =
            self.store
                .upsert_part(self.session, message, id, data.kind(), data.to_value())?;
        Ok(part.id)
    }

    fn assistant(&self) -> AssistantMessage {
        AssistantMessage::new(now_ms(), "build", &self.args.provider, &self.args.model)
    }

    fn step(&mut self, msg: &Msg) -> Result<(), StoreError> {
        let Msg::Step {
            reasoning,
            text,
            calls,
            context,
        } = msg
        else {
            return Ok(());
        };
        let mut data = self.assistant();
        let m = self
            .store
            .append_message(self.session, Role::Assistant, to_value(&data))?;
        self.part(&m.id, None, &PartData::StepStart)?;
        if *reasoning > 0 {
            let body = text::prose(&mut self.rng, *reasoning);
            let start = now_ms();
            let open = |text: &str, end| ReasoningPart {
                text: text.into(),
                metadata: None,
                time: TextTime { start, end },
            };
            let id = self.part(&m.id, None, &open("", None).into())?;
            self.part(&m.id, Some(&id), &open(&body, Some(now_ms())).into())?;
        }
        if *text > 0 {
            let mut body = if calls.is_empty() {
                text::answer(&mut self.rng, *text)
            } else {
                text::prose(&mut self.rng, *text)
            };
            if self.last {
                body.push_str(MARKER);
            }
            let start = now_ms();
            let id = self.part(&m.id, None, &TextPart::assistant("", start, None).into())?;
            self.part(
                &m.id,
                Some(&id),
                &TextPart::assistant(&body, start, Some(now_ms())).into(),
            )?;
        }
        for call in calls {
            self.call(&m.id, call)?;
        }
        let new = (self.last_bytes / BYTES_PER_TOKEN) as u64 + 20;
        let tokens = Tokens {
            input: new,
            output: (text / BYTES_PER_TOKEN) as u64 + 10 * calls.len() as u64,
            reasoning: (reasoning / BYTES_PER_TOKEN) as u64,
            cache: CacheTokens {
                read: context.saturating_sub(new),
                write: 0,
            },
        };
        let reason = if calls.is_empty() {
            "stop"
        } else {
            "tool-calls"
        };
        data.time.completed = Some(now_ms());
        data.finish = Some(reason.into());
        data.tokens = tokens;
        self.store
            .update_message(self.session, &m.id, to_value(&data))?;
        let finish = StepFinish {
            reason: reason.into(),
            cost: 0.0,
            tokens,
        };
        self.part(&m.id, None, &finish.into())?;
        Ok(())
    }

    /// A call as the loop records it: pending while its arguments stream, then completed.
    fn call(&mut self, message: &str, call: &Call) -> Result<(), StoreError> {
        self.calls += 1;
        let call_id = format!("call_{:06}", self.calls);
        let (tool, input, output, title, metadata) =
            tool_result(&mut self.rng, &self.args.dir, call);
        let pending = ToolPart::pending(&call_id, tool, &input.to_string());
        let id = self.part(message, None, &pending.into())?;
        let start = now_ms();
        let done = Completed {
            input,
            output,
            title,
            metadata,
            time: Span::new(start, now_ms()),
            attachments: Vec::new(),
        };
        let part = ToolPart::with(&call_id, tool, ToolState::Completed(done));
        self.part(message, Some(&id), &part.into())?;
        Ok(())
    }

    /// A compaction: a `summary` assistant message with its `compaction` part.
    fn summary(&mut self, size: usize) -> Result<(), StoreError> {
        let mut data = self.assistant();
        data.summary = true;
        let m = self
            .store
            .append_message(self.session, Role::Assistant, to_value(&data))?;
        let start = now_ms();
        let mut part = CompactionPart {
            auto: true,
            overflow: false,
            summary: String::new(),
            time: TextTime { start, end: None },
        };
        let id = self.part(&m.id, None, &part.clone().into())?;
        part.summary = text::answer(&mut self.rng, size);
        part.time.end = Some(now_ms());
        self.part(&m.id, Some(&id), &part.into())?;
        data.time.completed = Some(now_ms());
        data.finish = Some("stop".into());
        data.tokens = Tokens::new(40_000, (size / BYTES_PER_TOKEN) as u64);
        self.store
            .update_message(self.session, &m.id, to_value(&data))?;
        Ok(())
    }
}

type ToolResult = (&'static str, Value, String, String, Map<String, Value>);

/// A finished call of `call.tool`: its name, input, output, title and metadata.
fn tool_result(rng: &mut Rng, dir: &std::path::Path, call: &Call) -> ToolResult {
    let file = text::path(rng);
    let full = dir.join(&file).to_string_lossy().into_owned();
    let meta = |v: Value| v.as_object().cloned().unwrap_or_default();
    match call.tool {
        Tool::Read => {
            let output = text::read_output(rng, call.size);
            let preview: String = output
                .lines()
                .skip(1)
                .take(20)
                .collect::<Vec<_>>()
                .join("\n");
            let m = meta(json!({"preview": preview, "truncated": false, "loaded": []}));
            ("read", json!({"filePath": full}), output, file, m)
        }
        Tool::Bash => {
            let output = text::bash_output(rng, call.size);
            let description = format!(
                "Run the {} tests",
                rng.pick(&["store", "server", "view", "agent"])
            );
            let input =
                json!({"command": "cargo test -p strata-store", "description": description});
            let m = meta(
                json!({"output": output, "exit": 0, "truncated": false, "description": description}),
            );
            (
                "bash",
                input,
                format!("{output}\n\n<shell_metadata>\nexit code 0\n</shell_metadata>"),
                description,
                m,
            )
        }
        Tool::Grep => {
            let output = text::grep_output(rng, call.size);
            let pattern = format!("fn {}_", rng.pick(&["load", "read", "write", "render"]));
            let m = meta(json!({"matches": output.lines().count(), "truncated": false}));
            (
                "grep",
                json!({"pattern": pattern, "path": "src"}),
                output,
                pattern,
                m,
            )
        }
        Tool::Edit => {
            let diff = text::diff(rng, &full, call.size);
            let input = json!({"filePath": full, "oldString": text::code(rng, 60), "newString": text::code(rng, 90)});
            let m = meta(json!({"diff": diff, "diagnostics": {}}));
            ("edit", input, "Edit applied successfully.".into(), file, m)
        }
    }
}

fn to_value<T: serde::Serialize>(data: &T) -> Value {
    // Plain structs of strings and numbers always serialize.
    serde_json::to_value(data).unwrap_or(Value::Null)
}
