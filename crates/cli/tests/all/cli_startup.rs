//! What short commands load at start-up: the packed model catalogue is inflated one provider
//! at a time, and only by commands that resolve a model.

use crate::common::Project;
use crate::e2e_run_support::{command, finish};
use strata_testkit::model_server::{ModelServer, Turn};

/// The debug line the agent logs when it inflates one provider of the catalogue.
const INFLATING: &str = "inflating the catalogue's provider";

fn inflated(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains(INFLATING)).collect()
}

#[test]
fn version_and_tools_never_inflate_the_catalogue_and_a_run_inflates_its_provider_only() {
    let p = Project::new();
    let server = ModelServer::start(vec![Turn::text("Done.")]);
    let log = [("STRATA_LOG", "strata_agent::catalogue=debug")];
    for args in [
        &["--version"][..],
        &["tools", "--model", "openai/gpt-5"],
        &["tools", "--model", "anthropic/claude-sonnet-4-20250514"],
        &["debug", "graph"],
    ] {
        let run = p.strata_env(args, &log);
        run.expect_code(0);
        assert_eq!(inflated(&run.stderr), Vec::<&str>::new(), "{args:?}");
    }
    // A model the catalogue knows: an unknown one is searched for under every provider.
    let mut cmd = command(&p, &server, &["run", "--model", "openai/gpt-5", "hi"]);
    cmd.envs(log);
    let run = finish(cmd.spawn().expect("start strata run"));
    run.expect_code(0);
    let lines = inflated(&run.stderr);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("provider=\"openai\""), "{lines:?}");
}
