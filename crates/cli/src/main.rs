//! The `strata` command line. Thin: parses, builds the graph, renders, never writes files itself.

mod args;
mod ask;
mod cmd;
mod render;
mod signals;
mod telemetry;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    let _ = rustls::crypto::ring::default_provider().install_default();
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
    let telemetry = {
        let _inside = runtime.enter();
        telemetry::init(&strata_services::flags::RuntimeFlags::from_env().data_dir)
    };
    let code = runtime.block_on(cmd::dispatch(cli));
    // The runtime still runs here, so the last spans can be sent on it.
    telemetry.shutdown();
    ExitCode::from(code)
}
