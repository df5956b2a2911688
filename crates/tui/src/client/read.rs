//! Reading the server's answers into the UI's model, shared by both transports: the HTTP one
//! reads the JSON bodies into the protocol's types, the in-process one hands those types over
//! as the core returns them; from there both take the same steps.

use serde::Deserialize;
use serde_json::Value;

use strata_protocol::wire::MessageEntry;

use super::{ClientError, Result};
use crate::model::{
    AgentInfo, Bootstrap, MessageWithParts, ModelChoice, SessionInfo, Snapshot, Todo,
};

/// Reads `v` as `T`; a mismatch is reported as an unexpected answer to `what`.
pub fn parse<T: for<'de> Deserialize<'de>>(what: &str, v: Value) -> Result<T> {
    T::deserialize(v).map_err(|e| ClientError::new(what, format!("unexpected answer: {e}")))
}

/// The start-up data from `GET /agent`, `GET /config/providers`, `GET /config` and the
/// session list. The model is the config's `model`, else the first provider default.
pub fn bootstrap(
    agents: Value,
    providers: &Value,
    config: &Value,
    sessions: Vec<SessionInfo>,
) -> Result<Bootstrap> {
    let agents: Vec<AgentInfo> = parse("GET /agent", agents)?;
    let mut models = vec![];
    for p in providers["providers"].as_array().into_iter().flatten() {
        let pid = p["id"].as_str().unwrap_or_default();
        for mid in p["models"].as_object().into_iter().flat_map(|m| m.keys()) {
            models.push(ModelChoice {
                provider_id: pid.to_string(),
                model_id: mid.clone(),
            });
        }
    }
    let model = config["model"]
        .as_str()
        .and_then(|m| m.split_once('/'))
        .map(|(p, m)| ModelChoice {
            provider_id: p.into(),
            model_id: m.into(),
        })
        .or_else(|| {
            let (p, m) = providers["default"].as_object()?.iter().next()?;
            Some(ModelChoice {
                provider_id: p.clone(),
                model_id: m.as_str()?.to_string(),
            })
        });
    Ok(Bootstrap {
        agents,
        models,
        model,
        sessions,
        commands: Vec::new(),
    })
}

/// Top-level sessions only (`GET /session` lists subagents' too).
pub fn top_sessions(all: Vec<SessionInfo>) -> Vec<SessionInfo> {
    all.into_iter().filter(|s| s.parent_id.is_none()).collect()
}

/// `GET /session/:id/message`; entries that do not read as messages are skipped.
pub fn messages(v: &Value) -> Vec<MessageWithParts> {
    v.as_array()
        .map(|a| a.iter().filter_map(MessageWithParts::from_json).collect())
        .unwrap_or_default()
}

/// The core's message list as the UI holds it; entries that do not read are skipped.
pub fn entries(list: &[MessageEntry]) -> Vec<MessageWithParts> {
    list.iter()
        .filter_map(MessageWithParts::from_entry)
        .collect()
}

/// `GET /session/:id/todo`; todos are optional, so anything unreadable is none.
pub fn todos(v: Value) -> Vec<Todo> {
    parse("todo", v).unwrap_or_default()
}

/// A session opened: its info, its newest messages with the cursor for older ones, and
/// (optional, as for opencode's own client) its todos; a todo list that could not be fetched
/// is `None` and reads as empty.
pub fn snapshot(
    session: SessionInfo,
    messages: Vec<MessageWithParts>,
    older: Option<String>,
    todos: Option<Vec<Todo>>,
) -> Snapshot {
    Snapshot {
        session,
        messages,
        todos: todos.unwrap_or_default(),
        seq: None,
        older,
    }
}
