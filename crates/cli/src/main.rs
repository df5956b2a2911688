//! The `strata` command line. Thin: parses, builds the graph, renders, never writes files itself.

mod args;
mod ask;
mod cmd;
mod render;
mod signals;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    let _ = rustls::crypto::ring::default_provider().install_default();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("STRATA_LOG")
                // rmcp warns about replies it cannot send while a server shuts down: noise.
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,rmcp=error")),
        )
        .with_writer(std::io::stderr)
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("strata: could not start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let code = runtime.block_on(cmd::dispatch(cli));
    ExitCode::from(code)
}
