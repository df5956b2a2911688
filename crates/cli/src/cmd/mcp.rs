//! `strata mcp list`: each configured MCP server with its status and tool count; and the
//! warnings other commands print for servers that could not be used.

use serde_json::json;
use strata_registry::Instance;
use strata_services::mcp::{Mcp, ServerStatus};

use super::instance;
use crate::args::{Format, McpCommand};

pub(crate) async fn mcp(command: McpCommand) -> u8 {
    let McpCommand::List { dir, format } = command;
    let (runtime, inst) = match instance::open(dir).await {
        Ok(x) => x,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    let code = match inst.get::<Mcp>() {
        Ok(mcp) => {
            list(&mcp, format);
            0
        }
        Err(e) => {
            eprintln!("strata: {e}");
            1
        }
    };
    instance::close(runtime, inst).await;
    code
}

fn list(mcp: &Mcp, format: Format) {
    let servers = mcp.servers();
    match format {
        Format::Json => {
            let rows: Vec<_> = servers
                .iter()
                .map(|s| {
                    let (status, error) = words(&s.status);
                    json!({"name": s.name, "status": status, "tools": s.tools, "error": error})
                })
                .collect();
            println!("{}", json!({ "servers": rows }));
        }
        Format::Default if servers.is_empty() => {
            println!("No MCP servers are configured (key `mcp` in strata.json).");
        }
        Format::Default => {
            for s in servers {
                let (status, error) = words(&s.status);
                match error {
                    Some(why) => println!("{:<16} {status}: {why}", s.name),
                    None => println!("{:<16} {status}, {} tools", s.name, s.tools),
                }
            }
        }
    }
}

fn words(status: &ServerStatus) -> (&'static str, Option<String>) {
    match status {
        ServerStatus::Connected => ("connected", None),
        ServerStatus::Disabled => ("disabled", None),
        ServerStatus::Failed(why) => ("failed", Some(why.clone())),
    }
}

/// Prints one warning line per server that could not be used.
pub(crate) fn warn_failed(inst: &Instance) {
    let Ok(mcp) = inst.get::<Mcp>() else {
        return;
    };
    for s in mcp.servers() {
        if let ServerStatus::Failed(why) = s.status {
            eprintln!(
                "strata: warning: the MCP server `{}` is not available: {why}",
                s.name
            );
        }
    }
}
