//! Config: Strata's `strata.json` files and opencode's `opencode.json` files, merged, with a
//! typed view, the source of every top-level setting and warnings about unknown keys.
//!
//! Sources, lowest precedence first (a later source wins; objects are merged key by key):
//! 1. opencode's global files: `opencode.json`, `opencode.jsonc`, `config.json` in
//!    `$XDG_CONFIG_HOME/opencode` (else `~/.config/opencode`);
//! 2. Strata's global file, `<config dir>/strata.json` (`~/.config/strata`);
//! 3. the file `OPENCODE_CONFIG` names (relative to the instance directory);
//! 4. for each folder from the worktree root down to the instance directory: `opencode.json`,
//!    `opencode.jsonc`, `.opencode/opencode.json`, `.opencode/opencode.jsonc`, then
//!    `strata.json` and `.strata/strata.json`. So in each folder Strata's own files win over
//!    opencode's, key by key, and a deeper folder wins over the ones above it;
//! 5. `OPENCODE_CONFIG_CONTENT` (inline JSON) comes after every opencode file, the instance
//!    directory's included, and just before that directory's `strata.json` and
//!    `.strata/strata.json`: it overrides every opencode file and every file of the folders
//!    above, but the `strata.json` files of the directory Strata runs in still win, key by key.
//!
//! Every file may hold comments and trailing commas ([`jsonc`]); every string value may use
//! `{env:VAR}` and `{file:path}` ([`subst`]). Each source is checked on its own, so an error
//! names the source at fault. A key that appears again keeps its first position, so the order
//! of the `permission` map is the order keys were first seen. A top-level key neither Strata
//! nor opencode knows is a warning ([`Config::warnings`]), not an error.

mod backend;
pub mod discovery;
mod fields;
mod jsonc;
mod known;
mod load;
mod mcp;
mod parse;
mod provenance;
mod providers;
mod redact;
pub mod sandbox;
mod subst;
pub mod tool_surface;
pub mod websearch;

pub use discovery::{OPENCODE_CONFIG, OPENCODE_CONFIG_CONTENT, Source};
/// JSONC to JSON (comments and trailing commas blanked, positions kept), for callers that read
/// config text themselves (the fuzz target).
pub use jsonc::strip as strip_jsonc;
pub use mcp::{DEFAULT_CALL_TIMEOUT, DEFAULT_CONNECT_TIMEOUT, McpServer, McpTransport};
pub use redact::{HIDDEN, redact_secrets};

use std::ops::Deref;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Map, Value};
use strata_graph::{BoxError, Node, Scope, Tier};

use crate::flags::RuntimeFlags;
use crate::instance::InstanceInfo;
pub use sandbox::{SandboxConfig, SandboxMode};
pub use tool_surface::{DeferMode, DeferThreshold, ToolSurfaceConfig};
pub use websearch::{SearchBackend, WebsearchConfig};

/// The name of a config file, in the user config dir and the project.
pub const FILE_NAME: &str = "strata.json";

/// Limits for the truncation of tool output (spec §0.6).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolOutput {
    pub max_lines: Option<usize>,
    pub max_bytes: Option<usize>,
}

/// Switches for built-in tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolsConfig {
    /// `edit`/`write` refuse to change a file the session has not read. Default `true`.
    pub read_before_edit: bool,
}

impl Default for ToolsConfig {
    fn default() -> Self {
        Self {
            read_before_edit: true,
        }
    }
}

/// Experimental switches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Experimental {
    /// Keep the agent loop going after a rejected permission or dismissed question.
    pub continue_loop_on_deny: bool,
}

/// The `snapshot` section (undo points). opencode writes `snapshot` as a boolean; that form is
/// accepted and keeps the defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotConfig {
    /// `snapshot.max_mb`: the most each project's snapshot store may take on disk, in MiB.
    pub max_mb: u64,
}

impl Default for SnapshotConfig {
    fn default() -> Self {
        Self {
            max_mb: crate::snapshot::DEFAULT_MAX_MB,
        }
    }
}

impl SnapshotConfig {
    /// The budget in bytes.
    pub fn max_bytes(&self) -> u64 {
        self.max_mb.saturating_mul(1024 * 1024)
    }
}

/// Where to look for skills beyond the standard directories.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillsConfig {
    /// `skills.paths`: directories searched for `**/SKILL.md`, as written (`~/` not expanded,
    /// relative entries not resolved; the Skills service does both).
    pub paths: Vec<String>,
}

/// The typed view of the merged configuration. Unknown keys are ignored (kept in `raw`).
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigData {
    pub model: Option<String>,
    /// `small_model`: `provider/model` for side tasks such as compaction summaries.
    pub small_model: Option<String>,
    /// `enabled_providers`: when set, only these providers may be used.
    pub enabled_providers: Option<Vec<String>>,
    /// `disabled_providers`: providers never used (wins over `enabled_providers`).
    pub disabled_providers: Vec<String>,
    pub shell: Option<String>,
    /// The `permission` map as written, in key order (spec §0.5 "From config").
    pub permission: Option<Map<String, Value>>,
    pub tool_output: ToolOutput,
    pub tools: ToolsConfig,
    /// The `tool_surface` section: when MCP tools are deferred, how `execute` is offered, and
    /// the opt-in tools (`transaction`).
    pub tool_surface: ToolSurfaceConfig,
    /// Provider settings, uninterpreted (base URLs, keys, options).
    pub provider: Map<String, Value>,
    pub experimental: Experimental,
    /// The MCP servers under `mcp`, in config order.
    pub mcp: Vec<McpServer>,
    /// Servers whose tools' `readOnlyHint` is believed (`mcp_trust`).
    pub mcp_trust: Vec<String>,
    /// The `websearch` section: the search endpoint, its key, whether the tool is shown.
    pub websearch: WebsearchConfig,
    pub skills: SkillsConfig,
    /// The `sandbox` section: how the commands the model runs are held.
    pub sandbox: SandboxConfig,
    /// The `snapshot` section: the size budget of the undo store.
    pub snapshot: SnapshotConfig,
    /// `instructions`: more instruction files for the system prompt, paths or globs as written
    /// (relative to the instance directory, `~/` for home; the Instructions service resolves).
    pub instructions: Vec<String>,
    /// The whole merged document.
    pub raw: Value,
}

impl Default for ConfigData {
    fn default() -> Self {
        Self {
            model: None,
            small_model: None,
            enabled_providers: None,
            disabled_providers: Vec::new(),
            shell: None,
            permission: None,
            tool_output: ToolOutput::default(),
            tools: ToolsConfig::default(),
            tool_surface: ToolSurfaceConfig::default(),
            provider: Map::new(),
            experimental: Experimental::default(),
            mcp: Vec::new(),
            mcp_trust: Vec::new(),
            websearch: WebsearchConfig::default(),
            skills: SkillsConfig::default(),
            sandbox: SandboxConfig::default(),
            snapshot: SnapshotConfig::default(),
            instructions: Vec::new(),
            raw: Value::Object(Map::new()),
        }
    }
}

/// Why the configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("could not read the config file {file}: {source}; check that it is a readable file")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the config file {file} is not valid JSON (line {line}, column {column}: {message}); \
         fix the syntax there or remove the file"
    )]
    Syntax {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "the config {file} refers to `{{file:{written}}}`, but {path} could not be read \
         ({source}); create that file or change the value"
    )]
    Substitution {
        file: String,
        written: String,
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "in the config file {file}, `{field}` must be {expected}, but it is {found}; \
         change or remove that field"
    )]
    Field {
        file: String,
        field: String,
        expected: &'static str,
        found: String,
    },
}

/// Handle to an instance's configuration. Dereferences to [`ConfigData`].
#[derive(Debug, Clone, Default)]
pub struct Config {
    data: Arc<ConfigData>,
    files: Arc<Vec<PathBuf>>,
    sources: Arc<Vec<(String, String)>>,
    warnings: Arc<Vec<String>>,
}

impl strata_graph::Service for Config {
    const KEY: &'static str = "Config";
}

impl Deref for Config {
    type Target = ConfigData;
    fn deref(&self) -> &ConfigData {
        &self.data
    }
}

impl Config {
    /// Reads and merges every source, reading the process environment (`OPENCODE_CONFIG`,
    /// `OPENCODE_CONFIG_CONTENT`, `{env:…}`).
    pub fn load(info: &InstanceInfo, flags: &RuntimeFlags) -> Result<Config, ConfigError> {
        Self::load_with(info, flags, &|name| std::env::var(name).ok())
    }

    /// Like [`Config::load`], with `env` as the environment (tests pass their own).
    pub fn load_with(
        info: &InstanceInfo,
        flags: &RuntimeFlags,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let loaded = load::load(info, flags, env)?;
        let data = parse::typed(&loaded.merged).map_err(|e| e.in_file("(merged configuration)"))?;
        Ok(Config {
            data: Arc::new(data),
            files: Arc::new(loaded.files),
            sources: Arc::new(loaded.sources),
            warnings: Arc::new(loaded.warnings),
        })
    }

    /// A configuration from one JSON document (tests, inline config), taken as written: no
    /// substitution, no sources.
    pub fn from_value(value: Value) -> Result<Config, ConfigError> {
        let data = parse::typed(&value).map_err(|e| e.in_file("(inline configuration)"))?;
        Ok(Config {
            data: Arc::new(data),
            ..Config::default()
        })
    }

    /// The instance-tier node: needs [`InstanceInfo`] and [`RuntimeFlags`].
    pub fn node() -> Node {
        Node::new(
            Tier::Instance,
            |(info, flags): (InstanceInfo, RuntimeFlags), _scope: Scope| async move {
                Ok::<_, BoxError>(Config::load(&info, &flags)?)
            },
        )
    }

    pub fn data(&self) -> &ConfigData {
        &self.data
    }

    /// The files that were found and merged, lowest precedence first.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// `(key, source)`: for each top-level key, and each entry of `provider`, `mcp`, `agent` and
    /// `permission` (as `provider.<id>`), the last source that set it, in the merged order.
    pub fn sources(&self) -> &[(String, String)] {
        &self.sources
    }

    /// What loading warned about (unknown keys, a missing `OPENCODE_CONFIG` file), each naming
    /// the key and the source. Front-ends print them once.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

/// Merges `over` into `base`: objects key by key (recursively), anything else replaced.
/// A key already in `base` keeps its position.
pub fn merge(base: &mut Value, over: Value) {
    match (base, over) {
        (Value::Object(base), Value::Object(over)) => {
            for (key, value) in over {
                match base.get_mut(&key) {
                    Some(existing) if existing.is_object() && value.is_object() => {
                        merge(existing, value)
                    }
                    _ => {
                        base.insert(key, value);
                    }
                }
            }
        }
        (base, over) => *base = over,
    }
}
