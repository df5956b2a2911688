//! Server events and snapshots as a real server sends them (wire JSON), and an app primed
//! with a session, for the reducer, key and view tests.

use serde_json::{Value, json};
use strata_tui::event::decode;
use strata_tui::model::{
    AgentInfo, Bootstrap, MessageWithParts, ModelChoice, SessionInfo, Snapshot,
};
use strata_tui::{App, Envelope};

pub(crate) const SID: &str = "ses_1";

/// One `/global/event` item decoded, as the transport delivers it.
pub(crate) fn ev(seq: Option<u64>, kind: &str, props: Value) -> Envelope {
    let mut payload = json!({"id": "evt_x", "type": kind, "properties": props});
    if let Some(s) = seq {
        payload["seq"] = json!(s);
    }
    let item = json!({"directory": "/p", "payload": payload});
    decode(&item.to_string()).unwrap_or_else(|| panic!("{kind} did not decode"))
}

pub(crate) fn user(id: &str) -> Value {
    json!({"id": id, "sessionID": SID, "role": "user", "time": {"created": 1}, "agent": "build",
           "model": {"providerID": "mock", "modelID": "mock"}})
}

pub(crate) fn assistant(id: &str) -> Value {
    json!({"id": id, "sessionID": SID, "role": "assistant", "time": {"created": 2}, "agent": "build",
           "providerID": "mock", "modelID": "mock", "cost": 0.0123,
           "tokens": {"input": 1200, "output": 34, "reasoning": 0, "cache": {"read": 0, "write": 0}}})
}

pub(crate) fn text(id: &str, message: &str, text: &str, done: bool) -> Value {
    let time = if done {
        json!({"start": 1, "end": 2})
    } else {
        json!({"start": 1})
    };
    json!({"id": id, "sessionID": SID, "messageID": message, "type": "text", "text": text, "time": time})
}

pub(crate) fn tool(id: &str, message: &str, name: &str, state: Value) -> Value {
    json!({"id": id, "sessionID": SID, "messageID": message, "type": "tool", "tool": name,
           "callID": format!("call_{id}"), "state": state})
}

pub(crate) fn msg_updated(seq: Option<u64>, info: Value) -> Envelope {
    ev(
        seq,
        "message.updated",
        json!({"sessionID": SID, "info": info}),
    )
}

pub(crate) fn part_updated(seq: Option<u64>, part: Value) -> Envelope {
    ev(
        seq,
        "message.part.updated",
        json!({"sessionID": SID, "part": part, "time": 3}),
    )
}

pub(crate) fn delta(message: &str, part: &str, d: &str) -> Envelope {
    ev(
        None,
        "message.part.delta",
        json!({"sessionID": SID, "messageID": message, "partID": part, "field": "text", "delta": d}),
    )
}

pub(crate) fn status(seq: Option<u64>, kind: &str) -> Envelope {
    ev(
        seq,
        "session.status",
        json!({"sessionID": SID, "status": {"type": kind}}),
    )
}

pub(crate) fn info(id: &str, title: &str) -> SessionInfo {
    SessionInfo {
        id: id.into(),
        title: title.into(),
        directory: "/p".into(),
        ..Default::default()
    }
}

/// An empty snapshot of the test session.
pub(crate) fn snapshot() -> Snapshot {
    Snapshot {
        session: info(SID, "Fix the greeting"),
        ..Default::default()
    }
}

/// A snapshot holding `messages` (wire `{info, parts}` values).
pub(crate) fn snapshot_of(messages: &[Value]) -> Snapshot {
    Snapshot {
        messages: messages
            .iter()
            .map(|m| MessageWithParts::from_json(m).expect("message"))
            .collect(),
        ..snapshot()
    }
}

pub(crate) fn boot() -> Bootstrap {
    let agent = |n: &str, mode: &str| AgentInfo {
        name: n.into(),
        mode: mode.into(),
        hidden: false,
    };
    Bootstrap {
        agents: vec![
            agent("build", "primary"),
            agent("plan", "primary"),
            agent("explore", "subagent"),
        ],
        models: vec![
            ModelChoice {
                provider_id: "mock".into(),
                model_id: "mock".into(),
            },
            ModelChoice {
                provider_id: "mock".into(),
                model_id: "big".into(),
            },
        ],
        model: Some(ModelChoice {
            provider_id: "mock".into(),
            model_id: "mock".into(),
        }),
        sessions: vec![info(SID, "Fix the greeting"), info("ses_0", "Older work")],
        commands: vec![],
    }
}

/// An app with the test session open and `events` applied.
pub(crate) fn app_with(events: Vec<Envelope>) -> App {
    let mut app = App::new(boot());
    app.state.load(snapshot());
    app.state.connection = strata_tui::state::Connection::Connected;
    for e in events {
        app.state.apply(e);
    }
    app
}
