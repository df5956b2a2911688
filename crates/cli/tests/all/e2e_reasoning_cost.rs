//! `strata run --variant` with a reasoning stream and a priced model from the config: the
//! `reasoning` line of `--format json`, the cost on `step_finish`, and the tokens and cost
//! that `strata session show` prints.

use crate::common::Project;
use crate::e2e_run_support::*;
use strata_testkit::model_server::{ModelServer, Turn};

#[test]
fn reasoning_lines_priced_steps_and_session_totals() {
    let p = Project::new();
    p.file(
        "strata.json",
        r#"{"provider": {"openai": {"models": {"scripted-model": {
            "reasoning": true, "cost": {"input": 3, "output": 15}
        }}}}}"#,
    );
    let server = ModelServer::start(vec![Turn::reasoning(
        "Thinking it over.",
        None,
        Turn::text("Done."),
    )]);
    let out = run(
        &p,
        &server,
        &["--format", "json", "--variant", "high", "hi"],
    );
    out.expect_code(0);
    let events = json_lines(&out);
    assert_eq!(
        types(&events),
        ["step_start", "reasoning", "text", "step_finish"],
        "{out:#?}"
    );
    assert_eq!(events[1]["part"]["type"], "reasoning");
    assert_eq!(events[1]["part"]["text"], "Thinking it over.");
    // 21 input tokens at $3 and 7 output tokens at $15 per million.
    let cost = events[3]["part"]["cost"].as_f64().unwrap();
    assert!((cost - 0.000168).abs() < 1e-12, "{cost}");
    assert_eq!(server.requests()[0]["reasoning_effort"], "high");

    let session = events[0]["sessionID"].as_str().unwrap();
    let show = strata(&p, &server, &["session", "show", session]);
    show.expect_code(0);
    assert!(
        show.stdout
            .contains("Tokens: 21 in · 7 out · Cost: $0.0002"),
        "{show:#?}"
    );
    assert!(
        show.stdout.contains("(thinking) Thinking it over."),
        "{show:#?}"
    );
}

#[test]
fn an_unknown_variant_is_refused_before_anything_is_sent() {
    let p = Project::new();
    let server = ModelServer::start(vec![]);
    let out = run(&p, &server, &["--variant", "turbo", "hi"]);
    out.expect_code(1);
    assert!(
        out.stderr.contains("`--variant`") && out.stderr.contains("`turbo`"),
        "{out:#?}"
    );
    assert!(server.requests().is_empty());
}
