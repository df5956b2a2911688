//! One module per command; each returns the process exit code (0 ok, 1 failed, 2 usage).

mod acp;
mod agents;
mod attach;
mod auth;
mod config;
mod consumers;
mod debug;
mod default_model;
pub(crate) mod hooks;
mod instance;
mod local_client;
mod mcp;
mod mcp_serve;
mod models;
mod models_view;
mod run;
mod secret;
pub(crate) mod serve;
mod session;
mod skills;
mod tool;
mod tools;
pub(crate) mod tui;
mod worktree;

use crate::args::{Cli, Command, DebugCommand};

pub(crate) async fn dispatch(cli: Cli) -> u8 {
    let Some(command) = cli.command else {
        return tui::local(cli.dir, cli.session, cli.sandbox, cli.worktree).await;
    };
    match command {
        Command::Attach(args) => tui::attach(args).await,
        Command::Run(args) if args.attach.is_some() => attach::run(args).await,
        Command::Run(args) => run::run(args).await,
        Command::Serve(args) => serve::serve(args).await,
        Command::Tool(args) => tool::tool(args).await,
        Command::Tools(args) => tools::tools(args).await,
        Command::Session { command } => session::session(command).await,
        Command::Hooks { command } => hooks::hooks(command).await,
        Command::Mcp(args) => match args.command {
            Some(command) => mcp::mcp(command).await,
            None => mcp_serve::serve(args.serve).await,
        },
        Command::Acp(args) => acp::serve(args).await,
        Command::Skills(args) => skills::skills(args).await,
        Command::Auth { command } => auth::auth(command).await,
        Command::Models(args) => models::models(args).await,
        Command::Worktree { command } => worktree::worktree(command).await,
        Command::Debug {
            command: DebugCommand::Graph { dir, without },
        } => debug::graph(dir, without).await,
        Command::Debug {
            command:
                DebugCommand::Sandbox {
                    dir,
                    sandbox,
                    format,
                },
        } => debug::sandbox(dir, sandbox, format).await,
        Command::Debug {
            command: DebugCommand::Config { dir, format },
        } => config::config(dir, format),
    }
}
