//! Spans exported over OTLP/HTTP to a loopback receiver by a real `strata` process (flushed
//! before it exits, also after SIGTERM or a failed run, and never without an endpoint), and
//! the log output: `RUST_LOG` filtering, the log file under the data directory, nothing on
//! stdout.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use prost::Message;
use strata_testkit::model_server::{ModelServer, Turn};
use strata_testkit::poll_within_blocking;

use crate::common::Project;
use crate::e2e_run_support::*;

/// One received span: its name, ids, attributes, and its resource's attributes.
#[derive(Debug, Clone)]
struct Span {
    name: String,
    id: Vec<u8>,
    parent: Vec<u8>,
    attrs: HashMap<String, String>,
    resource: HashMap<String, String>,
}

fn text(v: &Option<AnyValue>) -> String {
    match v.as_ref().and_then(|v| v.value.as_ref()) {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        Some(any_value::Value::IntValue(i)) => i.to_string(),
        Some(any_value::Value::BoolValue(b)) => b.to_string(),
        Some(other) => format!("{other:?}"),
        None => String::new(),
    }
}

fn attrs(kvs: &[KeyValue]) -> HashMap<String, String> {
    kvs.iter()
        .map(|kv| (kv.key.clone(), text(&kv.value)))
        .collect()
}

/// A loopback OTLP/HTTP receiver: `POST /v1/traces` with a protobuf body.
struct Receiver {
    url: String,
    spans: Arc<Mutex<Vec<Span>>>,
    _runtime: tokio::runtime::Runtime,
}

async fn traces(State(spans): State<Arc<Mutex<Vec<Span>>>>, body: Bytes) -> &'static str {
    let request = ExportTraceServiceRequest::decode(body).expect("an OTLP protobuf body");
    let mut out = spans.lock().unwrap();
    for rs in request.resource_spans {
        let resource = attrs(&rs.resource.map(|r| r.attributes).unwrap_or_default());
        for ss in rs.scope_spans {
            for s in ss.spans {
                out.push(Span {
                    name: s.name,
                    id: s.span_id,
                    parent: s.parent_span_id,
                    attrs: attrs(&s.attributes),
                    resource: resource.clone(),
                });
            }
        }
    }
    ""
}

impl Receiver {
    fn start() -> Receiver {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let spans = Arc::new(Mutex::new(Vec::new()));
        let app = Router::new()
            .route("/v1/traces", post(traces))
            .with_state(spans.clone());
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        runtime.spawn(async move { axum::serve(listener, app).await });
        Receiver {
            url,
            spans,
            _runtime: runtime,
        }
    }

    fn spans(&self) -> Vec<Span> {
        self.spans.lock().unwrap().clone()
    }

    fn named(&self, name: &str) -> Vec<Span> {
        self.spans()
            .into_iter()
            .filter(|s| s.name == name)
            .collect()
    }
}

fn exporting(cmd: &mut std::process::Command, receiver: &Receiver) {
    cmd.env("OTEL_EXPORTER_OTLP_ENDPOINT", &receiver.url)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
        .env("OTEL_SERVICE_NAME", "strata-under-test")
        .env("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test");
}

#[test]
fn a_run_exports_turn_step_model_and_tool_spans_before_it_exits() {
    let p = Project::new();
    let receiver = Receiver::start();
    let server = ModelServer::start(vec![
        Turn::tool_call("c1", "glob", r#"{"pattern":"*"}"#),
        Turn::text("Done."),
    ]);
    let mut cmd = command(
        &p,
        &server,
        &["run", "--model", MODEL, "--format", "json", "list"],
    );
    exporting(&mut cmd, &receiver);
    let run = finish(cmd.spawn().unwrap());
    run.expect_code(0);
    let session = json_lines(&run)[0]["sessionID"]
        .as_str()
        .unwrap()
        .to_string();

    // No waiting: the process flushed its spans before it exited.
    let tools = receiver.named("Tool.execute");
    assert_eq!(tools.len(), 1, "{:#?}", receiver.spans());
    let tool = &tools[0];
    assert_eq!(tool.attrs["tool.name"], "glob");
    assert_eq!(tool.attrs["tool.call_id"], "c1");
    assert_eq!(tool.attrs["session.id"], session);
    assert_eq!(tool.resource["service.name"], "strata-under-test");
    assert_eq!(tool.resource["deployment.environment"], "test");

    let turns = receiver.named("Session.turn");
    assert_eq!(turns.len(), 1);
    assert_eq!(turns[0].attrs["session.id"], session);
    assert_eq!(turns[0].attrs["model"], MODEL);
    let steps = receiver.named("Session.step");
    assert_eq!(steps.len(), 2);
    assert!(steps.iter().all(|s| s.parent == turns[0].id));
    let requests = receiver.named("Model.request");
    assert_eq!(requests.len(), 2);
    assert!(
        requests
            .iter()
            .all(|r| steps.iter().any(|s| s.id == r.parent))
    );
    assert_eq!(requests[0].attrs["gen_ai.request.model"], "scripted-model");
    assert_eq!(tool.parent, steps[0].id, "the call nests under its step");
}

#[test]
fn spans_are_flushed_after_sigterm_and_after_a_failed_run() {
    strata_testkit::require_external!("kill", "apt-get install procps");
    let p = Project::new();
    let receiver = Receiver::start();
    let server = ModelServer::start(vec![
        Turn::tool_call("c1", "glob", r#"{"pattern":"*"}"#),
        Turn::Hang,
    ]);
    let mut cmd = command(
        &p,
        &server,
        &["run", "--model", MODEL, "--format", "json", "list"],
    );
    exporting(&mut cmd, &receiver);
    let child = cmd.spawn().unwrap();
    let second = poll_within_blocking(LIMIT, || (server.requests().len() >= 2).then_some(()));
    assert!(second.is_some(), "the second model request never came");
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    finish(child).expect_code(143);
    assert_eq!(
        receiver.named("Tool.execute").len(),
        1,
        "{:#?}",
        receiver.spans()
    );
    assert_eq!(receiver.named("Session.turn").len(), 1);

    let failing = ModelServer::start(vec![Turn::Status(400, "no such model".into())]);
    let before = receiver.spans().len();
    let mut cmd = command(&p, &failing, &["run", "--model", MODEL, "hello"]);
    exporting(&mut cmd, &receiver);
    finish(cmd.spawn().unwrap()).expect_code(1);
    let after: Vec<_> = receiver.spans().split_off(before);
    assert!(
        after.iter().any(|s| s.name == "Model.request")
            && after.iter().any(|s| s.name == "Session.turn"),
        "{after:#?}"
    );
}

#[test]
fn strata_tool_exports_its_span_and_nothing_is_sent_when_export_is_off() {
    let p = Project::new();
    let receiver = Receiver::start();
    let server = ModelServer::start(vec![]);
    let mut cmd = command(&p, &server, &["tool", "glob", r#"{"pattern":"*"}"#]);
    exporting(&mut cmd, &receiver);
    finish(cmd.spawn().unwrap()).expect_code(0);
    let tools = receiver.named("Tool.execute");
    assert_eq!(tools.len(), 1, "{:#?}", receiver.spans());
    assert_eq!(tools[0].attrs["tool.name"], "glob");

    // The SDK's own switch turns export off even with an endpoint.
    let before = receiver.spans().len();
    let mut cmd = command(&p, &server, &["tool", "glob", r#"{"pattern":"*"}"#]);
    exporting(&mut cmd, &receiver);
    cmd.env("OTEL_SDK_DISABLED", "true");
    finish(cmd.spawn().unwrap()).expect_code(0);
    assert_eq!(receiver.spans().len(), before);
}

#[test]
fn logs_go_to_a_file_under_the_data_dir_filtered_by_rust_log_and_never_to_stdout() {
    let p = Project::new();
    let server = ModelServer::start(vec![
        Turn::text("One."),
        Turn::text("Two."),
        Turn::text("Three."),
    ]);
    let log = p.data.join("log").join("strata.log");

    // By default info lines go to the file only; stdout keeps its JSON lines.
    let first = run(&p, &server, &["--format", "json", "hi"]);
    first.expect_code(0);
    json_lines(&first);
    assert!(!first.stderr.contains("run ended"), "{first:#?}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("run ended"), "{text}");
    assert!(
        !text.contains('\u{1b}'),
        "no colour codes in the file: {text}"
    );

    // RUST_LOG replaces the filter: `warn` drops the info line from the file, and a
    // per-crate directive brings it to stderr.
    let mut cmd = command(
        &p,
        &server,
        &["run", "--model", MODEL, "--format", "json", "again"],
    );
    cmd.env("RUST_LOG", "warn,strata_agent=info");
    let second = finish(cmd.spawn().unwrap());
    second.expect_code(0);
    json_lines(&second);
    assert!(second.stderr.contains("run ended"), "{second:#?}");

    let ended = || {
        std::fs::read_to_string(&log)
            .unwrap()
            .matches("run ended")
            .count()
    };
    let before = ended();
    let mut cmd = command(&p, &server, &["run", "--model", MODEL, "third"]);
    cmd.env("RUST_LOG", "warn");
    finish(cmd.spawn().unwrap()).expect_code(0);
    assert_eq!(
        ended(),
        before,
        "RUST_LOG=warn keeps info lines out of the file"
    );
}
