//! The TUI's two transports against a real server core with the scripted model: the HTTP one
//! (to the core served on 127.0.0.1 with a password) and the in-process one (the same calls on
//! the core, with no port). One test body, taking `&dyn Client`, runs over each: bootstrap, a
//! turn whose bash call asks for permission and is allowed, the events of that turn, the
//! session's snapshot and tool counts, undo and redo, a rejected permission with a message for
//! the model, a summary asked for now (`/compact`), and the error for an unknown session. Both
//! transports must deliver the same typed events.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use strata_graph::{Node, Tier};
use strata_protocol::ToolState;
use strata_protocol::event::SessionStatus;
use strata_protocol::wire::SummarizeBody;
use strata_server::http::{AuthConfig, HttpOptions};
use strata_server::{CoreOptions, Local, ServerCore};
use strata_services::flags::RuntimeFlags;
use strata_testkit::model_server::{ModelServer, Turn};
use strata_tui::event::ServerEvent;
use strata_tui::model::{ModelChoice, PartInfo, PartKind, PermissionReply};
use strata_tui::{Client, ClientEvent, HttpClient, Prompt};
use tokio::sync::mpsc::Receiver;

// The adapter `strata` uses, compiled here as it is in the binary.
#[path = "../../src/cmd/local_client.rs"]
mod local_client;

use local_client::LocalClient;

const WAIT: Duration = Duration::from_secs(30);

/// A server core over a temporary project whose model is the scripted one.
struct Fixture {
    core: ServerCore,
    dir: PathBuf,
    model: ModelServer,
    _root: tempfile::TempDir,
}

async fn fixture() -> Fixture {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let root = tempfile::Builder::new()
        .prefix("strata-transports-")
        .tempdir()
        .unwrap();
    let base = std::fs::canonicalize(root.path()).unwrap();
    let (dir, data, config, home) = (
        base.join("project"),
        base.join("data"),
        base.join("config"),
        base.join("home"),
    );
    for d in [&dir, &data, &config, &home] {
        std::fs::create_dir_all(d).unwrap();
    }
    let model = ModelServer::start(vec![
        Turn::tool_call(
            "call_1",
            "bash",
            r#"{"command":"echo approved-run","description":"Print a marker"}"#,
        ),
        Turn::text("All done here."),
        Turn::tool_call(
            "call_2",
            "bash",
            r#"{"command":"echo never-run","description":"Print another marker"}"#,
        ),
        Turn::text("Understood."),
    ]);
    let needle = strata_agent::session::compact::SUMMARY_PROMPT
        .split('.')
        .nth(1)
        .unwrap()
        .trim();
    model.answer_when(needle, Turn::text("SUMMARY: two markers."));
    let project = json!({
        "model": "openai/scripted-model",
        "provider": {"openai": {"baseURL": model.url()}},
        "permission": {"bash": "ask"},
        "sandbox": {"auto_allow": false},
    });
    std::fs::write(dir.join("strata.json"), project.to_string()).unwrap();
    let mut flags = RuntimeFlags::for_dirs(&data, &config);
    flags.home_dir = home;
    let mut graph = strata_agent::production();
    graph
        .replace::<RuntimeFlags>(Node::value(Tier::Global, flags))
        .unwrap();
    let core = ServerCore::start(CoreOptions {
        default_dir: dir.clone(),
        graph,
    })
    .await
    .unwrap();
    Fixture {
        core,
        dir,
        model,
        _root: root,
    }
}

async fn next(rx: &mut Receiver<ClientEvent>) -> ClientEvent {
    tokio::time::timeout(WAIT, rx.recv())
        .await
        .expect("an event within the limit")
        .expect("the stream stays open")
}

/// Events up to and including the first that `stop` accepts.
async fn until(
    rx: &mut Receiver<ClientEvent>,
    stop: impl Fn(&ServerEvent) -> bool,
) -> Vec<ClientEvent> {
    let mut seen = vec![];
    loop {
        let e = next(rx).await;
        let done = matches!(&e, ClientEvent::Event(env) if stop(&env.event));
        seen.push(e);
        if done {
            return seen;
        }
    }
}

fn idle(sid: &str) -> impl Fn(&ServerEvent) -> bool + '_ {
    move |e| matches!(e, ServerEvent::SessionStatus { session_id, status: SessionStatus::Idle } if session_id == sid)
}

/// The stored events' kinds, in order, with ids and times left out and repeats of one kind
/// counted once (how often a running tool reports progress depends on timing): what both
/// transports must agree on.
fn kinds(events: &[ClientEvent]) -> Vec<String> {
    let mut out: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            ClientEvent::Event(env) if env.seq.is_some() => Some(kind(&env.event)),
            _ => None,
        })
        .collect();
    out.dedup();
    out
}

fn kind(e: &ServerEvent) -> String {
    match e {
        ServerEvent::PartUpdated { part, .. } => match PartInfo::from_view(part).map(|p| p.kind) {
            Some(PartKind::Tool(t)) => format!("part tool {}", status(&t.state)),
            other => format!("part {}", head(&format!("{other:?}"))),
        },
        ServerEvent::MessageUpdated { info, .. } => format!("message {}", info.role.as_str()),
        ServerEvent::SessionStatus { status, .. } => format!("status {status:?}"),
        other => head(&format!("{other:?}")),
    }
}

/// The variant name of a `Debug` rendering.
fn head(debug: &str) -> String {
    debug
        .split([' ', '{', '('])
        .next()
        .unwrap_or("")
        .to_string()
}

fn status(state: &ToolState) -> &'static str {
    match state {
        ToolState::Pending(_) => "pending",
        ToolState::Running(_) => "running",
        ToolState::Completed(_) => "completed",
        ToolState::Error(_) => "error",
    }
}

/// The output of a completed `bash` part.
fn bash_output(k: &PartKind) -> Option<&str> {
    match k {
        PartKind::Tool(t) if t.tool == "bash" => match &t.state {
            ToolState::Completed(c) => Some(&c.output),
            _ => None,
        },
        _ => None,
    }
}

/// What the UI does with a server, over `c`; returns the kinds of the first turn's events.
async fn behaviours(c: &dyn Client, f: &Fixture) -> Vec<String> {
    let boot = c.bootstrap().await.unwrap();
    let scripted = ModelChoice {
        provider_id: "openai".into(),
        model_id: "scripted-model".into(),
    };
    assert_eq!(boot.model.as_ref(), Some(&scripted));
    assert!(boot.models.contains(&scripted), "{:?}", boot.models);
    assert!(
        boot.agents.iter().any(|a| a.name == "build"),
        "{:?}",
        boot.agents
    );

    let mut rx = c.events();
    assert_eq!(next(&mut rx).await, ClientEvent::Connected);
    let session = c.create_session("build").await.unwrap();
    assert_eq!(session.directory, f.dir.display().to_string());
    let prompt = |text: &str| Prompt {
        text: text.into(),
        agent: "build".into(),
        model: Some(scripted.clone()),
    };
    c.prompt(&session.id, prompt("print the marker"))
        .await
        .unwrap();

    // The bash call waits for a permission; allowing it lets the turn finish.
    let mut first = until(&mut rx, |e| matches!(e, ServerEvent::PermissionAsked(_))).await;
    let Some(ClientEvent::Event(asked)) = first.last() else {
        unreachable!()
    };
    let ServerEvent::PermissionAsked(request) = &asked.event else {
        unreachable!()
    };
    assert_eq!(request.permission, "bash");
    assert_eq!(request.session_id, session.id);
    c.reply_permission(&request.id, PermissionReply::Once, None)
        .await
        .unwrap();
    first.extend(until(&mut rx, idle(&session.id)).await);
    // Stored events come numbered, in order, per session.
    let seqs: Vec<i64> = first
        .iter()
        .filter_map(|e| match e {
            ClientEvent::Event(env) if env.event.session_id() == Some(&session.id) => env.seq,
            _ => None,
        })
        .collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    let deltas: String = first
        .iter()
        .filter_map(|e| match e {
            ClientEvent::Event(env) => match &env.event {
                ServerEvent::PartDelta { delta, .. } => Some(delta.as_str()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    // The answer streams as deltas, in order and never repeated. (A delta that reaches the
    // server's fan-out after its part was stored whole is dropped, so on a loaded machine the
    // streamed text may stop short of the answer; the stored part below carries it whole.)
    assert!(
        "All done here.".starts_with(&deltas),
        "the deltas are not the answer's start: {deltas:?}\n{first:#?}"
    );

    let snap = c.snapshot(&session.id).await.unwrap();
    assert_eq!(snap.session.id, session.id);
    // The counts `/tools` shows: no MCP server here, so nothing is deferred.
    let tools = c.tools(&session.id).await.unwrap();
    assert_eq!(tools.model, "openai/scripted-model");
    assert_eq!((tools.loaded, tools.deferred), (tools.tools.len(), 0));
    assert!(
        (tools.tools.iter()).any(|t| t.id == "bash" && t.state == "loaded"),
        "{tools:?}"
    );
    let parts: Vec<&PartKind> = snap
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .map(|p| &p.kind)
        .collect();
    assert!(
        parts
            .iter()
            .any(|k| bash_output(k).is_some_and(|o| o.contains("approved-run"))),
        "{parts:#?}"
    );
    assert!(
        parts
            .iter()
            .any(|k| matches!(k, PartKind::Text(t) if t.text == "All done here.")),
        "{parts:#?}"
    );
    let listed = c.sessions().await.unwrap();
    assert!(listed.iter().any(|s| s.id == session.id));

    // Undo the turn, then redo it; what undo shows must be the same over both transports.
    let user = snap
        .messages
        .iter()
        .find(|m| m.info.is_user())
        .unwrap()
        .info
        .id
        .clone();
    c.revert(&session.id, &user).await.unwrap();
    let undone = c.snapshot(&session.id).await.unwrap().messages.len();
    c.unrevert(&session.id).await.unwrap();
    assert_eq!(
        c.snapshot(&session.id).await.unwrap().messages.len(),
        snap.messages.len()
    );
    let err = c.revert(&session.id, "msg_nope").await.unwrap_err();
    assert!(err.to_string().contains("msg_nope"), "{err}");

    // A rejection with a message: the model is told the message.
    c.prompt(&session.id, prompt("print another"))
        .await
        .unwrap();
    let asked = until(&mut rx, |e| matches!(e, ServerEvent::PermissionAsked(_))).await;
    let Some(ClientEvent::Event(env)) = asked.last() else {
        unreachable!()
    };
    let ServerEvent::PermissionAsked(request) = &env.event else {
        unreachable!()
    };
    c.reply_permission(
        &request.id,
        PermissionReply::Reject,
        Some("use printf instead".into()),
    )
    .await
    .unwrap();
    until(&mut rx, idle(&session.id)).await;
    let results = f.model.sent().last().unwrap().results();
    assert!(
        results
            .iter()
            .any(|(id, out)| id == "call_2" && out.contains("use printf instead")),
        "{results:?}"
    );
    // A summary now (`/compact`): the call returns once it is stored.
    let body = SummarizeBody {
        instructions: Some("keep the markers".into()),
        ..SummarizeBody::default()
    };
    c.summarize(&session.id, body).await.unwrap();
    let summary = f.model.requests().last().unwrap().to_string();
    assert!(summary.contains("keep the markers"), "{summary}");
    let compacted = c.snapshot(&session.id).await.unwrap();
    assert!(
        compacted
            .messages
            .iter()
            .flat_map(|m| &m.parts)
            .any(|p| matches!(&p.kind, PartKind::Other(k) if k == "compaction")),
        "{compacted:#?}"
    );
    let err = c
        .summarize("ses_missing", SummarizeBody::default())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("ses_missing"), "{err}");
    c.abort(&session.id).await.unwrap();

    let err = c.snapshot("ses_missing").await.unwrap_err();
    assert!(err.to_string().contains("ses_missing"), "{err}");
    let mut trace = kinds(&first);
    trace.push(format!("after undo: {undone} messages"));
    trace
}

async fn over_http() -> Vec<String> {
    let f = fixture().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let options = HttpOptions {
        auth: AuthConfig {
            password: Some("secret".into()),
            username: None,
        },
        cors: vec![],
    };
    let stop = tokio_util::sync::CancellationToken::new();
    let server_stop = stop.clone();
    let server = tokio::spawn(strata_server::serve::serve(
        listener,
        f.core.clone(),
        options,
        async move { server_stop.cancelled().await },
    ));
    let mut opts = strata_tui::HttpOptions::new(&url);
    opts.password = Some("secret".into());
    opts.directory = Some(f.dir.display().to_string());
    let client = HttpClient::new(opts).unwrap();
    let kinds = behaviours(&client, &f).await;
    stop.cancel();
    let _ = server.await;
    kinds
}

async fn in_process() -> Vec<String> {
    let f = fixture().await;
    let client = Arc::new(LocalClient::new(Local::new(f.core.clone(), f.dir.clone())));
    let kinds = behaviours(&*client, &f).await;
    f.core.shutdown().await;
    kinds
}

#[tokio::test(flavor = "multi_thread")]
async fn both_transports_drive_the_server_alike() {
    let http = over_http().await;
    let local = in_process().await;
    assert!(http.iter().any(|k| k == "part tool completed"), "{http:#?}");
    assert_eq!(http, local, "the transports delivered different events");
}
