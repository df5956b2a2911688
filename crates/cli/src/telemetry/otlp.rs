//! OTLP/HTTP (protobuf) export of the tracing spans, through the OpenTelemetry SDK's exporter.
//!
//! On only when `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set
//! (and `OTEL_SDK_DISABLED` is not `true`); the exporter reads those, the headers and the
//! timeout itself, and the resource takes `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`
//! (service name `strata` unless they name one). Spans are batched on the async runtime and
//! flushed by [`shutdown`].

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, SpanExporter, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::trace::span_processor_with_async_runtime::BatchSpanProcessor;

/// The environment, read through a closure so the choice is testable without touching it.
pub(crate) fn wanted(env: impl Fn(&str) -> Option<String>) -> bool {
    let set = |k: &str| env(k).is_some_and(|v| !v.trim().is_empty());
    let disabled = env("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    !disabled && (set("OTEL_EXPORTER_OTLP_ENDPOINT") || set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
}

/// Whether the resource settings already name the service.
fn names_service(env: impl Fn(&str) -> Option<String>) -> bool {
    env("OTEL_SERVICE_NAME").is_some_and(|v| !v.trim().is_empty())
        || env("OTEL_RESOURCE_ATTRIBUTES").is_some_and(|attrs| {
            attrs
                .split(',')
                .any(|kv| kv.split('=').next().map(str::trim) == Some("service.name"))
        })
}

/// Builds the tracer provider; must run inside the Tokio runtime that will carry the exports.
/// A configuration the exporter refuses is reported on stderr, and nothing is exported.
pub(crate) fn start() -> Option<SdkTracerProvider> {
    let env = |k: &str| std::env::var(k).ok();
    if !wanted(env) {
        return None;
    }
    let protocol =
        env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL").or_else(|| env("OTEL_EXPORTER_OTLP_PROTOCOL"));
    if let Some(p) = protocol.filter(|p| p.trim() != "http/protobuf") {
        eprintln!(
            "strata: OTEL_EXPORTER_OTLP_PROTOCOL={p} is not supported; spans are sent as http/protobuf"
        );
    }
    let exporter = match SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .build()
    {
        Ok(e) => e,
        Err(e) => {
            eprintln!(
                "strata: spans will not be exported: {e}; check OTEL_EXPORTER_OTLP_ENDPOINT and the other OTEL_EXPORTER_OTLP_* variables"
            );
            return None;
        }
    };
    let mut resource = Resource::builder();
    if !names_service(env) {
        resource = resource.with_service_name("strata");
    }
    let processor =
        BatchSpanProcessor::builder(exporter, opentelemetry_sdk::runtime::Tokio).build();
    Some(
        SdkTracerProvider::builder()
            .with_span_processor(processor)
            .with_resource(resource.build())
            .build(),
    )
}

/// A tracer of `provider` for the tracing layer.
pub(crate) fn tracer(provider: &SdkTracerProvider) -> opentelemetry_sdk::trace::Tracer {
    provider.tracer("strata")
}

/// Sends every span still buffered, then stops the exporter. Call it outside the runtime's
/// threads while the runtime still runs (the export runs on it).
pub(crate) fn shutdown(provider: SdkTracerProvider) {
    if let Err(e) = provider.shutdown() {
        eprintln!("strata: could not send the last spans to the OTLP endpoint: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn export_is_on_only_with_an_endpoint_and_not_disabled() {
        assert!(!wanted(env(&[])));
        assert!(!wanted(env(&[("OTEL_SERVICE_NAME", "x")])));
        assert!(!wanted(env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", " ")])));
        assert!(wanted(env(&[(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "http://127.0.0.1:4318"
        )])));
        assert!(wanted(env(&[(
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "http://h/v1/traces"
        )])));
        assert!(!wanted(env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
            ("OTEL_SDK_DISABLED", "true"),
        ])));
    }

    #[test]
    fn the_service_is_named_strata_unless_the_environment_names_it() {
        assert!(!names_service(env(&[])));
        assert!(names_service(env(&[("OTEL_SERVICE_NAME", "mine")])));
        assert!(names_service(env(&[(
            "OTEL_RESOURCE_ATTRIBUTES",
            "a=b, service.name=x"
        )])));
        assert!(!names_service(env(&[(
            "OTEL_RESOURCE_ATTRIBUTES",
            "service.namespace=x"
        )])));
    }
}
