//! `strata acp [--dir D] [--sandbox MODE]`: an Agent Client Protocol agent on stdio, for
//! editors. stdout carries ACP only; logs go to the log file (and warnings to stderr). Runs a
//! server core of its own, like the terminal UI, until the editor closes stdin or Ctrl-C.
//!
//! Exit codes: 0 when the editor closed the connection, 1 when the core could not start or the
//! connection failed, 2 when `--dir` is not a usable directory.

use strata_server::{CoreOptions, ServerCore};

use super::instance::{project_dir, with_sandbox};
use crate::args::AcpArgs;

pub(super) async fn serve(args: AcpArgs) -> u8 {
    let dir = match project_dir(args.dir) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("strata: {e}");
            return 2;
        }
    };
    let mut options = CoreOptions::new(dir);
    options.graph = with_sandbox(options.graph, args.sandbox.as_deref());
    let core = match ServerCore::start(options).await {
        Ok(c) => c,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    let code = tokio::select! {
        served = strata_acp::serve_stdio(core.clone()) => match served {
            Ok(()) => 0,
            Err(e) => {
                tracing::error!(error = %e, "the ACP connection failed");
                eprintln!("strata: the ACP connection failed: {e}");
                1
            }
        },
        _ = tokio::signal::ctrl_c() => 0,
    };
    core.shutdown().await;
    code
}
