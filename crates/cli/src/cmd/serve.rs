//! `strata serve`: the HTTP + SSE server (see `strata-server`). Prints the URL it listens on,
//! warns when no password is set, and stops on Ctrl-C or SIGTERM.

use std::io::Write;

use strata_server::http::{AuthConfig, HttpOptions};
use strata_server::serve::{bind, serve as run_server};
use strata_server::{CoreOptions, ServerCore};

use super::instance::project_dir;

pub(crate) async fn serve(args: crate::args::ServeArgs) -> u8 {
    let dir = match project_dir(args.dir) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("strata: {e}");
            return 2;
        }
    };
    let auth = AuthConfig::from_env(|k| std::env::var(k).ok());
    if !auth.enabled() {
        eprintln!("strata: warning: STRATA_SERVER_PASSWORD is not set; the server is unsecured");
    }
    let listener = match bind(&args.hostname, args.port, auth.enabled(), args.public).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("strata: {e}");
            return 2;
        }
    };
    let mut options = CoreOptions::new(dir);
    options.graph = super::instance::with_sandbox(options.graph, args.sandbox.as_deref());
    let core = match ServerCore::start(options).await {
        Ok(c) => c,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    match listener.local_addr() {
        Ok(addr) => println!("strata server listening on http://{addr}"),
        Err(e) => eprintln!("strata: listening, but the address is unknown: {e}"),
    }
    let _ = std::io::stdout().flush();
    let options = HttpOptions {
        auth,
        cors: args.cors,
    };
    match run_server(listener, core, options, stop_signal()).await {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("strata: the server failed: {e}");
            1
        }
    }
}

/// Ctrl-C or SIGTERM.
async fn stop_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = term => {}
    }
}
