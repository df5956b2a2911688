//! The `Tool.execute` span reaches OpenTelemetry with its attributes (spec §0.1), through
//! `tracing-opentelemetry` into the SDK's in-memory exporter.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use serde_json::json;
use strata_testkit::TestInstance;
use tracing_subscriber::layer::SubscriberExt;

fn attribute(span: &opentelemetry_sdk::trace::SpanData, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.to_string())
}

#[tokio::test]
async fn tool_execute_is_exported_with_its_attributes() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("strata-test"));
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));

    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .run(|t| async move {
            let with_call = t.cx().message("msg_1").call("call_7").build();
            t.call_with("read", json!({"filePath": "a.txt"}), with_call)
                .await
                .unwrap();
            let without_call = t.cx().message("msg_2").call("").build();
            t.call_with("glob", json!({"pattern": "*.txt"}), without_call)
                .await
                .unwrap();
        })
        .await;

    let _ = provider.force_flush();
    let spans = exporter.get_finished_spans().unwrap();
    let tool_spans: Vec<_> = spans.iter().filter(|s| s.name == "Tool.execute").collect();
    assert_eq!(
        tool_spans.len(),
        2,
        "{:?}",
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    let read = tool_spans
        .iter()
        .find(|s| attribute(s, "tool.name").as_deref() == Some("read"))
        .expect("a read span");
    assert_eq!(attribute(read, "session.id").as_deref(), Some("ses_test"));
    assert_eq!(attribute(read, "message.id").as_deref(), Some("msg_1"));
    assert_eq!(attribute(read, "tool.call_id").as_deref(), Some("call_7"));
    let glob = tool_spans
        .iter()
        .find(|s| attribute(s, "tool.name").as_deref() == Some("glob"))
        .expect("a glob span");
    assert_eq!(
        attribute(glob, "tool.call_id"),
        None,
        "no call id, no attribute"
    );
}
