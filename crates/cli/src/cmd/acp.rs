//! `strata acp [--dir D] [--sandbox MODE]`: an Agent Client Protocol agent on stdio, for
//! editors. stdout carries ACP only; logs go to the log file (and warnings to stderr). Runs a
//! server core of its own, like the terminal UI, until the editor closes stdin or Ctrl-C.
//!
//! Exit codes: 0 when the editor closed the connection (or Ctrl-C), 1 when the core could not
//! start or the connection failed, 2 when `--dir` names no directory or, without `--dir`, the
//! working directory cannot be read. Checked before anything starts, so an editor's agent log
//! shows the one line that says why.

use std::path::Path;

use strata_server::{CoreOptions, ServerCore};

use super::instance::{project_dir, with_sandbox};
use crate::args::AcpArgs;

pub(super) async fn serve(args: AcpArgs) -> u8 {
    let dir = match project_dir(args.dir).and_then(|d| usable(&d).map(|()| d)) {
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

/// The project folder must exist before the core starts: sessions without a `cwd` of their
/// own open it, and a missing one would only fail at the editor's first `session/new`.
fn usable(dir: &Path) -> Result<(), String> {
    if dir.is_dir() {
        return Ok(());
    }
    let what = if dir.exists() {
        "is not a directory"
    } else {
        "does not exist"
    };
    Err(format!(
        "--dir {} {what}; pass the project folder the editor should open, or leave --dir out \
         to use the current directory",
        dir.display()
    ))
}
