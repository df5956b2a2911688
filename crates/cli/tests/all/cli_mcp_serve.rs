//! `strata mcp` as an MCP server, driven by independent clients: the official Python SDK (PyPI
//! `mcp`, in the virtualenv `.ci/run` makes and names in `STRATA_TEST_MCP_PYTHON`), rmcp's
//! client over stdio, and rmcp's client over `--http`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Value, json};

use crate::common::{Project, strata_bin};

/// The variable naming the Python interpreter that has the `mcp` package.
const PYTHON_VAR: &str = "STRATA_TEST_MCP_PYTHON";

fn mcp_python() -> Option<PathBuf> {
    std::env::var_os(PYTHON_VAR)
        .map(PathBuf::from)
        .filter(|p| p.is_file())
}

fn project() -> Project {
    let p = Project::new();
    p.file("notes.txt", "one\nthe needle is here\n");
    p.file(
        "strata.json",
        r#"{"permission": {"bash": "ask"}, "sandbox": {"auto_allow": false}}"#,
    );
    p
}

fn python_client(p: &Project, python: &Path, extra: &[&str]) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp_client.py");
    let mut cmd = Command::new(python);
    cmd.arg(script).arg(strata_bin()).arg(&p.dir).args(extra);
    p.environment(&mut cmd);
    let run = p.run(cmd, None);
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    serde_json::from_str(&run.stdout).expect("the client prints one JSON object")
}

#[test]
fn the_python_mcp_client_lists_and_calls_strata_tools() {
    let python = mcp_python();
    if !strata_testkit::external_found(
        &format!("python with the mcp package (${PYTHON_VAR})"),
        "`.ci/run` makes the virtualenv: `python3 -m venv DIR && DIR/bin/pip install mcp`, \
         then export STRATA_TEST_MCP_PYTHON=DIR/bin/python",
        python.is_some(),
    ) {
        return;
    }
    let python = python.unwrap();
    let p = project();
    let out = python_client(&p, &python, &[]);
    assert_eq!(out["server"], "strata");
    let tools = out["tools"].as_object().unwrap();
    for name in ["bash", "read", "glob", "grep", "edit", "write"] {
        assert!(tools.contains_key(name), "{name} missing from {tools:?}");
    }
    assert!(!tools.contains_key("question") && !tools.contains_key("invalid"));
    assert_eq!(
        out["tools"]["read"],
        json!({"readOnly": true, "destructive": false, "openWorld": false, "schemaType": "object"})
    );
    assert_eq!(out["tools"]["bash"]["destructive"], true);
    let calls = &out["calls"];
    assert_eq!(calls["read"]["isError"], false);
    assert!(
        calls["read"]["text"]
            .as_str()
            .unwrap()
            .contains("2: the needle is here"),
        "{calls}"
    );
    assert_eq!(calls["grep"]["isError"], false);
    assert!(
        calls["grep"]["text"]
            .as_str()
            .unwrap()
            .contains("Line 2: the needle is here"),
        "{calls}"
    );
    assert_eq!(calls["bad"]["isError"], true);
    assert!(
        calls["bad"]["text"].as_str().unwrap().starts_with(
            "The `read` tool received arguments it cannot use: missing field `filePath`"
        ),
        "{calls}"
    );
    // `bash` asks under these rules, and nobody can answer.
    assert_eq!(calls["bash"]["isError"], true);
    let refusal = calls["bash"]["text"].as_str().unwrap();
    assert!(
        refusal.contains("an MCP server has no one to ask"),
        "{refusal}"
    );
    assert!(refusal.contains("strata mcp --yes"), "{refusal}");

    let yes = python_client(&p, &python, &["--yes"]);
    assert_eq!(yes["calls"]["bash"]["isError"], false, "{}", yes["calls"]);
    assert_eq!(yes["calls"]["bash"]["text"], "from-bash\n");
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn args(v: Value) -> serde_json::Map<String, Value> {
    let Value::Object(map) = v else {
        panic!("arguments are an object")
    };
    map
}

#[tokio::test]
async fn rmcp_client_drives_strata_mcp_over_stdio() {
    let p = project();
    let mut std_cmd = Command::new(strata_bin());
    std_cmd.args(["mcp", "--dir"]).arg(&p.dir);
    p.environment(&mut std_cmd);
    let mut cmd = tokio::process::Command::from(std_cmd);
    cmd.stderr(Stdio::null());
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "grep"));
    let r = client
        .call_tool(
            CallToolRequestParams::new("read")
                .with_arguments(args(json!({"filePath": "notes.txt"}))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    assert!(text(&r).contains("1: one"), "{}", text(&r));
    client.cancel().await.unwrap();
}

/// Kills the server when the test ends, however it ends.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn strata_mcp_http_serves_streamable_http_at_slash_mcp() {
    let p = project();
    let mut cmd = Command::new(strata_bin());
    cmd.args(["mcp", "--http", "127.0.0.1:0", "--dir"])
        .arg(&p.dir);
    p.environment(&mut cmd);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut server = Server(cmd.spawn().unwrap());
    let stdout = server.0.stdout.take().unwrap();
    // The first line names the address; reading it waits until the server listens.
    let line = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        line
    })
    .await
    .unwrap();
    let url = line
        .trim()
        .strip_prefix("MCP over streamable HTTP at ")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .to_string();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    // reqwest (under rmcp's client) is built without a default TLS provider.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = ().serve(StreamableHttpClientTransport::from_uri(url)).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "read"));
    let r = client
        .call_tool(
            CallToolRequestParams::new("grep").with_arguments(args(json!({"pattern": "needle"}))),
        )
        .await
        .unwrap();
    assert!(
        text(&r).contains("Line 2: the needle is here"),
        "{}",
        text(&r)
    );
    client.cancel().await.unwrap();
    drop(server);
}

#[test]
fn an_unknown_agent_is_refused_before_serving() {
    let p = project();
    let run = p.strata(&["mcp", "--agent", "nobody"]);
    run.expect_code(1);
    assert!(
        run.stderr.contains("no agent named `nobody`"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}
