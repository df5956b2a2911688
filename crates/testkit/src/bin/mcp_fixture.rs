//! `strata-mcp-fixture`: the testkit's scripted MCP server over stdio (see
//! `strata_testkit::mcp_server`). `--garbage` prints a line that is not MCP first;
//! `--silent` never answers anything; `--resources` offers resources and prompts too.

use rmcp::ServiceExt;
use strata_testkit::mcp_server::FixtureMcp;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--silent") {
        std::future::pending::<()>().await;
    }
    if args.iter().any(|a| a == "--garbage") {
        println!("Server started! Listening on stdio");
    }
    eprintln!("fixture: ready");
    let fixture = if args.iter().any(|a| a == "--resources") {
        FixtureMcp::with_resources()
    } else {
        FixtureMcp::default()
    };
    match fixture.serve(rmcp::transport::stdio()).await {
        Ok(running) => {
            let _ = running.waiting().await;
        }
        Err(e) => eprintln!("fixture: {e}"),
    }
}
