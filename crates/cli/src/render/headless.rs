//! Asks in `strata run --format json`, local or `--attach`ed: every permission and question
//! event of the run is a JSON line in the server's event shape (`{"type", "timestamp",
//! "sessionID", "properties"}`). With `--answers stdin` the asks wait for reply lines on stdin
//! (see [`super::replies`]); without it, or once stdin is closed, each is refused with a
//! `permission.refused` or `question.refused` line that says how to allow it. Replies go
//! through a [`Replier`]: the run's own services, or the server's reply routes.

use std::collections::HashMap;
use std::io::{BufRead, Write};

use async_trait::async_trait;
use serde_json::{Value, json};
use strata_protocol::wire::{PermissionRequest, QuestionRequest, ServerEvent};
use strata_services::permission::{Permission, Reply};
use strata_services::question::{Answer, Question};
use tokio::sync::mpsc;

use super::replies::{Incoming, parse};

/// What the stdin reader hands the front-end.
#[derive(Debug)]
pub(crate) enum StdinLine {
    Line(String),
    /// End of input (or a read error): no reply will come any more.
    Closed,
}

/// Reads stdin line by line on its own thread. A plain thread, not the runtime's blocking
/// pool: a read that never returns must not hold up the runtime's shutdown at exit.
pub(crate) fn read_stdin() -> mpsc::UnboundedReceiver<StdinLine> {
    let (tx, rx) = mpsc::unbounded_channel();
    // Without the thread the sender is dropped, which the receiver sees as a closed stdin.
    let _ = std::thread::Builder::new()
        .name("answers-stdin".into())
        .spawn(move || {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if tx.send(StdinLine::Line(line)).is_err() {
                    return;
                }
            }
            let _ = tx.send(StdinLine::Closed);
        });
    rx
}

/// Where a run's replies go: the local services, or a server's reply routes
/// (`strata run --attach`). The error says why the reply was not taken.
#[async_trait]
pub(crate) trait Replier: Send + Sync {
    async fn permission(&self, request_id: &str, reply: Reply) -> Result<(), String>;
    async fn answer(&self, request_id: &str, answers: Vec<Answer>) -> Result<(), String>;
    async fn dismiss(&self, request_id: &str) -> Result<(), String>;
}

/// The replies of a local run, to its own services.
pub(crate) struct LocalReplier<'a> {
    pub permission: &'a Permission,
    pub question: &'a Question,
}

#[async_trait]
impl Replier for LocalReplier<'_> {
    async fn permission(&self, request_id: &str, reply: Reply) -> Result<(), String> {
        self.permission
            .reply(request_id, reply)
            .map_err(|e| e.to_string())
    }

    async fn answer(&self, request_id: &str, answers: Vec<Answer>) -> Result<(), String> {
        self.question
            .reply(request_id, answers)
            .map_err(|e| e.to_string())
    }

    async fn dismiss(&self, request_id: &str) -> Result<(), String> {
        self.question.reject(request_id).map_err(|e| e.to_string())
    }
}

/// The asks of a JSON run that wait for a reply from stdin, in the wire's shapes.
#[derive(Debug, Default)]
pub(crate) struct Waiting {
    closed: bool,
    permissions: HashMap<String, PermissionRequest>,
    questions: HashMap<String, QuestionRequest>,
}

impl Waiting {
    /// Keeps `req` for a reply, or refuses it when stdin is already closed.
    pub(crate) async fn hold_permission(&mut self, req: &PermissionRequest, to: &dyn Replier) {
        if self.closed {
            refuse_permission(req, STDIN_CLOSED, to).await;
        } else {
            self.permissions.insert(req.id.clone(), req.clone());
        }
    }

    /// Keeps `req` for answers, or dismisses it when stdin is already closed.
    pub(crate) async fn hold_question(&mut self, req: &QuestionRequest, to: &dyn Replier) {
        if self.closed {
            refuse_question(req, STDIN_CLOSED, to).await;
        } else {
            self.questions.insert(req.id.clone(), req.clone());
        }
    }

    /// Forgets a request that was answered or withdrawn some other way.
    pub(crate) fn forget(&mut self, request_id: &str) {
        self.permissions.remove(request_id);
        self.questions.remove(request_id);
    }

    /// Applies one line from stdin: a reply, an `error` line for a bad one, or (at the end of
    /// input) a refusal of everything still waiting.
    pub(crate) async fn on_stdin(&mut self, line: StdinLine, session_id: &str, to: &dyn Replier) {
        let line = match line {
            StdinLine::Closed => return self.close(to).await,
            StdinLine::Line(line) if line.trim().is_empty() => return,
            StdinLine::Line(line) => line,
        };
        let applied = match parse(&line) {
            Ok(incoming) => self.apply(incoming, to).await,
            Err(e) => Err(e),
        };
        if let Err(message) = applied {
            emit(&error_line(session_id, &message, &line));
        }
    }

    async fn apply(&mut self, incoming: Incoming, to: &dyn Replier) -> Result<(), String> {
        match incoming {
            Incoming::Permission { id, reply } => {
                if self.permissions.remove(&id).is_none() {
                    return Err(not_waiting("permission", &id, self.permissions.keys()));
                }
                (to.permission(&id, reply).await)
                    .map_err(|e| format!("the reply to {id} was not taken: {e}"))
            }
            Incoming::Question { id, answers } => {
                let Some(req) = self.questions.get(&id) else {
                    return Err(not_waiting("question", &id, self.questions.keys()));
                };
                let result = match answers {
                    None => to.dismiss(&id).await,
                    Some(answers) if answers.len() != req.questions.len() => {
                        return Err(format!(
                            "question {id} has {} question(s) but the line gives {} answer(s); \
                             send one list of labels per question",
                            req.questions.len(),
                            answers.len()
                        ));
                    }
                    Some(answers) => to.answer(&id, answers).await,
                };
                self.questions.remove(&id);
                result.map_err(|e| format!("the answer to {id} was not taken: {e}"))
            }
        }
    }

    async fn close(&mut self, to: &dyn Replier) {
        self.closed = true;
        let mut permissions: Vec<_> = self.permissions.drain().map(|(_, r)| r).collect();
        permissions.sort_by(|a, b| a.id.cmp(&b.id));
        for req in permissions {
            refuse_permission(&req, STDIN_CLOSED, to).await;
        }
        let mut questions: Vec<_> = self.questions.drain().map(|(_, q)| q).collect();
        questions.sort_by(|a, b| a.id.cmp(&b.id));
        for req in questions {
            refuse_question(&req, STDIN_CLOSED, to).await;
        }
    }
}

const STDIN_CLOSED: &str = "stdin was closed, so no reply can come";

/// Why an ask is refused in a run that does not read replies.
pub(crate) const NO_ANSWERS: &str =
    "nobody can answer: pass --answers stdin to reply on stdin, or --yes to allow every ask";

fn not_waiting<'a>(kind: &str, id: &str, waiting: impl Iterator<Item = &'a String>) -> String {
    let mut ids: Vec<&str> = waiting.map(String::as_str).collect();
    ids.sort_unstable();
    let list = if ids.is_empty() {
        "none".to_string()
    } else {
        ids.join(", ")
    };
    format!("no {kind} request {id} is waiting for a reply (waiting: {list})")
}

/// Refuses `req` with a `permission.refused` line naming the rule that would allow it.
pub(crate) async fn refuse_permission(req: &PermissionRequest, reason: &str, to: &dyn Replier) {
    emit(&permission_refused(req, reason));
    // The ask may be gone already (a reply to another ask of the session ended it).
    let _ = to
        .permission(&req.id, Reply::Reject { feedback: None })
        .await;
}

/// Dismisses `req` with a `question.refused` line.
pub(crate) async fn refuse_question(req: &QuestionRequest, reason: &str, to: &dyn Replier) {
    emit(&question_refused(req, reason));
    let _ = to.dismiss(&req.id).await;
}

/// The line for a permission or question event:
/// `{"type", "timestamp", "sessionID", "properties"}`, the event as the server streams it.
pub(crate) fn event_line(event: &ServerEvent) -> Value {
    let session_id = event.session_id().unwrap_or_default().to_string();
    let mut event = serde_json::to_value(event).unwrap_or(Value::Null);
    let kind = event.get("type").cloned().unwrap_or(Value::Null);
    let properties = event.get_mut("properties").map(Value::take);
    json!({
        "type": kind,
        "timestamp": now_ms(),
        "sessionID": session_id,
        "properties": properties.unwrap_or(Value::Null),
    })
}

fn permission_refused(req: &PermissionRequest, reason: &str) -> Value {
    let allow: serde_json::Map<String, Value> = req
        .patterns
        .iter()
        .map(|p| (p.clone(), json!("allow")))
        .collect();
    json!({
        "type": "permission.refused",
        "timestamp": now_ms(),
        "sessionID": req.session_id,
        "properties": {
            "requestID": req.id,
            "permission": req.permission,
            "patterns": req.patterns,
            "reason": reason,
            // What to add to strata.json to allow this call without asking.
            "rule": {"permission": {req.permission.clone(): allow}},
        },
    })
}

fn question_refused(req: &QuestionRequest, reason: &str) -> Value {
    json!({
        "type": "question.refused",
        "timestamp": now_ms(),
        "sessionID": req.session_id,
        "properties": {"requestID": req.id, "reason": reason},
    })
}

fn error_line(session_id: &str, message: &str, line: &str) -> Value {
    json!({
        "type": "error",
        "timestamp": now_ms(),
        "sessionID": session_id,
        "error": {"name": "InvalidReply", "data": {"message": message, "line": line}},
    })
}

/// Writes one line to stdout and flushes it, so a bridge reading the pipe sees it at once.
pub(crate) fn emit(value: &Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{value}");
    let _ = out.flush();
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
