//! Hooks in Claude Code's shape: the user's own commands, run at the agent's events
//! (`PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `Stop`, …) with a JSON object on stdin,
//! answering with an exit code and optionally JSON on stdout. They come from the `hooks` key
//! of Strata's config and from `.claude/settings*.json` (see [`config`]); the project's own
//! hooks run only once the user has trusted them ([`trust`]).
//!
//! Pure pieces, each with its tests: reading the config ([`config`]), matching tool names
//! with Claude Code's names ([`matcher`]), the stdin object ([`input`]), what a run means
//! ([`outcome`]). [`runner`] runs one command through the [`ChildProcessSpawner`]
//! (outside the sandbox: hooks are the user's commands, not the model's).
//!
//! [`ChildProcessSpawner`]: crate::process::ChildProcessSpawner

pub mod config;
pub mod input;
pub mod matcher;
pub mod outcome;
pub mod runner;
mod service;
pub mod trust;

use std::time::Duration;

pub use config::{HookConfigError, HookSet, parse_hooks};
pub use matcher::Matcher;
pub use outcome::{Decision, HookOutcome, RunResult, interpret};
pub use service::{HookEntry, HookRun, HookSources, Hooks};

/// How long a hook may run when its config names no `timeout` (Claude Code's default).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The events a hook can be attached to, by Claude Code's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HookEvent {
    PreToolUse,
    PostToolUse,
    UserPromptSubmit,
    Stop,
    SubagentStop,
    SessionStart,
    SessionEnd,
    PreCompact,
    Notification,
}

impl HookEvent {
    pub const ALL: [HookEvent; 9] = [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::UserPromptSubmit,
        HookEvent::Stop,
        HookEvent::SubagentStop,
        HookEvent::SessionStart,
        HookEvent::SessionEnd,
        HookEvent::PreCompact,
        HookEvent::Notification,
    ];

    /// The name in config files and in the `hook_event_name` field.
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::Stop => "Stop",
            HookEvent::SubagentStop => "SubagentStop",
            HookEvent::SessionStart => "SessionStart",
            HookEvent::SessionEnd => "SessionEnd",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::Notification => "Notification",
        }
    }

    /// Reads an event name as written in config.
    pub fn parse(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Whether groups of this event filter on a tool name with their `matcher`.
    pub fn matches_tools(self) -> bool {
        matches!(self, HookEvent::PreToolUse | HookEvent::PostToolUse)
    }
}

impl std::fmt::Display for HookEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One command of a hook group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookCommand {
    /// Run with `sh -c` in the project directory.
    pub command: String,
    pub timeout: Duration,
}

/// Where a set of hooks was written, which decides whether it needs the user's trust.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Origin {
    /// The user's own files (`~/.config/strata/strata.json`, `~/.claude/settings.json`):
    /// trusted as written.
    User(String),
    /// A file in the project: runs only once trusted.
    Project(String),
}

impl Origin {
    /// The file the hooks were read from, for messages.
    pub fn file(&self) -> &str {
        match self {
            Origin::User(f) | Origin::Project(f) => f,
        }
    }

    pub fn is_project(&self) -> bool {
        matches!(self, Origin::Project(_))
    }
}
