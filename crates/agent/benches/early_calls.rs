//! The measurement behind `bench/streaming.sh` (`cargo bench -p strata-agent --bench
//! early_calls`; a measurement, so not part of `cargo test`): what starting calls while the
//! response still streams saves.

// A measurement harness: a failed step ends it with a panic, as in a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The loop tests' helpers: a runner on a test instance against the scripted model.
#[path = "../tests/all/loop_support.rs"]
mod loop_support;

use loop_support::*;
use strata_agent::session::RunOutcome;
use strata_testkit::TestInstance;
use strata_testkit::model_server::{ModelServer, Pause, Turn, call};

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime for the bench");
    runtime.block_on(bench_early_calls());
}

/// The saving measured by `bench/streaming.sh`: one step of three
/// calls with `BENCH_GAP_MS` (default 200) between them in the stream, then a final answer,
/// run with calls held until the response ends and with calls started early. Scenarios:
/// three `read`s (fast calls), three `webfetch`es of a loopback page answering after 300 ms,
/// and a 500 ms `webfetch`, a `read` and a `bash` (not concurrency-safe, so it runs alone
/// after the others). Prints the median wall time of the run of each.
async fn bench_early_calls() {
    use std::time::Duration;
    let env_ms = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let gap = Duration::from_millis(env_ms("BENCH_GAP_MS", 200));
    let runs = env_ms("BENCH_RUNS", 5) as usize;
    // `/page?ms=N` answers after N ms.
    let app = axum::Router::new().route(
        "/page",
        axum::routing::get(
            |q: axum::extract::Query<std::collections::HashMap<String, String>>| async move {
                let ms = q.get("ms").and_then(|v| v.parse().ok()).unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                "a slow page"
            },
        ),
    );
    let web = strata_testkit::FixtureServer::start(app).await.unwrap();
    let fetch = |id: &str, ms: u64| {
        let args = serde_json::json!({"url": web.url(&format!("/page?ms={ms}&id={id}")), "format": "text"});
        call(id, "webfetch", &args.to_string())
    };
    let read = |id: &str, f: &str| call(id, "read", &format!(r#"{{"filePath":"{f}"}}"#));
    let scenarios = [
        (
            "3 x read",
            vec![
                read("r0", "a.txt"),
                read("r1", "b.txt"),
                read("r2", "c.txt"),
            ],
        ),
        (
            "3 x webfetch (300 ms each)",
            vec![fetch("w0", 300), fetch("w1", 300), fetch("w2", 300)],
        ),
        (
            "webfetch (500 ms), read, bash",
            vec![
                fetch("w0", 500),
                read("r1", "a.txt"),
                call(
                    "b2",
                    "bash",
                    r#"{"command":"echo hi","description":"Say hi"}"#,
                ),
            ],
        ),
    ];
    for (label, calls) in scenarios {
        for early in [false, true] {
            let mut times = Vec::new();
            for _ in 0..runs {
                times.push(timed_run(&calls, gap, early).await);
            }
            times.sort();
            let mode = if early {
                "started early"
            } else {
                "after the stream"
            };
            println!(
                "bench: {label}, {} ms between calls, calls {mode}: median {} ms over {runs} runs (min {} ms, max {} ms)",
                gap.as_millis(),
                times[times.len() / 2].as_millis(),
                times[0].as_millis(),
                times[times.len() - 1].as_millis(),
            );
        }
    }
}

/// One run of a step with `calls` paced `gap` apart, calls started early or not: its wall time.
async fn timed_run(
    calls: &[strata_testkit::model_server::ScriptedCall],
    gap: std::time::Duration,
    early: bool,
) -> std::time::Duration {
    use std::time::Instant;
    let t = TestInstance::builder()
        .file("a.txt", "alpha\n")
        .file("b.txt", "beta\n")
        .file("c.txt", "gamma\n")
        .config(serde_json::json!({"permission": {"webfetch": "allow", "bash": "allow"}}))
        .build()
        .await;
    let server = ModelServer::start(vec![
        Turn::Paced {
            calls: calls.to_vec(),
            pause: Pause::For(gap),
        },
        Turn::text("done"),
    ]);
    let opts = strata_agent::session::RunOptions {
        early_calls: early,
        ..options()
    };
    let runner = runner(&t, &server, MODEL, opts);
    let start = Instant::now();
    let ran = run(&t, &runner, "go").await;
    let elapsed = start.elapsed();
    assert_eq!(ran.report.outcome, RunOutcome::Completed);
    for p in tool_parts(&store(&t), &ran.session_id) {
        assert_eq!(p["state"]["status"], "completed", "{p}");
    }
    t.dispose().await;
    elapsed
}
