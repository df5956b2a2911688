//! The `Tool.execute` span the wrapper opens around every call, with `tool.name`, `session.id`,
//! `message.id`, and `tool.call_id` only when the call has one (spec §0.1 wrapper).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::json;
use strata_testkit::TestInstance;
use tracing::Subscriber;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// One span as the recorder saw it.
#[derive(Debug, Clone, Default)]
struct SeenSpan {
    name: String,
    fields: BTreeMap<String, String>,
}

#[derive(Clone, Default)]
struct Recorder {
    spans: Arc<Mutex<Vec<(Id, SeenSpan)>>>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Recorder {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _cx: Context<'_, S>) {
        let mut seen = SeenSpan {
            name: attrs.metadata().name().to_string(),
            ..SeenSpan::default()
        };
        attrs.record(&mut Fields(&mut seen.fields));
        self.spans.lock().unwrap().push((id.clone(), seen));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _cx: Context<'_, S>) {
        let mut spans = self.spans.lock().unwrap();
        // Span ids are reused once a span closes: the latest one with this id is meant.
        if let Some((_, seen)) = spans.iter_mut().rev().find(|(i, _)| i == id) {
            values.record(&mut Fields(&mut seen.fields));
        }
    }
}

impl Recorder {
    fn tool_spans(&self) -> Vec<SeenSpan> {
        self.spans
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, s)| s.name == "Tool.execute")
            .map(|(_, s)| s.clone())
            .collect()
    }
}

fn fields(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[tokio::test]
async fn every_call_gets_a_tool_execute_span_with_its_ids() {
    let recorder = Recorder::default();
    let subscriber = tracing_subscriber::registry().with(recorder.clone());
    let _guard = tracing::subscriber::set_default(subscriber);
    TestInstance::builder()
        .file("a.txt", "x\n")
        .run(|t| {
            let recorder = recorder.clone();
            async move {
                // With a call id.
                t.call_with(
                    "read",
                    json!({"filePath": "a.txt"}),
                    t.cx().message("msg_1").call("call_1").build(),
                )
                .await
                .unwrap();
                // Without one: the attribute is left out, not set to "".
                t.call_with(
                    "glob",
                    json!({"pattern": "*.txt"}),
                    t.cx().message("msg_2").call("").build(),
                )
                .await
                .unwrap();
                // Decoding failures are inside the span too (it is the outermost layer).
                t.call_with("grep", json!({}), t.cx().call("call_3").build())
                    .await
                    .unwrap_err();
                t.call_with(
                    "invalid",
                    json!({"tool": "x", "error": "y"}),
                    t.cx().call("call_4").build(),
                )
                .await
                .unwrap();

                let spans = recorder.tool_spans();
                assert_eq!(spans.len(), 4, "{spans:#?}");
                assert_eq!(
                    spans[0].fields,
                    fields(&[
                        ("tool.name", "read"),
                        ("session.id", "ses_test"),
                        ("message.id", "msg_1"),
                        ("tool.call_id", "call_1"),
                    ])
                );
                assert_eq!(
                    spans[1].fields,
                    fields(&[
                        ("tool.name", "glob"),
                        ("session.id", "ses_test"),
                        ("message.id", "msg_2"),
                    ]),
                    "no tool.call_id for an empty call id"
                );
                assert_eq!(spans[2].fields["tool.name"], "grep");
                assert_eq!(spans[2].fields["tool.call_id"], "call_3");
                assert_eq!(spans[3].fields["tool.name"], "invalid");
            }
        })
        .await;
}
