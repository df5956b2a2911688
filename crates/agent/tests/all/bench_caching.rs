//! What prompt caching saves: the same 30-step session (each step reads a file, then a final
//! answer) against the scripted server's simulated Anthropic cache, once with caching on and
//! once with `options.cache: false`, priced from the stored step costs at claude-sonnet-4's
//! list prices. A count, not a timing, so it is deterministic and runs with the other tests;
//! `bench/caching.sh` runs it and prints the figures (`--nocapture`).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use strata_agent::provider::Anthropic;
use strata_agent::session::totals::{Totals, totals};
use strata_agent::session::{Model, RunOutcome, Runner, SessionTarget, open_session};
use strata_testkit::TestInstance;
use strata_testkit::model_server::{CacheRules, ModelServer, Turn};
use tokio_util::sync::CancellationToken;

use crate::loop_support::{options, services, store};

/// The model priced: its catalogue entry has the list prices below.
const MODEL: &str = "anthropic/claude-sonnet-4";
const STEPS: usize = 30;
/// Dollars per million tokens: input, output, cache read, cache write.
const PRICES: [f64; 4] = [3.0, 15.0, 0.30, 3.75];
/// A whole session may take this long on a busy machine.
const LIMIT: Duration = Duration::from_secs(180);

/// A file of about 1.5 KB, different for each step.
fn file(i: usize) -> String {
    (0..30)
        .map(|line| format!("step {i} line {line}: the quick brown fox jumps over the lazy dog\n"))
        .collect()
}

/// Runs the session with the given config against a fresh cache; its totals.
async fn session(config: Value) -> Totals {
    let mut builder = TestInstance::builder().config(config);
    for i in 0..STEPS {
        builder = builder.file(format!("f{i}.txt"), file(i));
    }
    let out = Arc::new(Mutex::new(None));
    let sink = out.clone();
    builder
        .run(|t| async move {
            let mut script: Vec<Turn> = (0..STEPS)
                .map(|i| {
                    Turn::tool_call(
                        &format!("c{i}"),
                        "read",
                        &format!(r#"{{"filePath":"f{i}.txt"}}"#),
                    )
                })
                .collect();
            script.push(Turn::text("All thirty files are read."));
            let server = ModelServer::start(script);
            server.simulate_cache(CacheRules::default());
            let provider = Anthropic::new(server.anthropic_url(), Some("test-key".into())).unwrap();
            let model = Model {
                id: MODEL.into(),
                api_model: "claude-sonnet-4".into(),
                provider: Arc::new(provider),
            };
            let runner = Runner::new(services(&t), model, options());
            let store = store(&t);
            let session = open_session(&store, t.dir(), &SessionTarget::New).unwrap();
            let message = "Read f0.txt to f29.txt one at a time.";
            let report = strata_testkit::await_with_timeout(
                "the 30-step session",
                LIMIT,
                runner.run(&session.id, message, CancellationToken::new(), None),
            )
            .await
            .unwrap();
            assert_eq!(report.outcome, RunOutcome::Completed);
            assert_eq!(
                server.cache_usage().len(),
                STEPS + 1,
                "every request was accounted"
            );
            *sink.lock().unwrap() = Some(totals(&store.messages(&session.id).unwrap()));
        })
        .await;
    let totals = out.lock().unwrap().take();
    totals.expect("the session ran")
}

/// The cost of `t`'s tokens at the list prices, to check the stored costs against.
fn priced(t: &Totals) -> f64 {
    let k = &t.tokens;
    let [input, output, read, write] = PRICES;
    (k.input as f64 * input
        + (k.output + k.reasoning) as f64 * output
        + k.cache.read as f64 * read
        + k.cache.write as f64 * write)
        / 1e6
}

/// The share of all input tokens that was read from the cache.
fn read_share(t: &Totals) -> f64 {
    let k = &t.tokens;
    k.cache.read as f64 / (k.input + k.cache.read + k.cache.write) as f64
}

#[tokio::test]
async fn caching_makes_a_thirty_step_session_at_least_four_times_cheaper() {
    let on = session(json!({})).await;
    let off = session(json!({"provider": {"anthropic": {"options": {"cache": false}}}})).await;
    for (name, t) in [("on", &on), ("off", &off)] {
        assert_eq!(t.steps, STEPS + 1, "{name}: one message per step");
        assert!(
            (t.cost - priced(t)).abs() < 1e-9,
            "{name}: stored ${} vs priced ${}",
            t.cost,
            priced(t)
        );
    }
    assert_eq!(off.tokens.cache.read + off.tokens.cache.write, 0);
    eprintln!(
        "caching on:  ${:.4} for {STEPS} steps + answer, {:.1}% of input read from cache ({})",
        on.cost,
        100.0 * read_share(&on),
        on.line()
    );
    eprintln!(
        "caching off: ${:.4}, {:.1}% of input read from cache ({})",
        off.cost,
        100.0 * read_share(&off),
        off.line()
    );
    eprintln!("caching on is {:.2}x cheaper", off.cost / on.cost);
    assert!(
        on.cost * 4.0 <= off.cost,
        "caching on: ${}, off: ${}",
        on.cost,
        off.cost
    );
}
