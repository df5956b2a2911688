//! Strata as an MCP client, against real servers: the testkit's scripted server as a child
//! process (`strata-mcp-fixture`) and over streamable HTTP on 127.0.0.1, and the reference
//! `server-everything` from npm when it is installed.

use std::time::Duration;

use serde_json::{Value, json};
use strata_registry::mcp::{TRUSTED_READ_ONLY, UNTRUSTED};
use strata_registry::{SurfaceSpec, ToolRegistry};
use strata_services::config::Config;
use strata_services::mcp::{Mcp, ServerStatus};
use strata_testkit::{TestInstance, mcp_server, poll_with_timeout};
use strata_tools::ToolError;

const FIXTURE: &str = env!("CARGO_BIN_EXE_strata-mcp-fixture");
const LIMIT: Duration = Duration::from_secs(20);

fn local(args: &[&str]) -> Value {
    let mut command = vec![FIXTURE.to_string()];
    command.extend(args.iter().map(|a| a.to_string()));
    json!({"type": "local", "command": command, "timeout": 10_000})
}

fn status(t: &TestInstance, server: &str) -> ServerStatus {
    let all = t.get::<Mcp>().servers();
    all.into_iter()
        .find(|s| s.name == server)
        .unwrap_or_else(|| panic!("no server {server}"))
        .status
}

fn error_text(r: Result<strata_tools::ToolResult, ToolError>) -> String {
    match r {
        Err(ToolError::Model(m)) => m,
        other => panic!("expected a tool error, got {other:?}"),
    }
}

fn surface(t: &TestInstance) -> Vec<&'static str> {
    let spec = SurfaceSpec {
        model: "anthropic/claude-sonnet-4".into(),
        ruleset: t.ruleset(),
        ..SurfaceSpec::default()
    };
    let tools = t.get::<ToolRegistry>().surface(&spec);
    tools.iter().map(|x| x.id).collect()
}

#[tokio::test]
async fn a_local_servers_tools_are_listed_called_and_asked_for() {
    TestInstance::builder()
        .config(json!({
            "mcp": {"fix": local(&[])},
            "mcp_trust": ["fix"],
            "permission": {"fix_echo": "ask"},
        }))
        .run(|t| async move {
            let registry = t.get::<ToolRegistry>();
            let ids = registry.ids();
            for id in ["fix_echo", "fix_picture", "fix_fail", "fix_note"] {
                assert!(ids.contains(&id), "{id} missing from {ids:?}");
            }
            let echo = registry.get("fix_echo").unwrap();
            assert_eq!(echo.schema["properties"]["message"]["type"], "string");
            assert_eq!(echo.effects, UNTRUSTED);
            // Trusted server + readOnlyHint: read-only; the same server's other tools are not.
            assert_eq!(registry.get("fix_note").unwrap().effects, TRUSTED_READ_ONLY);

            let out = t.call("fix_echo", json!({"message": "hi"})).await.unwrap();
            assert_eq!(out.output, "Echo: hi");
            assert_eq!(t.asked_for("fix_echo").len(), 1, "asked under its own name");
            assert!(
                t.asked_for("fix_picture").is_empty(),
                "allowed by the default rules"
            );

            let pic = t.call("fix_picture", json!({})).await.unwrap();
            assert_eq!(pic.output, "a pixel");
            assert_eq!(pic.attachments.len(), 1);
            assert!(pic.attachments[0].url.starts_with("data:image/png;base64,"));

            let failed = error_text(t.call("fix_fail", json!({})).await);
            assert_eq!(failed, "the fixture failed on purpose");
            // Arguments that are not an object are refused by the wrapper, naming the tool.
            let bad = t.call("fix_echo", json!([1])).await.unwrap_err();
            assert!(bad.to_string().contains("`fix_echo`"), "{bad}");

            let servers = t.get::<Mcp>().servers();
            assert_eq!(servers[0].status, ServerStatus::Connected);
            assert_eq!(servers[0].tools, 7);
        })
        .await;
}

#[tokio::test]
async fn a_server_that_crashes_mid_call_fails_clearly_and_the_rest_goes_on() {
    let config = json!({"mcp": {"a": local(&[]), "b": local(&[])}});
    TestInstance::builder()
        .file("note.txt", "still here\n")
        .config(config)
        .run(|t| async move {
            let err = error_text(t.call("a_crash", json!({})).await);
            assert!(
                err.contains("MCP server `a` stopped while running `crash`"),
                "{err}"
            );
            assert!(matches!(status(&t, "a"), ServerStatus::Failed(_)));
            assert!(!t.get::<ToolRegistry>().ids().contains(&"a_echo"));
            // The other server and the built-in tools still work.
            let out = t.call("b_echo", json!({"message": "ok"})).await.unwrap();
            assert_eq!(out.output, "Echo: ok");
            let read = t
                .call("read", json!({"filePath": t.path("note.txt")}))
                .await;
            assert!(read.unwrap().output.contains("still here"));
        })
        .await;
}

#[tokio::test]
async fn a_call_that_never_answers_times_out_by_call_timeout() {
    let mut server = local(&[]);
    server["call_timeout"] = json!(300);
    TestInstance::builder()
        .config(json!({"mcp": {"fix": server}}))
        .run(|t| async move {
            let err = error_text(t.call("fix_hang", json!({})).await);
            assert!(err.contains("did not finish `hang` within 300 ms"), "{err}");
            // A timeout is the call's failure, not the server's.
            assert_eq!(status(&t, "fix"), ServerStatus::Connected);
        })
        .await;
}

#[tokio::test]
async fn tools_are_listed_again_on_list_changed() {
    TestInstance::builder()
        .config(json!({"mcp": {"fix": local(&[])}}))
        .run(|t| async move {
            assert!(!t.get::<ToolRegistry>().ids().contains(&"fix_extra"));
            t.call("fix_grow", json!({})).await.unwrap();
            poll_with_timeout("fix_extra after list_changed", LIMIT, || {
                let ids = t.get::<ToolRegistry>().ids();
                async move { ids.contains(&"fix_extra").then_some(()) }
            })
            .await;
            assert_eq!(
                t.call("fix_extra", json!({})).await.unwrap().output,
                "a note"
            );
        })
        .await;
}

#[tokio::test]
async fn a_denied_server_is_absent_from_the_surface() {
    let config = json!({
        "mcp": {"fix": local(&[]), "other": local(&[])},
        "permission": {"fix_*": "deny"},
    });
    TestInstance::builder()
        .config(config)
        .run(|t| async move {
            let shown = surface(&t);
            assert!(!shown.iter().any(|id| id.starts_with("fix_")), "{shown:?}");
            assert!(
                shown.contains(&"other_echo") && shown.contains(&"read"),
                "{shown:?}"
            );
        })
        .await;
}

#[tokio::test]
async fn broken_servers_are_reported_by_name_and_the_others_work() {
    let mut silent = local(&["--silent"]);
    silent["timeout"] = json!(400);
    let config = json!({"mcp": {
        "garbage": local(&["--garbage"]),
        "silent": silent,
        "missing": {"type": "local", "command": ["strata-no-such-mcp-server"]},
        "off": {"type": "local", "command": ["strata-no-such-mcp-server"], "enabled": false},
        "good": local(&[]),
    }});
    TestInstance::builder()
        .config(config)
        .run(|t| async move {
            let why = |name| match status(&t, name) {
                ServerStatus::Failed(why) => why,
                other => panic!("{name}: {other:?}"),
            };
            let garbage = why("garbage");
            assert!(
                garbage.contains("not an MCP message on stdout"),
                "{garbage}"
            );
            assert!(garbage.contains("Server started!"), "{garbage}");
            let silent = why("silent");
            assert!(silent.contains("did not answer within 400 ms"), "{silent}");
            let missing = why("missing");
            assert!(
                missing.contains("could not start `strata-no-such-mcp-server`"),
                "{missing}"
            );
            assert_eq!(status(&t, "off"), ServerStatus::Disabled);
            assert_eq!(status(&t, "good"), ServerStatus::Connected);
            let ids = t.get::<ToolRegistry>().ids();
            assert!(ids.contains(&"good_echo") && !ids.contains(&"garbage_echo"));
        })
        .await;
}

#[tokio::test]
async fn a_streamable_http_server_on_loopback() {
    let server = mcp_server::serve_http().await;
    let config = json!({"mcp": {"web": {"type": "remote", "url": server.url("/mcp"),
        "headers": {"X-Test": "{env:HOME}"}}}});
    TestInstance::builder()
        .config(config)
        .run(|t| async move {
            assert_eq!(status(&t, "web"), ServerStatus::Connected);
            let out = t.call("web_echo", json!({"message": "over http"})).await;
            assert_eq!(out.unwrap().output, "Echo: over http");
        })
        .await;
}

#[tokio::test]
async fn a_malformed_mcp_config_is_refused_naming_the_key() {
    let err = Config::from_value(json!({"mcp": {"x": {"type": "sse", "url": "u"}}}))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`mcp.x.type`") && err.contains("\"local\" or \"remote\""),
        "{err}"
    );
    let err = Config::from_value(json!({"mcp": {"x": {"type": "local", "command": "srv"}}}))
        .unwrap_err()
        .to_string();
    assert!(err.contains("`mcp.x.command`"), "{err}");
}

#[tokio::test]
async fn server_everything_from_npm_echoes() {
    strata_testkit::require_external!(
        "mcp-server-everything",
        "npm install -g @modelcontextprotocol/server-everything"
    );
    let config = json!({"mcp": {"everything": {"type": "local",
        "command": ["mcp-server-everything"]}}});
    TestInstance::builder()
        .config(config)
        .run(|t| async move {
            assert_eq!(status(&t, "everything"), ServerStatus::Connected);
            let out = t.call("everything_echo", json!({"message": "hi"})).await;
            assert!(out.unwrap().output.contains("hi"));
        })
        .await;
}

#[tokio::test]
async fn a_local_server_that_opts_in_runs_inside_the_sandbox() {
    use strata_services::process::sandbox::Support;
    let support = Support::probe();
    if !support.enforceable() {
        println!("skipped: {}", support.missing_reason());
        return;
    }
    let outside = tempfile::Builder::new()
        .prefix("mcp-outside-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let outside = std::fs::canonicalize(outside.path()).unwrap();
    // The server first tries a write outside the project, then starts as usual.
    let wrapped = |file: &str, sandbox: bool| {
        let target = outside.join(file);
        let script = format!("echo x > {} ; exec {FIXTURE}", target.display());
        json!({"type": "local", "command": ["sh", "-c", script], "timeout": 10_000,
               "sandbox": sandbox})
    };
    TestInstance::builder()
        .config(json!({"mcp": {"boxed": wrapped("boxed.txt", true), "free": wrapped("free.txt", false)}}))
        .run(|t| async move {
            for server in ["boxed", "free"] {
                assert!(
                    status(&t, server) == ServerStatus::Connected,
                    "{server}: {:?}",
                    status(&t, server)
                );
            }
            let out = t.call("boxed_echo", json!({"message": "hi"})).await.unwrap();
            assert_eq!(out.output, "Echo: hi", "the sandboxed server still serves");
        })
        .await;
    assert!(
        !outside.join("boxed.txt").exists(),
        "the opted-in server was held"
    );
    assert!(
        outside.join("free.txt").exists(),
        "other servers run as before"
    );
}
