//! Command-line arguments.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser, Debug)]
#[command(
    name = "strata",
    version,
    about = "A coding agent whose every capability is a typed service."
)]
pub(crate) struct Cli {
    /// Without a command: the terminal UI for the current directory.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The project the UI opens (no command only).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// The session the UI opens (no command only).
    #[arg(long)]
    pub session: Option<String>,
    /// Sandbox for the commands the model runs: workspace-write, read-only or off (default:
    /// the config's `sandbox.mode`, else workspace-write).
    #[arg(long, value_name = "MODE", value_parser = SANDBOX_MODES)]
    pub sandbox: Option<String>,
    /// Work in a git worktree of its own, `<data>/worktrees/<project>/NAME` on the branch
    /// `strata/NAME` from HEAD (a generated name when NAME is left out; an existing Strata
    /// worktree of that name is reused). No command only.
    #[arg(long, value_name = "NAME", num_args = 0..=1, default_missing_value = "")]
    pub worktree: Option<String>,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Run the agent on a message in a project.
    Run(RunArgs),
    /// Run one tool once, through the full wrapper.
    Tool(ToolArgs),
    /// List the tools a model sees, with their schemas.
    Tools(ToolsArgs),
    /// The skills found for a project, where each came from, and what discovery warned about.
    Skills(SkillsArgs),
    /// Claude Code-style hooks: `list` shows each hook, its file and whether it is trusted;
    /// `trust` lets the project's own hooks run.
    Hooks {
        #[command(subcommand)]
        command: HooksCommand,
    },
    /// Stored sessions.
    Session {
        #[command(subcommand)]
        command: SessionCommand,
    },
    /// Serve the project's tools over MCP (stdio, or `--http`); `mcp list`: the MCP servers
    /// Strata uses as a client.
    Mcp(McpArgs),
    /// Be an Agent Client Protocol agent on stdio, for editors such as Zed.
    Acp(AcpArgs),
    /// The terminal UI on a running `strata serve`.
    Attach(AttachArgs),
    /// Serve the HTTP + SSE API (opencode's clients can attach to it).
    Serve(ServeArgs),
    /// API keys for model providers, kept in the data directory.
    Auth {
        #[command(subcommand)]
        command: AuthCommand,
    },
    /// The models Strata can use now, with their limits and prices.
    Models(ModelsArgs),
    /// The git worktrees Strata made for this repository (`--worktree`, isolated subagents).
    Worktree {
        #[command(subcommand)]
        command: WorktreeCommand,
    },
    /// Look inside Strata.
    Debug {
        #[command(subcommand)]
        command: DebugCommand,
    },
}

#[derive(Clone, Copy, Debug, Default, ValueEnum, PartialEq, Eq)]
pub(crate) enum Format {
    #[default]
    Default,
    Json,
}

/// The values `--answers` takes.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub(crate) enum Answers {
    Stdin,
}

#[derive(clap::Args, Debug)]
pub(crate) struct RunArgs {
    /// `provider/model`, e.g. `openai/gpt-5` or `anthropic/claude-sonnet-4`.
    #[arg(long, short)]
    pub model: Option<String>,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Allow every permission not denied by a rule.
    #[arg(long)]
    pub yes: bool,
    /// Where replies to permission asks and questions come from: `stdin` reads one JSON line
    /// per reply (needs `--format json`, which prints each ask as a line; see the README).
    #[arg(long, value_enum, conflicts_with = "yes")]
    pub answers: Option<Answers>,
    /// Resume the last session in this directory.
    #[arg(long, short = 'c', conflicts_with = "session")]
    pub r#continue: bool,
    /// Resume the session with this id.
    #[arg(long, short)]
    pub session: Option<String>,
    /// Project directory (default: the current directory).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Most model steps in this run.
    #[arg(long, default_value_t = 50)]
    pub max_steps: u32,
    /// The agent to run as (`build` by default; `plan` plans without editing).
    #[arg(long)]
    pub agent: Option<String>,
    /// How hard the model reasons: minimal, low, medium, high, max, or a variant named in
    /// the config (`provider.<id>.models.<model>.variants`).
    #[arg(long)]
    pub variant: Option<String>,
    /// Run on a `strata serve` at this URL instead of in this process.
    #[arg(long)]
    pub attach: Option<String>,
    /// Sandbox for the commands the model runs: workspace-write, read-only or off (default:
    /// the config's `sandbox.mode`, else workspace-write).
    #[arg(long, value_name = "MODE", value_parser = SANDBOX_MODES)]
    pub sandbox: Option<String>,
    /// Run an MCP prompt as the message: `server:prompt`. The words after the options fill
    /// the prompt's arguments, in order or as `name=value`.
    #[arg(long, value_name = "SERVER:PROMPT", conflicts_with = "attach")]
    pub command: Option<String>,
    /// Run in a git worktree of its own, `<data>/worktrees/<project>/NAME` on the branch
    /// `strata/NAME` from HEAD (a generated name when NAME is left out; an existing Strata
    /// worktree of that name is reused). Put it last, or use `--worktree=NAME`, so the
    /// message is not taken for the name.
    #[arg(
        long,
        value_name = "NAME",
        num_args = 0..=1,
        default_missing_value = "",
        conflicts_with = "attach"
    )]
    pub worktree: Option<String>,
    /// The message (with `--command`: the prompt's arguments).
    #[arg(required_unless_present = "command")]
    pub message: Vec<String>,
}

#[derive(Subcommand, Debug)]
pub(crate) enum WorktreeCommand {
    /// This repository's Strata worktrees: name, branch, uncommitted changes, folder.
    List {
        /// A folder in the repository (default: the current directory).
        #[arg(long)]
        dir: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Remove a worktree (and its branch, unless it has unmerged commits).
    Remove {
        /// The worktree's name (or its folder).
        name: String,
        /// Remove it even with uncommitted changes, which are lost.
        #[arg(long)]
        force: bool,
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

#[derive(clap::Args, Debug)]
pub(crate) struct ToolArgs {
    /// The tool's id, e.g. `read`.
    pub name: String,
    /// The arguments as JSON, e.g. '{"filePath":"src/main.rs"}'.
    #[arg(default_value = "{}")]
    pub args: String,
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Allow every permission not denied by a rule.
    #[arg(long)]
    pub yes: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(clap::Args, Debug)]
pub(crate) struct ToolsArgs {
    /// The model the surface is for (patch models get `apply_patch`).
    #[arg(long, default_value = "anthropic/claude-sonnet-4")]
    pub model: String,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// List what a run on a terminal sees (with `question`); by default, what a run without
    /// one sees.
    #[arg(long)]
    pub interactive: bool,
    /// The agent whose surface to list (`build` by default).
    #[arg(long)]
    pub agent: Option<String>,
}

#[derive(clap::Args, Debug)]
pub(crate) struct SkillsArgs {
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub(crate) enum HooksCommand {
    /// Every configured hook: event, matcher, command, source file, trusted or not.
    List {
        #[arg(long, value_enum, default_value_t)]
        format: Format,
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Trust the project's hooks as they are now; a later change asks again.
    Trust {
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

#[derive(Subcommand, Debug)]
pub(crate) enum SessionCommand {
    /// Sessions, newest first.
    List {
        #[arg(long)]
        dir: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// A session's messages.
    Show { id: String },
    /// A session as JSON.
    Export { id: String },
}

/// `strata mcp [list]`: without a subcommand, serve.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct McpArgs {
    #[command(subcommand)]
    pub command: Option<McpCommand>,
    #[command(flatten)]
    pub serve: McpServeArgs,
}

/// Serving Strata's tools over MCP: stdio by default (MCP only on stdout, logs on stderr).
#[derive(clap::Args, Debug)]
pub(crate) struct McpServeArgs {
    /// Project directory (default: the current directory).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// The agent whose tools and rules are served (default: build).
    #[arg(long)]
    pub agent: Option<String>,
    /// Allow every permission not denied by a rule (otherwise asks are refused).
    #[arg(long)]
    pub yes: bool,
    /// Serve streamable HTTP at `http://ADDR/mcp` instead of stdio, e.g. `127.0.0.1:0`.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
}

/// `strata acp`: an ACP agent on stdio (ACP only on stdout; logs in the log file and stderr).
#[derive(clap::Args, Debug)]
pub(crate) struct AcpArgs {
    /// The project used when the editor names none (default: the current directory).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Sandbox for the commands the model runs: workspace-write, read-only or off (default:
    /// the config's `sandbox.mode`, else workspace-write).
    #[arg(long, value_name = "MODE", value_parser = SANDBOX_MODES)]
    pub sandbox: Option<String>,
}

#[derive(Subcommand, Debug)]
pub(crate) enum McpCommand {
    /// Each configured server, its status and its tool count.
    List {
        #[arg(long)]
        dir: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
}

#[derive(Subcommand, Debug)]
pub(crate) enum AuthCommand {
    /// Store an API key for a provider; the key is read from the terminal without echo, or
    /// from stdin when it is not a terminal.
    Login {
        /// The provider id, e.g. `groq` (asked for when left out).
        provider: Option<String>,
        /// Store the key even for an id neither the catalogue nor the config knows.
        #[arg(long)]
        force: bool,
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// The providers with a stored key, and those whose key variable is set.
    List {
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Remove the stored key of a provider.
    Logout { provider: String },
}

#[derive(clap::Args, Debug)]
pub(crate) struct ModelsArgs {
    /// Only this provider's models.
    pub provider: Option<String>,
    /// Every known provider, with what each one still needs.
    #[arg(long)]
    pub all: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub(crate) enum DebugCommand {
    /// Every service node with its key, tier and dependencies.
    Graph {
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Leave out the node with this key, to see what would then be missing.
        #[arg(long, value_name = "KEY")]
        without: Vec<String>,
    },
    /// The sandbox: the kernel's Landlock ABI and the rights enforced, seccomp, the effective
    /// mode and the writable paths for this project.
    Sandbox {
        #[arg(long)]
        dir: Option<PathBuf>,
        #[arg(long, value_name = "MODE", value_parser = SANDBOX_MODES)]
        sandbox: Option<String>,
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// The merged config (secrets hidden) and the file each setting came from.
    Config {
        #[arg(long)]
        dir: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
}

/// The values `--sandbox` takes.
pub(crate) const SANDBOX_MODES: [&str; 3] = ["workspace-write", "read-only", "off"];

/// `strata attach URL`: the TUI on a running server.
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

/// `strata serve`.
#[derive(clap::Args, Debug)]
pub(crate) struct ServeArgs {
    /// Port to listen on; 0 tries 4096 first, then any free port.
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub hostname: String,
    /// The project used when a request names none (default: the current directory).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Browser origins allowed besides localhost ones.
    #[arg(long, num_args = 1..)]
    pub cors: Vec<String>,
    /// Listen on a non-loopback address without a password anyway.
    #[arg(long = "i-know-it-is-public")]
    pub public: bool,
    /// Sandbox for the commands the model runs: workspace-write, read-only or off.
    #[arg(long, value_name = "MODE", value_parser = SANDBOX_MODES)]
    pub sandbox: Option<String>,
}
