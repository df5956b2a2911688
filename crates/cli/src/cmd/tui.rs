//! `strata` with no command: the terminal UI on a server started in this process for the
//! current directory; `strata attach URL`: the same UI on a running `strata serve`.
//!
//! The local server listens on a free loopback port with a random password that only this
//! process knows, so the UI talks to it exactly as it talks to a remote one.

use std::path::PathBuf;

use rand::distr::{Alphanumeric, SampleString};
use strata_server::http::{AuthConfig, HttpOptions};
use strata_server::serve::serve as run_server;
use strata_server::{CoreOptions, ServerCore};
use tokio_util::sync::CancellationToken;

use super::instance::project_dir;

#[derive(clap::Args, Debug)]
pub(crate) struct AttachArgs {
    /// The server, e.g. `http://127.0.0.1:4096`.
    pub url: String,
    /// The server's password (default: STRATA_SERVER_PASSWORD, then OPENCODE_SERVER_PASSWORD).
    #[arg(long)]
    pub password: Option<String>,
    /// The project on the server (a path on the server's machine).
    #[arg(long)]
    pub dir: Option<String>,
    /// Open this session.
    #[arg(long)]
    pub session: Option<String>,
}

/// `strata attach URL`.
pub(crate) async fn attach(args: AttachArgs) -> u8 {
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

/// `strata`: the UI on a server of its own for `dir` (default: the current directory).
pub(crate) async fn local(dir: Option<PathBuf>, session: Option<String>) -> u8 {
    let dir = match project_dir(dir) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("strata: {e}");
            return 2;
        }
    };
    let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("strata: could not open a loopback port for the UI's server: {e}");
            return 1;
        }
    };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("strata: the UI's server has no address: {e}");
            return 1;
        }
    };
    let core = match ServerCore::start(CoreOptions::new(dir.clone())).await {
        Ok(c) => c,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    let password = Alphanumeric.sample_string(&mut rand::rng(), 32);
    let options = HttpOptions {
        auth: AuthConfig {
            password: Some(password.clone()),
            username: None,
        },
        cors: Vec::new(),
    };
    let stop = CancellationToken::new();
    let server_stop = stop.clone();
    let server = tokio::spawn(run_server(listener, core, options, async move {
        server_stop.cancelled().await;
    }));
    let opts = strata_tui::run::RunOptions {
        session,
        trace: None,
    };
    let url = format!("http://{addr}");
    let directory = Some(dir.to_string_lossy().into_owned());
    let code = match strata_tui::run::attach(&url, Some(password), directory, opts).await {
        Ok(exit) => {
            strata_tui::run::print_exit(&exit);
            0
        }
        Err(e) => {
            eprintln!("strata: {e}");
            1
        }
    };
    stop.cancel();
    let _ = server.await;
    code
}
