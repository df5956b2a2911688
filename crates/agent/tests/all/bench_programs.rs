//! The tool-program figure (spec §17): one scripted task that needs six reads and two greps,
//! done as eight separate calls (one step each) and as one `execute` program, against the
//! scripted model server. It counts the requests and the bytes sent to the model (tokens
//! estimated at four bytes each, as compaction does) and times each session. The counts are
//! checked; the times are only printed (`bench/programs.sh` runs this with `--nocapture`).

use std::time::Instant;

use serde_json::json;
use strata_agent::session::RunOutcome;
use strata_testkit::TestInstance;
use strata_testkit::model_server::{ModelServer, Turn};

use crate::loop_support::{MODEL, options, run, runner};

const FILES: usize = 6;

fn file(i: usize) -> String {
    (0..40)
        .map(|l| format!("module {i} line {l}: fn handler_{l}() {{ todo!(\"step {l}\") }}\n"))
        .collect()
}

fn reads() -> Vec<String> {
    (0..FILES)
        .map(|i| json!({"filePath": format!("src/m{i}.rs")}).to_string())
        .collect()
}

const GREPS: [&str; 2] = [r#"{"pattern":"handler_7\\("}"#, r#"{"pattern":"step 3\""}"#];

/// `(requests, bytes sent, wall time in ms)` of one session.
async fn session(as_program: bool) -> (usize, usize, u128) {
    let mut builder = TestInstance::builder().config(json!({"tool_surface": {"execute": true}}));
    for i in 0..FILES {
        builder = builder.file(format!("src/m{i}.rs"), file(i));
    }
    let out = std::sync::Arc::new(std::sync::Mutex::new(None));
    let sink = out.clone();
    builder
        .run(|t| async move {
            let mut script: Vec<Turn> = Vec::new();
            if as_program {
                let code = "const out = [];\n\
                    for (let i = 0; i < 6; i++) out.push(tools.read({filePath: `src/m${i}.rs`}).split('\\n')[1]);\n\
                    out.push(tools.grep({pattern: 'handler_7\\\\('}));\n\
                    out.push(tools.grep({pattern: 'step 3\"'}));\n\
                    return out.join('\\n');";
                let args = json!({"code": code}).to_string();
                script.push(Turn::tool_call("p1", "execute", &args));
            } else {
                for (i, args) in reads().iter().enumerate() {
                    script.push(Turn::tool_call(&format!("r{i}"), "read", args));
                }
                for (i, args) in GREPS.iter().enumerate() {
                    script.push(Turn::tool_call(&format!("g{i}"), "grep", args));
                }
            }
            script.push(Turn::text("Every handler is a stub."));
            let server = ModelServer::start(script);
            let runner = runner(&t, &server, MODEL, options());
            let start = Instant::now();
            let ran = run(&t, &runner, "Read the six modules and find the stubs.").await;
            let ms = start.elapsed().as_millis();
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let bodies = server.requests();
            let bytes: usize = bodies.iter().map(|b| b.to_string().len()).sum();
            let last = bodies.last().unwrap().to_string();
            assert!(last.contains("handler_7"), "the greps' findings reached the model");
            *sink.lock().unwrap() = Some((bodies.len(), bytes, ms));
        })
        .await;
    let figures = out.lock().unwrap().take();
    figures.expect("the session ran")
}

#[tokio::test]
async fn figure_six_reads_and_two_greps_as_calls_and_as_one_program() {
    let (calls_requests, calls_bytes, calls_ms) = session(false).await;
    let (prog_requests, prog_bytes, prog_ms) = session(true).await;
    for (label, requests, bytes, ms) in [
        ("separate calls", calls_requests, calls_bytes, calls_ms),
        ("one program", prog_requests, prog_bytes, prog_ms),
    ] {
        println!(
            "programs {label}: {requests} requests, {bytes} bytes sent (~{} tokens), {ms} ms",
            bytes.div_ceil(4)
        );
    }
    assert_eq!(
        calls_requests, 9,
        "eight steps with a call, then the answer"
    );
    assert_eq!(
        prog_requests, 2,
        "one step with the program, then the answer"
    );
    assert!(prog_bytes < calls_bytes, "{prog_bytes} < {calls_bytes}");
}
