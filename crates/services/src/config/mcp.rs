//! The `mcp` and `mcp_trust` keys: the MCP servers to connect to, in opencode's shape.
//!
//! `{"type":"local","command":[...],"environment":{...},"cwd"?,"enabled"?,"timeout"?}` or
//! `{"type":"remote","url":"...","headers":{...},"enabled"?,"timeout"?}`; Strata adds
//! `call_timeout` (ms) for tool execution. `{env:VAR}` / `{file:path}` in these values were
//! substituted when the config file was read, like in every other field.

use std::time::Duration;

use serde_json::{Map, Value};

use super::fields::{FieldError, boolean, get, object, positive_as, wrong};
use super::tool_surface::DeferMode;

/// How long a server gets to start and answer `initialize` when `timeout` is not set.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a tool call may take when `call_timeout` is not set.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// One configured MCP server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServer {
    /// The key under `mcp`; tool names start with it.
    pub name: String,
    pub enabled: bool,
    /// Start-up and `initialize` limit.
    pub timeout: Duration,
    /// Limit for one tool call.
    pub call_timeout: Duration,
    pub transport: McpTransport,
    /// `mcp.<name>.sandbox`: a local server runs inside the instance's sandbox (opt-in).
    pub sandbox: bool,
    /// `mcp.<name>.defer`: whether this server's tools are deferred (`auto` by default).
    pub defer: DeferMode,
}

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport {
    /// A child process spoken to over stdio.
    Local {
        command: Vec<String>,
        environment: Vec<(String, String)>,
        cwd: Option<String>,
    },
    /// Streamable HTTP.
    Remote {
        url: String,
        headers: Vec<(String, String)>,
    },
}

/// `mcp`: each entry checked, errors naming `mcp.<server>.<field>`.
pub(super) fn servers(root: &Map<String, Value>) -> Result<Vec<McpServer>, FieldError> {
    let Some(map) = object(root, "mcp", "mcp")? else {
        return Ok(Vec::new());
    };
    map.iter().map(|(name, v)| server(name, v)).collect()
}

/// `mcp_trust`: the names of servers whose `readOnlyHint` is believed.
pub(super) fn trust(root: &Map<String, Value>) -> Result<Vec<String>, FieldError> {
    super::fields::strings(
        get(root, "mcp_trust"),
        "mcp_trust",
        "a server name",
        "an array of server names",
    )
}

fn server(name: &str, value: &Value) -> Result<McpServer, FieldError> {
    let at = |field: &str| format!("mcp.{name}.{field}");
    let Value::Object(obj) = value else {
        return Err(wrong(&format!("mcp.{name}"), "an object", value));
    };
    let transport = match get(obj, "type") {
        Some(Value::String(t)) if t == "local" => McpTransport::Local {
            command: command(obj, &at("command"))?,
            environment: strings(obj, "environment", &at("environment"))?,
            cwd: text(obj, "cwd", &at("cwd"))?,
        },
        Some(Value::String(t)) if t == "remote" => McpTransport::Remote {
            url: text(obj, "url", &at("url"))?
                .ok_or_else(|| wrong(&at("url"), "the server's URL", &Value::Null))?,
            headers: strings(obj, "headers", &at("headers"))?,
        },
        other => {
            let found = other.cloned().unwrap_or(Value::Null);
            return Err(wrong(&at("type"), "\"local\" or \"remote\"", &found));
        }
    };
    Ok(McpServer {
        name: name.to_string(),
        enabled: boolean(obj, "enabled", &at("enabled"))?.unwrap_or(true),
        timeout: millis(obj, "timeout", &at("timeout"))?.unwrap_or(DEFAULT_CONNECT_TIMEOUT),
        call_timeout: millis(obj, "call_timeout", &at("call_timeout"))?
            .unwrap_or(DEFAULT_CALL_TIMEOUT),
        transport,
        sandbox: boolean(obj, "sandbox", &at("sandbox"))?.unwrap_or(false),
        defer: super::tool_surface::defer_mode(obj, name)?,
    })
}

fn text(obj: &Map<String, Value>, key: &str, field: &str) -> Result<Option<String>, FieldError> {
    match get(obj, key) {
        None => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
        Some(v) => Err(wrong(field, "a non-empty string", v)),
    }
}

fn command(obj: &Map<String, Value>, field: &str) -> Result<Vec<String>, FieldError> {
    let expected = "a non-empty array of strings (program, then arguments)";
    match get(obj, "command") {
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| wrong(field, expected, v))
            })
            .collect(),
        other => Err(wrong(field, expected, other.unwrap_or(&Value::Null))),
    }
}

fn strings(
    obj: &Map<String, Value>,
    key: &str,
    field: &str,
) -> Result<Vec<(String, String)>, FieldError> {
    let Some(map) = object(obj, key, field)? else {
        return Ok(Vec::new());
    };
    map.iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k.clone(), s.clone())),
            v => Err(wrong(&format!("{field}.{k}"), "a string", v)),
        })
        .collect()
}

fn millis(
    obj: &Map<String, Value>,
    key: &str,
    field: &str,
) -> Result<Option<Duration>, FieldError> {
    let n = positive_as(obj, key, field, "a positive number of milliseconds")?;
    Ok(n.map(Duration::from_millis))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parse(v: Value) -> Result<Vec<McpServer>, String> {
        let Value::Object(root) = v else {
            unreachable!()
        };
        servers(&root).map_err(|e| e.field)
    }

    #[test]
    fn local_and_remote_servers_in_order() {
        let s = parse(json!({"mcp": {
            "b": {"type": "local", "command": ["srv", "--stdio"], "environment": {"K": "{env:K}"},
                  "cwd": "sub", "timeout": 500, "call_timeout": 900, "sandbox": true},
            "a": {"type": "remote", "url": "http://127.0.0.1:1/mcp", "headers": {"X": "y"},
                  "enabled": false},
        }}))
        .unwrap();
        assert_eq!(s[0].name, "b");
        assert_eq!(s[0].timeout, Duration::from_millis(500));
        assert_eq!(s[0].call_timeout, Duration::from_millis(900));
        assert_eq!(
            s[0].transport,
            McpTransport::Local {
                command: vec!["srv".into(), "--stdio".into()],
                environment: vec![("K".into(), "{env:K}".into())],
                cwd: Some("sub".into()),
            }
        );
        assert!(s[0].sandbox && !s[1].sandbox, "sandboxing is opt-in");
        assert!(!s[1].enabled);
        assert_eq!(s[1].timeout, DEFAULT_CONNECT_TIMEOUT);
        assert!(
            matches!(&s[1].transport, McpTransport::Remote { headers, .. } if headers.len() == 1)
        );
    }

    #[test]
    fn malformed_entries_name_the_field() {
        let e = |v| parse(v).unwrap_err();
        assert_eq!(e(json!({"mcp": []})), "mcp");
        assert_eq!(e(json!({"mcp": {"x": 1}})), "mcp.x");
        assert_eq!(e(json!({"mcp": {"x": {"type": "sse"}}})), "mcp.x.type");
        let bad = json!({"mcp": {"x": {"type": "local", "command": ["a"], "sandbox": "yes"}}});
        assert_eq!(e(bad), "mcp.x.sandbox");
        assert_eq!(e(json!({"mcp": {"x": {"command": ["a"]}}})), "mcp.x.type");
        assert_eq!(e(json!({"mcp": {"x": {"type": "local"}}})), "mcp.x.command");
        assert_eq!(
            e(json!({"mcp": {"x": {"type": "local", "command": "a b"}}})),
            "mcp.x.command"
        );
        assert_eq!(e(json!({"mcp": {"x": {"type": "remote"}}})), "mcp.x.url");
        assert_eq!(
            e(json!({"mcp": {"x": {"type": "local", "command": ["a"], "timeout": "1s"}}})),
            "mcp.x.timeout"
        );
        assert_eq!(
            e(json!({"mcp": {"x": {"type": "remote", "url": "u", "headers": {"a": 1}}}})),
            "mcp.x.headers.a"
        );
    }

    #[test]
    fn trust_is_a_list_of_names() {
        let Value::Object(root) = json!({"mcp_trust": ["a", "b"]}) else {
            unreachable!()
        };
        assert_eq!(trust(&root).unwrap(), ["a", "b"]);
        let Value::Object(bad) = json!({"mcp_trust": "a"}) else {
            unreachable!()
        };
        assert_eq!(trust(&bad).unwrap_err().field, "mcp_trust");
    }
}
