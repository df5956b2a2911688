//! Config: the user's and the project's `strata.json`, merged, with a typed view.
//!
//! Files are read in order of precedence, later winning: the user file
//! (`<config dir>/strata.json`), then the project's `<instance dir>/strata.json` and
//! `<instance dir>/.strata/strata.json`. Objects are merged deeply; a key that appears again keeps
//! its first position, so the order of the `permission` map is the order keys were first seen.
//! Each file is checked on its own, so an error names the file at fault.

mod backend;
mod fields;
mod mcp;
mod parse;
pub mod websearch;

pub use mcp::{DEFAULT_CALL_TIMEOUT, DEFAULT_CONNECT_TIMEOUT, McpServer, McpTransport};

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};
use strata_graph::{BoxError, Node, Scope, Tier};

use crate::flags::RuntimeFlags;
use crate::instance::InstanceInfo;
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
    pub shell: Option<String>,
    /// The `permission` map as written, in key order (spec §0.5 "From config").
    pub permission: Option<Map<String, Value>>,
    pub tool_output: ToolOutput,
    pub tools: ToolsConfig,
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
            shell: None,
            permission: None,
            tool_output: ToolOutput::default(),
            tools: ToolsConfig::default(),
            provider: Map::new(),
            experimental: Experimental::default(),
            mcp: Vec::new(),
            mcp_trust: Vec::new(),
            websearch: WebsearchConfig::default(),
            skills: SkillsConfig::default(),
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
    /// The files read, in precedence order (lowest first).
    pub fn candidate_files(info: &InstanceInfo, flags: &RuntimeFlags) -> Vec<PathBuf> {
        vec![
            flags.config_dir.join(FILE_NAME),
            info.directory.join(FILE_NAME),
            info.directory.join(".strata").join(FILE_NAME),
        ]
    }

    /// Reads and merges every existing config file; missing files are skipped.
    pub fn load(info: &InstanceInfo, flags: &RuntimeFlags) -> Result<Config, ConfigError> {
        let mut merged = Value::Object(Map::new());
        let mut files = Vec::new();
        for path in Self::candidate_files(info, flags) {
            let Some(value) = read_file(&path)? else {
                continue;
            };
            let file = path.display().to_string();
            parse::typed(&value).map_err(|e| e.in_file(&file))?;
            merge(&mut merged, value);
            files.push(path);
        }
        let data = parse::typed(&merged).map_err(|e| e.in_file("(merged configuration)"))?;
        Ok(Config {
            data: Arc::new(data),
            files: Arc::new(files),
        })
    }

    /// A configuration from one JSON document (tests, inline config).
    pub fn from_value(value: Value) -> Result<Config, ConfigError> {
        let data = parse::typed(&value).map_err(|e| e.in_file("(inline configuration)"))?;
        Ok(Config {
            data: Arc::new(data),
            files: Arc::new(Vec::new()),
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
}

/// Reads one file; `None` when it does not exist. An empty file counts as `{}`.
fn read_file(path: &Path) -> Result<Option<Value>, ConfigError> {
    let file = || path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(ConfigError::Read {
                file: file(),
                source,
            });
        }
    };
    if text.trim().is_empty() {
        return Ok(Some(Value::Object(Map::new())));
    }
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| ConfigError::Syntax {
            file: file(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })
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
