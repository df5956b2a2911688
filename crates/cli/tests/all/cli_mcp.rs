//! Strata as an MCP client from the command line: `strata mcp list`, a malformed `mcp` config,
//! and the reference `server-everything` (npm) through `strata tools` and `strata tool`.

use crate::common::Project;

#[test]
fn mcp_list_reports_each_server_with_its_status() {
    let p = Project::new();
    p.file(
        "strata.json",
        r#"{"mcp": {
            "missing": {"type": "local", "command": ["strata-no-such-mcp-server"]},
            "off": {"type": "local", "command": ["strata-no-such-mcp-server"], "enabled": false}
        }}"#,
    );
    let run = p.strata(&["mcp", "list"]);
    run.expect_code(0);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[0].starts_with("missing")
            && lines[0].contains("failed: could not start `strata-no-such-mcp-server`"),
        "{lines:?}"
    );
    assert!(
        lines[1].starts_with("off") && lines[1].contains("disabled"),
        "{lines:?}"
    );
    let json = p.strata(&["mcp", "list", "--format", "json"]).json();
    assert_eq!(json["servers"][0]["status"], "failed");
    assert_eq!(json["servers"][1]["tools"], 0);
    // The other commands go on without the broken server.
    p.strata(&["tools"]).expect_code(0);
}

#[test]
fn a_malformed_mcp_config_stops_every_command_naming_the_key() {
    let p = Project::new();
    p.file(
        "strata.json",
        r#"{"mcp": {"x": {"type": "sse", "url": "http://127.0.0.1:9"}}}"#,
    );
    for args in [&["mcp", "list"][..], &["tools"][..]] {
        let run = p.strata(args);
        run.expect_code(1);
        assert!(run.stderr.contains("`mcp.x.type`"), "{}", run.stderr);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
    }
}

#[test]
fn server_everything_tools_are_listed_and_called() {
    strata_testkit::require_external!(
        "mcp-server-everything",
        "npm install -g @modelcontextprotocol/server-everything"
    );
    let p = Project::new();
    p.file(
        "strata.json",
        r#"{"mcp": {"everything": {"type": "local", "command": ["mcp-server-everything"]}}}"#,
    );
    let dir = p.dir_str();
    let tools = p.strata(&["tools", "--dir", &dir]);
    tools.expect_code(0);
    assert!(
        tools
            .stdout
            .lines()
            .any(|l| l.starts_with("everything_echo ")),
        "{}",
        tools.stdout
    );
    let echo = p.strata(&[
        "tool",
        "everything_echo",
        r#"{"message":"hi"}"#,
        "--dir",
        &dir,
    ]);
    echo.expect_code(0);
    assert!(echo.stdout.contains("hi"), "{}", echo.stdout);
}

/// `strata run --command server:prompt args…`: the words fill the prompt's arguments (in order
/// or as `name=value`), the scripted model receives the rendered prompt, and a missing
/// required argument is a usage error naming it before any model is asked.
#[test]
fn run_command_runs_an_mcp_prompt_with_its_arguments() {
    use crate::e2e_run_support::run;
    use strata_testkit::model_server::{ModelServer, Turn};
    strata_testkit::require_external!(
        "mcp-server-everything",
        "npm install -g @modelcontextprotocol/server-everything"
    );
    let p = Project::new();
    p.file(
        "strata.json",
        r#"{"mcp": {"everything": {"type": "local", "command": ["mcp-server-everything"]}}}"#,
    );
    let server = ModelServer::start(vec![Turn::text("Sunny.")]);
    let missing = run(
        &p,
        &server,
        &["--command", "everything:args-prompt", "state=TX"],
    );
    missing.expect_code(2);
    assert!(
        missing
            .stderr
            .contains("`everything:args-prompt` needs the argument `city`"),
        "{}",
        missing.stderr
    );
    let unknown = run(&p, &server, &["--command", "everything:nope"]);
    unknown.expect_code(2);
    assert!(
        unknown.stderr.contains("everything:args-prompt"),
        "the known prompts are listed: {}",
        unknown.stderr
    );
    assert!(server.requests().is_empty(), "no model was asked");

    let ok = run(
        &p,
        &server,
        &[
            "--command",
            "everything:args-prompt",
            "New York",
            "state=NY",
        ],
    );
    ok.expect_code(0);
    assert_eq!(ok.stdout, "Sunny.\n", "{ok:#?}");
    let requests = server.requests();
    assert_eq!(
        requests[0]["messages"][1]["content"],
        "What's weather in New York, NY?"
    );
}
