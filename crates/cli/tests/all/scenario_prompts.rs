//! The prompts the sandbox saves, measured on the scripted-model scenarios of `tests/scenarios/`
//! that call `bash`: each is served by `strata serve` under a `"bash": "ask"` rule, with the
//! sandbox on and with it off, every permission ask is answered "once" over HTTP and counted.
//! The two totals are printed (the figure in `bench/README.md`); with the sandbox enforced
//! there must be fewer.

use serde_json::json;
use strata_testkit::model_server::ModelServer;

use crate::e2e_serve_support::{idle, is, serve_with};
use crate::scenarios::{Scenario, project, scenarios};

/// The permission asks while `s` runs to the end, with `env` set for the server.
async fn asks(s: &Scenario, env: &[(&str, &str)]) -> usize {
    let p = project(s);
    p.file("strata.json", r#"{"permission": {"bash": "ask"}}"#);
    let model = ModelServer::start(s.turns.clone());
    let served = serve_with(crate::common::strata_bin(), &p, &model, env);
    let (_, mut events) = served.prompted(&s.prompt).await;
    let mut count = 0;
    loop {
        let seen = events.until(|i| is(i, "permission.asked") || idle(i)).await;
        let (_, last) = seen
            .last()
            .unwrap_or_else(|| panic!("{}: the event stream ended before idle", s.name));
        if idle(last) {
            break;
        }
        count += 1;
        let id = last["properties"]["id"].as_str().unwrap().to_string();
        let (status, body) = served
            .post(&format!("/permission/{id}/reply"), json!({"reply": "once"}))
            .await;
        assert_eq!(status, 200, "{}: {body}", s.name);
    }
    count
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sandbox_asks_less_over_the_bash_scenarios() {
    let with_bash: Vec<Scenario> = scenarios()
        .into_iter()
        .filter(|s| s.tools.iter().any(|t| t == "bash"))
        .collect();
    assert!(!with_bash.is_empty(), "some scenario calls bash");
    let enforced = crate::common::Project::new()
        .strata(&["debug", "sandbox", "--format", "json"])
        .json()["mode"]
        != "off";
    let (mut on, mut off, mut calls) = (0, 0, 0);
    for s in &with_bash {
        let (a, b) = (
            asks(s, &[]).await,
            asks(s, &[("STRATA_SANDBOX", "off")]).await,
        );
        let n = s.tools.iter().filter(|t| *t == "bash").count();
        println!(
            "{}: {n} bash calls, asks with the sandbox on {a}, off {b}",
            s.name
        );
        calls += n;
        (on, off) = (on + a, off + b);
    }
    println!(
        "prompts over {} scenarios ({calls} bash calls): sandbox on {on}, off {off}",
        with_bash.len()
    );
    assert_eq!(off, calls, "off, every bash call asks");
    if enforced {
        assert!(on < off, "on {on}, off {off}");
    } else {
        println!("the sandbox is not enforced here, so both counts are the same");
        assert_eq!(on, off);
    }
}
