//! Shared pieces of the agent-loop tests: a test instance with a store, the scripted model
//! server, a runner, and the check that the event log is gap-free and agrees with the tables.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use strata_agent::events::{LoopEvent, event_part};
use strata_agent::provider::{Anthropic, OpenAiCompatible, OpenAiResponses, Provider};
use strata_agent::session::{
    LoopServices, Model, RunOptions, RunReport, Runner, SessionTarget, open_session,
};
use strata_agent::store::{Event, Store, kinds};
use strata_registry::rules::ruleset_of;
use strata_registry::{SurfaceSpec, ToolRegistry};
use strata_services::clock::Clock;
use strata_services::config::Config;
use strata_services::flags::RuntimeFlags;
use strata_services::instance::InstanceInfo;
use strata_services::instructions::Instructions;
use strata_services::permission::Permission;
use strata_services::skills::Skills;
use strata_testkit::TestInstance;
use strata_testkit::model_server::ModelServer;
use tokio_util::sync::CancellationToken;

pub(crate) const MODEL: &str = "openai/scripted-model";
pub(crate) const LIMIT: Duration = Duration::from_secs(20);

/// The instance's services with a store in its data directory.
pub(crate) fn services(t: &TestInstance) -> LoopServices {
    let flags = t.get::<RuntimeFlags>();
    LoopServices {
        store: Store::open_in(&flags.data_dir).unwrap(),
        registry: t.get::<ToolRegistry>(),
        permission: t.get::<Permission>(),
        config: t.get::<Config>(),
        flags,
        info: t.get::<InstanceInfo>(),
        skills: t.get::<Skills>(),
        instructions: t.get::<Instructions>(),
        agents: t.get::<strata_registry::Agents>(),
        clock: t.get::<Clock>(),
        runs: Default::default(),
        background: t.context().get().ok(),
        hooks: t.get::<strata_services::hooks::Hooks>(),
    }
}

/// Quick retries so broken-stream tests stay fast.
pub(crate) fn options() -> RunOptions {
    RunOptions {
        retry_delay: Duration::from_millis(10),
        ..RunOptions::default()
    }
}

pub(crate) fn runner(
    t: &TestInstance,
    server: &ModelServer,
    model: &str,
    opts: RunOptions,
) -> Runner {
    let provider = OpenAiCompatible::new(server.url(), None).unwrap();
    runner_for(t, Arc::new(provider), model, opts)
}

/// A runner speaking the Anthropic protocol to the same scripted server.
pub(crate) fn anthropic_runner(t: &TestInstance, server: &ModelServer, opts: RunOptions) -> Runner {
    let provider = Anthropic::new(server.anthropic_url(), Some("test-key".into())).unwrap();
    runner_for(t, Arc::new(provider), "anthropic/scripted-model", opts)
}

/// A runner speaking OpenAI's Responses API to the same scripted server.
pub(crate) fn responses_runner(t: &TestInstance, server: &ModelServer, opts: RunOptions) -> Runner {
    let provider = OpenAiResponses::new(server.url(), Some("test-key".into())).unwrap();
    runner_for(t, Arc::new(provider), MODEL, opts)
}

/// A runner over the instance graph's own services (its store, live runs and subagents), wired
/// as in production.
pub(crate) fn graph_runner(t: &TestInstance, server: &ModelServer, opts: RunOptions) -> Runner {
    let services = LoopServices::from_context(t.context()).unwrap();
    let provider = OpenAiCompatible::new(server.url(), None).unwrap();
    runner_with(services, Arc::new(provider), MODEL, opts)
}

fn runner_for(
    t: &TestInstance,
    provider: Arc<dyn Provider>,
    model: &str,
    opts: RunOptions,
) -> Runner {
    runner_with(services(t), provider, model, opts)
}

fn runner_with(
    services: LoopServices,
    provider: Arc<dyn Provider>,
    model: &str,
    opts: RunOptions,
) -> Runner {
    let api_model = model.split_once('/').map_or(model, |(_, m)| m).to_string();
    Runner::new(
        services,
        Model {
            id: model.to_string(),
            api_model,
            provider,
        },
        opts,
    )
}

pub(crate) fn store(t: &TestInstance) -> Store {
    services(t).store
}

/// What one run produced: its report and every event the front-end heard.
pub(crate) struct Ran {
    pub report: RunReport,
    pub heard: Vec<LoopEvent>,
    pub session_id: String,
    /// The last seq in the table before the run.
    pub before: i64,
}

/// Runs `message` in a new session (or the given target) and collects the front-end events.
pub(crate) async fn run_in(
    t: &TestInstance,
    runner: &Runner,
    target: SessionTarget,
    message: &str,
    cancel: CancellationToken,
) -> Ran {
    let store = store(t);
    let session = open_session(&store, t.dir(), &target).unwrap();
    let before = store
        .events_since(&session.id, 0)
        .unwrap()
        .last()
        .map_or(0, |e| e.seq);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let report = strata_testkit::await_with_timeout(
        "the run to end",
        LIMIT,
        runner.run(&session.id, message, cancel, Some(tx)),
    )
    .await
    .unwrap();
    let mut heard = Vec::new();
    while let Ok(e) = rx.try_recv() {
        heard.push(e);
    }
    Ran {
        report,
        heard,
        session_id: session.id,
        before,
    }
}

pub(crate) async fn run(t: &TestInstance, runner: &Runner, message: &str) -> Ran {
    run_in(
        t,
        runner,
        SessionTarget::New,
        message,
        CancellationToken::new(),
    )
    .await
}

/// The tool parts of a session in order, as their stored data.
pub(crate) fn tool_parts(store: &Store, session_id: &str) -> Vec<Value> {
    store
        .messages(session_id)
        .unwrap()
        .into_iter()
        .flat_map(|(_, parts)| parts)
        .filter(|p| p.kind == "tool")
        .map(|p| p.data)
        .collect()
}

/// Checks the event log of `ran`'s session: seqs 1..=n without gaps; replaying the
/// `message.updated` and `message.part.updated` events gives exactly the stored messages and
/// parts; no tool part is left pending or running; the run ended idle; and the front-end
/// heard every event committed during the run, in order.
pub(crate) fn assert_log_consistent(store: &Store, ran: &Ran) {
    let sid = &ran.session_id;
    let events = store.events_since(sid, 0).unwrap();
    let seqs: Vec<i64> = events.iter().map(|e| e.seq).collect();
    let expected: Vec<i64> = (1..=events.len() as i64).collect();
    assert_eq!(seqs, expected, "event seqs have a gap");

    let mut parts: HashMap<String, (String, Value, i64)> = HashMap::new();
    let mut messages: HashMap<String, Value> = HashMap::new();
    for e in &events {
        if let Some(p) = event_part(e) {
            parts.insert(p.id.clone(), (p.kind, p.data, p.seq));
        } else if e.kind == kinds::MESSAGE_UPDATED {
            let m = &e.data["message"];
            messages.insert(m["id"].as_str().unwrap().to_string(), m["data"].clone());
        }
    }
    let stored = store.messages(sid).unwrap();
    assert_eq!(stored.len(), messages.len(), "messages without events");
    let mut stored_parts = 0;
    for (m, ps) in &stored {
        assert_eq!(
            messages.get(&m.id),
            Some(&m.data),
            "message {} differs from its last event",
            m.id
        );
        for p in ps {
            stored_parts += 1;
            let (kind, data, seq) = parts.get(&p.id).expect("a stored part has events");
            assert_eq!(
                (kind, data, *seq),
                (&p.kind, &p.data, p.seq),
                "part {}",
                p.id
            );
            if p.kind == "tool" {
                let status = p.data["state"]["status"].as_str().unwrap();
                assert!(
                    status == "completed" || status == "error",
                    "tool part left {status}: {}",
                    p.data
                );
            }
        }
    }
    assert_eq!(stored_parts, parts.len(), "parts without a stored row");
    let last_status = events
        .iter()
        .rev()
        .find(|e| e.kind == "session.status")
        .expect("a status event");
    assert_eq!(last_status.data["status"]["type"], "idle");

    let heard: Vec<&Event> = ran
        .heard
        .iter()
        .filter_map(|e| match e {
            LoopEvent::Stored(e) => Some(e),
            LoopEvent::TextDelta { .. } => None,
        })
        .collect();
    let during: Vec<&Event> = events.iter().filter(|e| e.seq > ran.before).collect();
    assert_eq!(
        heard, during,
        "the front-end must hear every committed event in order"
    );
}

/// Pins, as an insta snapshot named `name`, what the model was sent in every request of the
/// test (see [`ModelServer::rendered`]), with the test's directory shown as `[dir]`.
pub(crate) fn assert_sent(name: &str, t: &TestInstance, server: &ModelServer) {
    let rendered = server
        .rendered_against(&|model| Some(default_surface(t, model)))
        .replace(t.dir().to_string_lossy().as_ref(), "[dir]");
    let mut settings = insta::Settings::clone_current();
    // One place for these snapshots, whichever test binary the loop tests end up in.
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!(name, rendered));
}

/// The tools the instance's `build` agent offers `model`: what request snapshots are written
/// against, so that adding a tool to the house does not change them.
fn default_surface(t: &TestInstance, model: &str) -> Vec<String> {
    let s = services(t);
    let agent = s.agents.lookup("build").expect("the build agent");
    let ruleset = ruleset_of(agent, &s.config, &s.flags, &s.skills).expect("the build rules");
    let spec = SurfaceSpec {
        model: model.to_string(),
        plan_mode: false,
        ruleset,
        flags: s.flags.enabled(),
        backends: s.registry.configured_backends(&s.config, &s.flags),
    };
    s.registry
        .surface(&spec)
        .iter()
        .map(|tool| tool.id.to_string())
        .collect()
}

/// A chat-completions 400 saying the context is too long: the turn compacts and goes on.
pub(crate) fn context_overflow() -> strata_testkit::model_server::Turn {
    let body = serde_json::json!({"error": {
        "message": "This model's maximum context length is 10 tokens.",
        "type": "invalid_request_error",
        "code": "context_length_exceeded",
    }});
    strata_testkit::model_server::Turn::Status(400, body.to_string())
}

/// A phrase of the summary prompt, by which the model server recognises summary requests.
pub(crate) fn summary_needle() -> &'static str {
    strata_agent::session::compact::SUMMARY_PROMPT
        .split('.')
        .nth(1)
        .unwrap_or_default()
        .trim()
}
