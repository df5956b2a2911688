//! `strata-mcp-fixture`: the testkit's scripted MCP server over stdio (see
//! `strata_testkit::mcp_server`). `--garbage` prints a line that is not MCP first;
//! `--silent` never answers anything; `--resources` offers resources and prompts too;
//! `--many N [--page P]` serves N generated tools instead (`strata_testkit::mcp_many`), listed P
//! at a time.

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
    if let Some(count) = number(&args, "--many") {
        let page = number(&args, "--page").unwrap_or(count + 1);
        let server = strata_testkit::mcp_many::ManyMcp::new(count, page);
        if let Ok(running) = server.serve(rmcp::transport::stdio()).await {
            let _ = running.waiting().await;
        }
        return;
    }
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

/// The number after `flag`, if given.
fn number(args: &[String], flag: &str) -> Option<usize> {
    let at = args.iter().position(|a| a == flag)?;
    args.get(at + 1)?.parse().ok()
}
