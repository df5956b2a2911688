//! Running one program: the interpreter on a blocking thread, its tool calls answered on the
//! async side through each tool's own wrapper, and the bounds enforced from outside (calls,
//! wall time, cancellation) by stopping the interpreter at its next interrupt check.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;
use strata_tools::contract::Decoded;
use strata_tools::{Attachment, ToolError, ToolResult};
use tokio::sync::{mpsc, oneshot};

use super::ID;
use super::bounds::{Bounds, Completed, Stop, stopped};
use super::catalogue::{Callee, Finder};
use super::script::{self, Entry, Limits, Outcome};

#[derive(Clone)]
pub(super) struct Execute {
    pub(super) tools: Arc<Vec<Callee>>,
    pub(super) finder: Finder,
    pub(super) bounds: Bounds,
}

/// A bridge call from the script thread to the async side.
struct Bridge {
    id: String,
    input: String,
    reply: oneshot::Sender<Result<String, String>>,
}

/// What the async side saw of the program.
#[derive(Default)]
struct Seen {
    done: Completed,
    attachments: Vec<Attachment>,
    stop: Option<Stop>,
}

const ENDED: &str = "The execute call has ended.";

impl Execute {
    pub(super) async fn run(self, req: Decoded<Value>) -> Result<ToolResult, ToolError> {
        let Some(code) = req.params.get("code").and_then(Value::as_str) else {
            return Err(ToolError::InvalidArguments {
                tool: ID.into(),
                detail: "`code` must be a string holding the program".into(),
            });
        };
        let halt = Arc::new(AtomicBool::new(false));
        let (tx, mut rx) = mpsc::channel::<Bridge>(1);
        let mut script = self.start_script(code.to_string(), halt.clone(), tx);
        let mut seen = Seen::default();
        let abort = req.cx.abort.clone();
        let deadline = tokio::time::sleep(self.bounds.wall);
        tokio::pin!(deadline);
        let stop = |seen: &mut Seen, why: Stop| {
            seen.stop.get_or_insert(why);
            halt.store(true, Ordering::Relaxed);
        };
        let joined = loop {
            tokio::select! {
                done = &mut script => break done,
                () = abort.cancelled(), if seen.stop.is_none() => stop(&mut seen, Stop::Cancelled),
                () = &mut deadline, if seen.stop.is_none() => stop(&mut seen, Stop::WallTime),
                Some(bridge) = rx.recv() => {
                    let answer = if seen.stop.is_some() {
                        Err(ENDED.to_string())
                    } else if seen.done.len() >= self.bounds.calls {
                        stop(&mut seen, Stop::Calls);
                        Err(format!("Stopped: the limit of {} tool calls was reached.", self.bounds.calls))
                    } else {
                        let n = seen.done.len() + 1;
                        tokio::select! {
                            a = self.inner_call(&req, &bridge, n, &mut seen.attachments) => {
                                seen.done.push(&bridge.id, &bridge.input, &a);
                                a
                            }
                            () = &mut deadline => {
                                stop(&mut seen, Stop::WallTime);
                                Err(ENDED.to_string())
                            }
                        }
                    };
                    // A cancellation that ended the inner call reaches the script before the
                    // call's error does, so the script cannot finish as if the tool had failed.
                    if abort.is_cancelled() {
                        stop(&mut seen, Stop::Cancelled);
                    }
                    let _ = bridge.reply.send(answer);
                }
            }
        };
        let (outcome, logs) =
            joined.map_err(|e| ToolError::fatal(format!("The program's thread failed: {e}")))?;
        finish(outcome, logs, seen, &self.bounds)
    }

    /// Starts the program on a blocking thread: tool calls come back over `tx`, `flag` stops it.
    fn start_script(
        &self,
        code: String,
        flag: Arc<AtomicBool>,
        tx: mpsc::Sender<Bridge>,
    ) -> tokio::task::JoinHandle<(Outcome, Vec<String>)> {
        let entries: Vec<Entry> = self
            .tools
            .iter()
            .map(|c| {
                let ns = c.server.clone().unwrap_or_default();
                (ns, c.name.clone(), c.tool.id.to_string())
            })
            .collect();
        let limits = Limits {
            memory: self.bounds.memory,
            ..Limits::default()
        };
        let finder = self.finder.clone();
        tokio::task::spawn_blocking(move || {
            let host: script::Host = Box::new(move |id: &str, input: String| {
                let (reply, answer) = oneshot::channel();
                let bridge = Bridge {
                    id: id.to_string(),
                    input,
                    reply,
                };
                if tx.blocking_send(bridge).is_err() {
                    return Err(ENDED.into());
                }
                answer.blocking_recv().unwrap_or_else(|_| Err(ENDED.into()))
            });
            let find: script::Finder = Box::new(move |q: &str| finder.find(q));
            let mut logs = Vec::new();
            let outcome = script::run(&code, &entries, (host, find), limits, flag, &mut logs);
            (outcome, logs)
        })
    }

    async fn inner_call(
        &self,
        req: &Decoded<Value>,
        bridge: &Bridge,
        n: usize,
        attachments: &mut Vec<Attachment>,
    ) -> Result<String, String> {
        let Some(c) = self.tools.iter().find(|c| c.tool.id == bridge.id) else {
            return Err(format!(
                "No tool `{}` is available to this program.",
                bridge.id
            ));
        };
        let mut cx = req.cx.clone();
        cx.call_id = format!("{}/{n}", req.cx.call_id);
        match c.tool.call(bridge.input.clone(), cx).await {
            Ok(r) => {
                let mut text = r.output;
                if !r.attachments.is_empty() {
                    text.push_str(&format!(
                        "\n[{} file(s) attached to the execute result]",
                        r.attachments.len()
                    ));
                    attachments.extend(r.attachments);
                }
                Ok(text)
            }
            Err(e) => Err(e.to_string()),
        }
    }
}

/// The tool result of a finished program.
fn finish(
    outcome: Outcome,
    logs: Vec<String>,
    seen: Seen,
    bounds: &Bounds,
) -> Result<ToolResult, ToolError> {
    let with_logs = |text: String| {
        if logs.is_empty() {
            text
        } else {
            format!("{text}\n\nLogs:\n{}", logs.join("\n"))
        }
    };
    let fail = |text: String| Err(ToolError::model(with_logs(text)));
    // A bound passed from outside wins over however the script itself ended.
    match seen.stop {
        Some(Stop::Cancelled) => {
            return Ok(ToolResult::new(ID, "Execution cancelled.").meta("error", true));
        }
        Some(why) => return fail(stopped(why, bounds, &seen.done)),
        None => {}
    }
    let output = match outcome {
        Outcome::Done(text) => with_logs(text),
        Outcome::Cancelled => {
            return Ok(ToolResult::new(ID, "Execution cancelled.").meta("error", true));
        }
        Outcome::OpLimit => {
            return fail(format!(
                "The program ran past its operation limit and was stopped. Do less work per \
                 program (fewer iterations), or split it into several calls.\n{}",
                seen.done.render()
            ));
        }
        Outcome::MemoryLimit => {
            return fail(format!(
                "The program used more than its {} MiB of memory and was stopped. Keep less \
                 data in memory at once.\n{}",
                bounds.memory >> 20,
                seen.done.render()
            ));
        }
        Outcome::Threw(message) => {
            return fail(format!("The program threw an error: {message}"));
        }
    };
    let mut r = ToolResult::new(ID, output);
    for a in seen.attachments {
        r = r.attach(a);
    }
    Ok(r)
}
