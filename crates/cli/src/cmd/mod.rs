//! One module per command; each returns the process exit code (0 ok, 1 failed, 2 usage).

mod agents;
mod debug;
mod instance;
mod mcp;
mod run;
mod session;
mod skills;
mod tool;
mod tools;

use crate::args::{Cli, Command, DebugCommand};

pub(crate) async fn dispatch(cli: Cli) -> u8 {
    match cli.command {
        Command::Run(args) => run::run(args).await,
        Command::Tool(args) => tool::tool(args).await,
        Command::Tools(args) => tools::tools(args).await,
        Command::Session { command } => session::session(command).await,
        Command::Mcp { command } => mcp::mcp(command).await,
        Command::Skills(args) => skills::skills(args).await,
        Command::Debug {
            command: DebugCommand::Graph { dir, without },
        } => debug::graph(dir, without).await,
    }
}
