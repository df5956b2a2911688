//! `strata mcp [--dir D] [--agent NAME] [--yes] [--http ADDR]`: the project's tools served over
//! MCP, on stdio (MCP alone on stdout; every log and warning on stderr) or over streamable HTTP
//! at `http://ADDR/mcp`. Runs until the client closes stdin, or until Ctrl-C.

use strata_mcpserver::{ServeOptions, StrataMcp, bind, serve_http, serve_stdio};
use strata_registry::Instance;
use tokio_util::sync::CancellationToken;

use super::{instance, mcp};
use crate::args::McpServeArgs;

pub(super) async fn serve(args: McpServeArgs) -> u8 {
    let (runtime, inst) = match instance::open(args.dir.clone()).await {
        Ok(x) => x,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    mcp::warn_failed(&inst);
    let code = match run(&inst, &args).await {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("strata: {e}");
            1
        }
    };
    instance::close(runtime, inst).await;
    code
}

async fn run(inst: &Instance, args: &McpServeArgs) -> Result<(), String> {
    let options = ServeOptions {
        agent: args.agent.clone().unwrap_or_else(|| "build".into()),
        yes: args.yes,
        ..ServeOptions::default()
    };
    let server = StrataMcp::new(inst, options).map_err(|e| e.to_string())?;
    let cancel = CancellationToken::new();
    let on_signal = cancel.clone();
    let signals = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_signal.cancel();
        }
    });
    let served = match &args.http {
        Some(addr) => {
            let (listener, local) = bind(addr).await.map_err(|e| e.to_string())?;
            // stdout is free in HTTP mode: the address, for whoever started the server.
            println!("MCP over streamable HTTP at http://{local}/mcp");
            serve_http(server, listener, cancel.clone()).await
        }
        None => serve_stdio(server, cancel.clone()).await,
    };
    signals.abort();
    served.map_err(|e| e.to_string())
}
