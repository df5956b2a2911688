//! Tool programs (`execute`, spec §17) against the scripted MCP server and real files: on the
//! surface only with `tool_surface.execute` and a callable tool; a program's calls (MCP tools
//! and the read-only built-ins) go through each tool's own wrapper and permission ask; the
//! bounds on calls and wall time stop a program with the list of what it completed;
//! cancellation; the catalogue's budget and `search()`.

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

/// `config` with `tool_surface.execute` on.
fn on(mut config: Value) -> Value {
    config["tool_surface"] = json!({"execute": true});
    config
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

fn execute(t: &TestInstance) -> ErasedTool {
    surface(t)
        .into_iter()
        .find(|x| x.id == "execute")
        .expect("execute is offered")
}

/// Runs `code` through `execute` with call id `call_exec`.
async fn program(t: &TestInstance, code: &str) -> Result<strata_tools::ToolResult, ToolError> {
    let cx = t.cx().call("call_exec").build();
    execute(t).call(json!({"code": code}).to_string(), cx).await
}

fn error_text(r: Result<strata_tools::ToolResult, ToolError>) -> String {
    match r {
        Err(ToolError::Model(m)) => m,
        other => panic!("expected a tool error, got {other:?}"),
    }
}

fn ids(tools: &[ErasedTool]) -> Vec<&'static str> {
    tools.iter().map(|t| t.id).collect()
}

#[tokio::test]
async fn a_script_calls_mcp_tools_through_their_permission_and_wrapper() {
    TestInstance::builder()
        .config(on(
            json!({"mcp": {"fix": fixture()}, "permission": {"fix_echo": "ask"}}),
        ))
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
async fn execute_needs_the_config_and_a_callable_tool() {
    // Not configured: no execute, though the MCP tools are there.
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
    // On, every MCP tool and every read-only built-in denied: nothing to call, no execute.
    let denied = json!({"mcp": {"fix": fixture()}, "permission": {
        "fix_*": "deny", "read": "deny", "glob": "deny", "grep": "deny", "webfetch": "deny"}});
    TestInstance::builder()
        .config(on(denied))
        .run(|t| async move {
            let names = ids(&surface(&t));
            assert!(!names.contains(&"execute"), "{names:?}");
        })
        .await;
    // On, no MCP server: a read-only program over the built-ins, after them.
    TestInstance::builder()
        .config(on(json!({})))
        .run(|t| async move {
            let tools = surface(&t);
            let names = ids(&tools);
            assert_eq!(names.last(), Some(&"execute"), "{names:?}");
            let execute = tools.last().unwrap();
            assert!(execute.effects.read_only && execute.effects.concurrency_safe);
            let d = &execute.description;
            assert!(d.contains("- `tools.read(input: {"), "{d}");
            assert!(d.contains("- `tools.grep(input: {"), "{d}");
            assert!(!d.contains("tools.bash"), "only read-only built-ins: {d}");
            assert!(
                d.contains("at most 32 tool calls per program, 30 s of wall time"),
                "{d}"
            );
            assert!(!d.contains("search("), "everything fits: {d}");
        })
        .await;
}

#[tokio::test]
async fn cancelling_the_call_stops_a_script_waiting_on_a_tool() {
    TestInstance::builder()
        .config(on(json!({"mcp": {"fix": fixture()}})))
        .run(|t| async move {
            let execute = execute(&t);
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

#[tokio::test]
async fn a_program_reads_and_greps_through_each_tools_own_permission() {
    TestInstance::builder()
        .file("a.txt", "alpha\nbeta\n")
        .file("b.txt", "gamma beta\n")
        .config(on(json!({"permission": {"grep": "ask", "read": {"*": "allow", "*secret*": "deny"}}})))
        .file("secret.txt", "hidden\n")
        .run(|t| async move {
            let code = r#"
                const a = await tools.read({filePath: "a.txt"});
                const hits = await tools.grep({pattern: "beta"});
                const files = await tools.glob({pattern: "*.txt"});
                let denied;
                try { await tools.read({filePath: "secret.txt"}); } catch (e) { denied = e.message; }
                return {a: a.includes("alpha"), hits, files, denied};
            "#;
            let out = program(&t, code).await.unwrap();
            let v: Value = serde_json::from_str(&out.output).unwrap();
            assert_eq!(v["a"], true, "{v}");
            assert!(v["hits"].as_str().unwrap().contains("b.txt"), "{v}");
            assert!(v["files"].as_str().unwrap().contains("a.txt"), "{v}");
            assert!(v["denied"].as_str().unwrap().contains("secret.txt"), "{v}");
            // `grep` asked under its own key, with the program's call id and its number.
            let asked = t.asked_for("grep");
            assert_eq!(asked.len(), 1);
            assert_eq!(asked[0].tool.as_ref().unwrap().call_id, "call_exec/2");
        })
        .await;
}

#[tokio::test]
async fn a_program_past_its_call_limit_stops_and_lists_what_it_completed() {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .config(on(json!({})))
        .run(|t| async move {
            // The program catches the refusal and tries to finish normally: it still fails.
            let code = r#"
                let n = 0;
                try { while (true) { await tools.read({filePath: "a.txt"}); n++; } } catch (e) {}
                return "finished " + n;
            "#;
            let text = error_text(program(&t, code).await);
            assert!(
                text.starts_with(
                    "The program was stopped when it tried call 33 past its limit of 32"
                ),
                "{text}"
            );
            assert!(
                text.contains("\n32. read {\"filePath\":\"a.txt\"}: ok"),
                "{text}"
            );
            assert!(!text.contains("\n33. "), "{text}");
        })
        .await;
}

#[tokio::test]
async fn a_program_past_its_wall_time_stops_and_lists_what_it_completed() {
    TestInstance::builder()
        .file("a.txt", "alpha\n")
        .config(json!({"mcp": {"fix": fixture()}, "tool_surface": {"execute": true, "execute_timeout": 300}}))
        .run(|t| async move {
            assert!(execute(&t).description.contains("0.3 s of wall time"));
            // Stuck in a tool call that never answers.
            let code = "tools.read({filePath: 'a.txt'}); tools.fix.hang({}); return 1";
            let text = error_text(program(&t, code).await);
            assert!(text.starts_with("The program was stopped after 0.3 s of wall time"), "{text}");
            assert!(text.contains("1. read {\"filePath\":\"a.txt\"}: ok"), "{text}");
            // Stuck in the interpreter itself.
            let text = error_text(program(&t, "while (true) {}").await);
            assert!(text.contains("It had completed no tool call."), "{text}");
        })
        .await;
}

#[tokio::test]
async fn errors_of_the_program_and_of_its_input_are_clear() {
    TestInstance::builder()
        .config(on(json!({})))
        .run(|t| async move {
            let text = error_text(program(&t, "throw new Error('no luck')").await);
            assert!(
                text.contains("The program threw an error: Error: no luck"),
                "{text}"
            );
            let text = error_text(program(&t, "return tools.nothing({})").await);
            assert!(text.contains("not a function"), "{text}");
            let memory = "const a = []; while (true) { a.push('x'.repeat(1 << 16) + a.length); }";
            let text = error_text(program(&t, memory).await);
            assert!(text.contains("more than its 64 MiB of memory"), "{text}");
            let bad = execute(&t)
                .call(json!({"code": 1}).to_string(), t.cx().build())
                .await;
            assert!(
                matches!(bad, Err(ToolError::InvalidArguments { .. })),
                "{bad:?}"
            );
        })
        .await;
}

#[tokio::test]
async fn past_the_catalogue_budget_programs_find_tools_with_search() {
    let command = [FIXTURE, "--many", "120"];
    let many = json!({"type": "local", "command": command, "timeout": 10_000});
    TestInstance::builder()
        .config(on(json!({"mcp": {"many": many}})))
        .run(|t| async move {
            let d = execute(&t).description;
            assert!(d.len() < 9_000, "the description keeps its budget: {}", d.len());
            assert!(d.contains("more tools are not listed here"), "{d}");
            assert!(d.contains("- `tools.read(input:"), "built-ins come first");
            let code = r#"
                const found = search("weather forecast");
                const call = found[0].call;
                const [, server, name] = call.split(".");
                return {call, input: found[0].input, out: tools[server][name]({weather_forecast_id: "oslo"})};
            "#;
            let out = program(&t, code).await.unwrap();
            let v: Value = serde_json::from_str(&out.output).unwrap();
            assert!(v["call"].as_str().unwrap().contains("weather_forecast"), "{v}");
            assert!(v["input"].as_str().unwrap().contains("weather_forecast_id: string"), "{v}");
            assert!(v["out"].as_str().unwrap().contains("ran with {\"weather_forecast_id\":\"oslo\"}"), "{v}");
        })
        .await;
}
