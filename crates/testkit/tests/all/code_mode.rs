//! Code mode (`execute`, spec §17) against the scripted MCP server: on the surface only with
//! the flag and a permitted MCP tool, and a script's calls go through the MCP tool's own
//! wrapper and permission ask.

use std::time::Duration;

use serde_json::{Value, json};
use strata_registry::{SurfaceSpec, ToolRegistry};
use strata_services::flags::RuntimeFlags;
use strata_testkit::TestInstance;
use strata_tools::{ErasedTool, ToolError};

const FIXTURE: &str = env!("CARGO_BIN_EXE_strata-mcp-fixture");

fn fixture() -> Value {
    json!({"type": "local", "command": [FIXTURE], "timeout": 10_000})
}

fn surface(t: &TestInstance) -> Vec<ErasedTool> {
    let spec = SurfaceSpec {
        model: "anthropic/claude-sonnet-4".into(),
        ruleset: t.ruleset(),
        flags: t.get::<RuntimeFlags>().enabled(),
        ..SurfaceSpec::default()
    };
    t.get::<ToolRegistry>().surface(&spec)
}

fn ids(tools: &[ErasedTool]) -> Vec<&'static str> {
    tools.iter().map(|t| t.id).collect()
}

#[tokio::test]
async fn a_script_calls_mcp_tools_through_their_permission_and_wrapper() {
    TestInstance::builder()
        .config(json!({"mcp": {"fix": fixture()}, "permission": {"fix_echo": "ask"}}))
        .flags(|f| f.experimental_code_mode = true)
        .run(|t| async move {
            let tools = surface(&t);
            let names = ids(&tools);
            let at = names
                .iter()
                .position(|n| *n == "execute")
                .expect("execute is offered");
            assert_eq!(names[at + 1], "fix_echo", "{names:?}");
            let execute = tools[at].clone();
            assert!(
                execute
                    .description
                    .contains("`tools.fix.echo(input: { message?: string })`"),
                "{}",
                execute.description
            );
            let code = r#"
                const a = await tools.fix.echo({message: "hi"});
                let failed;
                try { tools.fix.fail({}); } catch (e) { failed = e.message; }
                const pic = tools.fix.picture({});
                console.log("done");
                return {a, failed, pic};
            "#;
            let cx = t.cx().call("call_exec").build();
            let out = execute
                .call(json!({"code": code}).to_string(), cx)
                .await
                .unwrap();
            let (body, logs) = out.output.split_once("\n\nLogs:\n").unwrap();
            let value: Value = serde_json::from_str(body).unwrap();
            assert_eq!(value["a"], "Echo: hi");
            assert_eq!(value["failed"], "the fixture failed on purpose");
            assert!(
                value["pic"]
                    .as_str()
                    .unwrap()
                    .starts_with("a pixel\n[1 file"),
                "{value}"
            );
            assert_eq!(logs, "done");
            assert_eq!(
                out.attachments.len(),
                1,
                "the picture is attached to execute's result"
            );
            // The inner call asked under the MCP tool's own key, with its own call id.
            let asked = t.asked_for("fix_echo");
            assert_eq!(asked.len(), 1);
            assert_eq!(asked[0].patterns, ["*"]);
            assert_eq!(asked[0].tool.as_ref().unwrap().call_id, "call_exec/1");
        })
        .await;
}

#[tokio::test]
async fn execute_needs_the_flag_and_a_permitted_mcp_tool() {
    // Flag off: no execute, though the MCP tools are there.
    TestInstance::builder()
        .config(json!({"mcp": {"fix": fixture()}}))
        .run(|t| async move {
            let names = ids(&surface(&t));
            assert!(
                names.contains(&"fix_echo") && !names.contains(&"execute"),
                "{names:?}"
            );
        })
        .await;
    // Flag on, every MCP tool denied: nothing to call, so no execute.
    TestInstance::builder()
        .config(json!({"mcp": {"fix": fixture()}, "permission": {"fix_*": "deny"}}))
        .flags(|f| f.experimental_code_mode = true)
        .run(|t| async move {
            let names = ids(&surface(&t));
            assert!(!names.contains(&"execute"), "{names:?}");
        })
        .await;
    // Flag on, no MCP server.
    TestInstance::builder()
        .flags(|f| f.experimental_code_mode = true)
        .run(|t| async move {
            assert!(!ids(&surface(&t)).contains(&"execute"));
        })
        .await;
}

#[tokio::test]
async fn cancelling_the_call_stops_a_script_waiting_on_a_tool() {
    TestInstance::builder()
        .config(json!({"mcp": {"fix": fixture()}}))
        .flags(|f| f.experimental_code_mode = true)
        .run(|t| async move {
            let execute = surface(&t).into_iter().find(|x| x.id == "execute").unwrap();
            let abort = tokio_util::sync::CancellationToken::new();
            let cx = t.cx().abort(abort.clone()).build();
            let call = tokio::spawn(async move {
                execute
                    .call(
                        json!({"code": "tools.fix.hang({}); return 1"}).to_string(),
                        cx,
                    )
                    .await
            });
            // The hang tool never answers: only the cancellation can end the call.
            abort.cancel();
            let out = strata_testkit::await_with_timeout(
                "the cancelled execute",
                Duration::from_secs(10),
                call,
            )
            .await
            .unwrap();
            match out {
                Ok(r) => assert_eq!(r.output, "Execution cancelled."),
                Err(e) => assert!(matches!(e, ToolError::Cancelled), "{e}"),
            }
        })
        .await;
}
