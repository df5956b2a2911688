//! The `sandbox` config section: how tightly the commands the model runs are held (see
//! `docs/sandbox.md`). Only the settings live here; the process module enforces them.

use serde_json::{Map, Value};

use super::fields::{FieldError, boolean, get, object, string, strings, wrong};

/// How much a sandboxed command may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SandboxMode {
    /// Writes only in the project, the temp directories and `sandbox.writable`.
    WorkspaceWrite,
    /// Writes only in the temp directories.
    ReadOnly,
    /// No sandbox: commands run as the user.
    Off,
}

impl SandboxMode {
    /// The name used in config, on the command line and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::Off => "off",
        }
    }

    /// Reads a mode name; `None` for anything else.
    pub fn parse(name: &str) -> Option<SandboxMode> {
        match name.trim() {
            "workspace-write" => Some(SandboxMode::WorkspaceWrite),
            "read-only" => Some(SandboxMode::ReadOnly),
            "off" => Some(SandboxMode::Off),
            _ => None,
        }
    }
}

impl std::fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `sandbox` section as written (absent fields keep their defaults).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxConfig {
    /// `sandbox.mode`; `None` means the default (workspace-write where the kernel can).
    pub mode: Option<SandboxMode>,
    /// `sandbox.network`: IP sockets allowed. Default `true`.
    pub network: bool,
    /// `sandbox.writable`: more writable paths (`~/` and relative entries resolved later).
    pub writable: Vec<String>,
    /// `sandbox.env_passthrough`: secret variables the user wants commands to see anyway.
    pub env_passthrough: Vec<String>,
    /// `sandbox.auto_allow`: an `ask` for sandboxed bash becomes an allow. Default `true`.
    pub auto_allow: bool,
    /// `sandbox.required`: refuse to start when the sandbox cannot be enforced.
    pub required: bool,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            mode: None,
            network: true,
            writable: Vec::new(),
            env_passthrough: Vec::new(),
            auto_allow: true,
            required: false,
        }
    }
}

/// Reads and checks the `sandbox` section of a config document.
pub(super) fn section(root: &Map<String, Value>) -> Result<SandboxConfig, FieldError> {
    let Some(s) = object(root, "sandbox", "sandbox")? else {
        return Ok(SandboxConfig::default());
    };
    let mode = match string(s, "mode", "sandbox.mode")? {
        None => None,
        Some(name) => Some(SandboxMode::parse(&name).ok_or_else(|| {
            wrong(
                "sandbox.mode",
                "one of \"workspace-write\", \"read-only\", \"off\"",
                &Value::String(name),
            )
        })?),
    };
    let defaults = SandboxConfig::default();
    Ok(SandboxConfig {
        mode,
        network: boolean(s, "network", "sandbox.network")?.unwrap_or(defaults.network),
        writable: strings(
            get(s, "writable"),
            "sandbox.writable",
            "a string (a path)",
            "an array of paths",
        )?,
        env_passthrough: strings(
            get(s, "env_passthrough"),
            "sandbox.env_passthrough",
            "a string (a variable name)",
            "an array of variable names",
        )?,
        auto_allow: boolean(s, "auto_allow", "sandbox.auto_allow")?.unwrap_or(defaults.auto_allow),
        required: boolean(s, "required", "sandbox.required")?.unwrap_or(defaults.required),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> Result<SandboxConfig, FieldError> {
        section(v.as_object().unwrap())
    }

    #[test]
    fn absent_section_gives_the_defaults() {
        let c = read(json!({})).unwrap();
        assert_eq!(c, SandboxConfig::default());
        assert!(c.network && c.auto_allow && !c.required && c.mode.is_none());
    }

    #[test]
    fn every_field_is_read() {
        let c = read(json!({"sandbox": {
            "mode": "read-only", "network": false, "writable": ["~/.cache/x", "../shared"],
            "env_passthrough": ["OPENAI_API_KEY"], "auto_allow": false, "required": true
        }}))
        .unwrap();
        assert_eq!(c.mode, Some(SandboxMode::ReadOnly));
        assert!(!c.network && !c.auto_allow && c.required);
        assert_eq!(c.writable, ["~/.cache/x", "../shared"]);
        assert_eq!(c.env_passthrough, ["OPENAI_API_KEY"]);
    }

    #[test]
    fn wrong_values_name_the_field() {
        let e = read(json!({"sandbox": {"mode": "strict"}})).unwrap_err();
        assert_eq!(e.field, "sandbox.mode");
        assert!(e.found.contains("strict"), "{}", e.found);
        assert_eq!(read(json!({"sandbox": true})).unwrap_err().field, "sandbox");
        let e = read(json!({"sandbox": {"network": "no"}})).unwrap_err();
        assert_eq!(e.field, "sandbox.network");
        let e = read(json!({"sandbox": {"writable": [1]}})).unwrap_err();
        assert_eq!(e.field, "sandbox.writable[0]");
    }

    #[test]
    fn mode_names_round_trip() {
        for m in [
            SandboxMode::WorkspaceWrite,
            SandboxMode::ReadOnly,
            SandboxMode::Off,
        ] {
            assert_eq!(SandboxMode::parse(m.as_str()), Some(m));
        }
        assert_eq!(SandboxMode::parse("on"), None);
    }
}
