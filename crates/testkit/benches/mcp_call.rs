//! The mean latency of an MCP tool call through the whole tool wrapper (the testkit's MCP
//! fixture over stdio) against a built-in tool call (`read`), over 200 calls each:
//! `cargo bench -p strata-testkit --bench mcp_call`. A measurement, so not part of `cargo test`.

// A measurement harness: a failed step ends it with a panic, as in a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use strata_testkit::TestInstance;

const FIXTURE: &str = env!("CARGO_BIN_EXE_strata-mcp-fixture");
const CALLS: u32 = 200;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime for the bench");
    runtime.block_on(measure());
}

async fn measure() {
    let fixture = json!({"type": "local", "command": [FIXTURE], "timeout": 10_000});
    TestInstance::builder()
        .file("a.txt", "hello\n")
        .config(json!({"mcp": {"fix": fixture}}))
        .run(|t| async move {
            let time = |tool: &'static str, args: Value| {
                let t = &t;
                async move {
                    let start = std::time::Instant::now();
                    for _ in 0..CALLS {
                        t.call(tool, args.clone()).await.unwrap();
                    }
                    start.elapsed() / CALLS
                }
            };
            let read = time("read", json!({"filePath": t.path("a.txt")})).await;
            let echo = time("fix_echo", json!({"message": "x"})).await;
            println!("bench: mean per call over {CALLS}: read {read:?}, fix_echo (MCP over stdio) {echo:?}");
        })
        .await;
}
