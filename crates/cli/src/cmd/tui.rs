//! `strata` with no command: the terminal UI on a server started in this process for the
//! current directory; `strata attach URL`: the same UI on a running `strata serve`.
//!
//! The local UI talks to its server core through the in-process transport
//! ([`LocalClient`]); the attached one over HTTP + SSE. Both give it the same typed events.

use std::path::PathBuf;

use std::sync::Arc;

use strata_server::{CoreOptions, Local, ServerCore};

use super::instance::project_dir;
use super::local_client::LocalClient;

/// `strata attach URL`.
pub(crate) async fn attach(args: crate::args::AttachArgs) -> u8 {
    let opts = strata_tui::run::RunOptions {
        session: args.session,
        trace: None,
    };
    match strata_tui::run::attach(&args.url, args.password, args.dir, opts).await {
        Ok(exit) => {
            strata_tui::run::print_exit(&exit);
            0
        }
        Err(e) => {
            eprintln!("strata: {e}");
            1
        }
    }
}

/// `strata`: the UI on a server core of its own for `dir` (default: the current directory),
/// driven in-process: no port is opened and no password is needed. When the UI ends, the
/// sessions it prompted end (`SessionEnd` hooks, `reason: "prompt_input_exit"`) and the core
/// shuts down (running turns are cancelled, their processes killed). `STRATA_TUI_TRACE=FILE`
/// appends one line per frame to FILE (draw time, key-to-frame time), for `bench/tui.sh`.
pub(crate) async fn local(
    dir: Option<PathBuf>,
    session: Option<String>,
    sandbox: Option<String>,
    worktree: Option<String>,
) -> u8 {
    let dir = match project_dir(dir) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("strata: {e}");
            return 2;
        }
    };
    let dir = match worktree {
        Some(name) => match super::worktree::enter(&dir, &name).await {
            Ok(d) => d,
            Err(e) => {
                eprintln!("strata: {e}");
                return 1;
            }
        },
        None => dir,
    };
    let mut options = CoreOptions::new(dir.clone());
    options.graph = super::instance::with_sandbox(options.graph, sandbox.as_deref());
    let core = match ServerCore::start(options).await {
        Ok(c) => c,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    // The project's untrusted hooks are offered for trust before the TUI takes the screen.
    if let Ok(entry) = core.instance(&dir).await {
        for warning in entry.services.hooks.warnings() {
            eprintln!("strata: warning: {warning}");
        }
        super::hooks::offer_trust(&entry.services.hooks);
    }
    let client = LocalClient::new(Local::new(core.clone(), dir));
    let opts = strata_tui::run::RunOptions {
        session,
        trace: std::env::var_os("STRATA_TUI_TRACE").map(PathBuf::from),
    };
    let code = match strata_tui::run::run(Arc::new(client), opts).await {
        Ok(exit) => {
            strata_tui::run::print_exit(&exit);
            // The user left the prompt: Claude Code's reason for the sessions they drove.
            core.end_sessions("prompt_input_exit").await;
            0
        }
        Err(e) => {
            eprintln!("strata: {e}");
            1
        }
    };
    // Sessions not ended above end here with `other`.
    core.shutdown().await;
    code
}
