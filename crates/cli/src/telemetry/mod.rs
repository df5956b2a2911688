//! The process's logs and traces: one tracing subscriber with three outputs, each with its own
//! filter.
//! - stderr: warnings by default;
//! - the log file under the data directory ([`logfile`]), info by default, rotated; never
//!   stdout, which belongs to the command's output;
//! - OTLP export of the spans ([`otlp`]), only when the standard variables ask for it.
//!
//! `STRATA_LOG` (or else `RUST_LOG`) replaces both log filters with `EnvFilter` directives,
//! e.g. `RUST_LOG=strata_agent=debug,warn`.

mod logfile;
mod otlp;

use std::path::Path;

use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::filter::{EnvFilter, LevelFilter};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{Layer, fmt};

/// Stderr's filter without `STRATA_LOG`/`RUST_LOG`. rmcp warns about replies it cannot send
/// while a server shuts down: noise.
const STDERR_DEFAULT: &str = "warn,rmcp=error";
/// The log file's filter without `STRATA_LOG`/`RUST_LOG`.
const FILE_DEFAULT: &str = "info,rmcp=warn";

/// What must be flushed before the process exits.
#[derive(Debug)]
pub(crate) struct Telemetry {
    provider: Option<SdkTracerProvider>,
}

impl Telemetry {
    /// Flushes the spans still buffered. Call it outside the runtime's threads while the
    /// runtime still runs.
    pub(crate) fn shutdown(self) {
        if let Some(p) = self.provider {
            otlp::shutdown(p);
        }
    }
}

/// The user's directives (`STRATA_LOG`, else `RUST_LOG`), when set and valid.
fn user_directives() -> Option<String> {
    ["STRATA_LOG", "RUST_LOG"]
        .into_iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()))
}

fn filter(user: Option<&str>, default: &str) -> EnvFilter {
    user.and_then(|d| EnvFilter::try_new(d).ok())
        .unwrap_or_else(|| EnvFilter::new(default))
}

/// Installs the subscriber. Must run inside the Tokio runtime (the OTLP batcher lives on it).
pub(crate) fn init(data_dir: &Path) -> Telemetry {
    let user = user_directives();
    let mut notes = Vec::new();
    if let Some(d) = &user
        && let Err(e) = EnvFilter::try_new(d)
    {
        notes.push(format!(
            "the log filter `{d}` is invalid ({e}); using the defaults"
        ));
    }
    let stderr = fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(filter(user.as_deref(), STDERR_DEFAULT));
    let dir = data_dir.join("log");
    let file = match logfile::RotatingFile::open(&dir, logfile::MAX_BYTES, logfile::KEEP) {
        Ok(f) => Some(
            fmt::layer()
                .with_ansi(false)
                .with_writer(f)
                .with_filter(filter(user.as_deref(), FILE_DEFAULT)),
        ),
        Err(e) => {
            notes.push(format!(
                "could not open the log file in {}: {e}",
                dir.display()
            ));
            None
        }
    };
    let provider = otlp::start();
    // Spans go out at info and above whatever the log filters say.
    let export = provider.as_ref().map(|p| {
        tracing_opentelemetry::layer()
            .with_tracer(otlp::tracer(p))
            .with_filter(LevelFilter::INFO)
    });
    tracing_subscriber::registry()
        .with(stderr)
        .with(file)
        .with(export)
        .init();
    for note in notes {
        tracing::warn!("{note}");
    }
    Telemetry { provider }
}
