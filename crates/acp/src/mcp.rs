//! The MCP servers an editor passes with `session/new` or `session/load`, as Strata's own MCP
//! server settings, so the instance's MCP client connects them like configured ones. A server
//! named like a configured one is left to the configuration.

use agent_client_protocol::v1::schema::McpServer as AcpServer;
use strata_services::config::{
    DEFAULT_CALL_TIMEOUT, DEFAULT_CONNECT_TIMEOUT, McpServer, McpTransport,
};

/// The servers Strata can connect (stdio and streamable HTTP), and the names of those it
/// cannot (SSE, or kinds this SDK version does not know).
pub(crate) fn servers(list: &[AcpServer]) -> (Vec<McpServer>, Vec<String>) {
    let mut ok = Vec::new();
    let mut skipped = Vec::new();
    for server in list {
        let (name, transport) = match server {
            AcpServer::Stdio(s) => {
                let command = std::iter::once(s.command.to_string_lossy().into_owned())
                    .chain(s.args.iter().cloned())
                    .collect();
                let environment = s
                    .env
                    .iter()
                    .map(|v| (v.name.clone(), v.value.clone()))
                    .collect();
                let local = McpTransport::Local {
                    command,
                    environment,
                    cwd: None,
                };
                (s.name.clone(), local)
            }
            AcpServer::Http(h) => {
                let headers = h
                    .headers
                    .iter()
                    .map(|v| (v.name.clone(), v.value.clone()))
                    .collect();
                let remote = McpTransport::Remote {
                    url: h.url.clone(),
                    headers,
                };
                (h.name.clone(), remote)
            }
            AcpServer::Sse(s) => {
                skipped.push(s.name.clone());
                continue;
            }
            _ => {
                skipped.push("(an MCP server of an unknown kind)".into());
                continue;
            }
        };
        ok.push(McpServer {
            name,
            enabled: true,
            timeout: DEFAULT_CONNECT_TIMEOUT,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            transport,
            sandbox: false,
            defer: Default::default(),
        });
    }
    (ok, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stdio_and_http_servers_become_local_and_remote_ones_and_sse_is_skipped() {
        let list: Vec<AcpServer> = serde_json::from_value(json!([
            {"name": "files", "command": "/bin/srv", "args": ["--ro"],
             "env": [{"name": "K", "value": "v"}]},
            {"type": "http", "name": "web", "url": "http://127.0.0.1:9/mcp",
             "headers": [{"name": "X-A", "value": "b"}]},
            {"type": "sse", "name": "old", "url": "http://127.0.0.1:9/sse", "headers": []},
        ]))
        .unwrap();
        let (ok, skipped) = servers(&list);
        assert_eq!(skipped, ["old"]);
        assert_eq!(ok[0].name, "files");
        assert_eq!(
            ok[0].transport,
            McpTransport::Local {
                command: vec!["/bin/srv".into(), "--ro".into()],
                environment: vec![("K".into(), "v".into())],
                cwd: None,
            }
        );
        assert_eq!(
            ok[1].transport,
            McpTransport::Remote {
                url: "http://127.0.0.1:9/mcp".into(),
                headers: vec![("X-A".into(), "b".into())],
            }
        );
    }
}
