//! The `tool_surface` section and `mcp.<name>.defer`: when the tools of MCP servers are
//! deferred (only their names sent, schemas loaded through `tool_search`), and how `execute`
//! (tool programs) is offered.
//!
//! `tool_surface.defer_threshold`: a number up to 1 is a share of the model's context window
//! (default `0.1`); a number above 1 is a count of tokens.
//! `tool_surface.execute`: `true` offers `execute` (tool programs); off by default.
//! `tool_surface.execute_timeout`: a program's wall-time limit in milliseconds (default 30 s).
//! `tool_surface.transaction`: `true` offers the edit transaction tool on the edit-tool surface.

use std::time::Duration;

use serde_json::{Map, Value};

use super::fields::{FieldError, boolean, get, object, positive_as, wrong};

/// When the MCP tools are deferred: past this many estimated tokens of their schemas together.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DeferThreshold {
    /// A share of the model's context window (0 < share ≤ 1).
    Share(f64),
    /// A number of tokens.
    Tokens(u64),
}

impl Default for DeferThreshold {
    fn default() -> Self {
        DeferThreshold::Share(0.1)
    }
}

impl DeferThreshold {
    /// The threshold in tokens for a model whose context window is `window` tokens.
    pub fn tokens(self, window: u64) -> u64 {
        match self {
            // Windows are far below 2^52 tokens, so the float holds them exactly.
            DeferThreshold::Share(share) => (window as f64 * share) as u64,
            DeferThreshold::Tokens(n) => n,
        }
    }
}

/// `mcp.<name>.defer`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DeferMode {
    /// Deferred once all MCP schemas together pass the threshold.
    #[default]
    Auto,
    Always,
    Never,
}

/// The default wall-time limit of one tool program.
pub const DEFAULT_EXECUTE_TIMEOUT: Duration = Duration::from_secs(30);

/// The `tool_surface` section.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSurfaceConfig {
    pub defer_threshold: DeferThreshold,
    /// `Some(true)` offers `execute`; unset or `false` does not.
    pub execute: Option<bool>,
    /// A tool program's wall-time limit.
    pub execute_timeout: Duration,
    /// `tool_surface.transaction`: offer the `transaction` tool on the edit-tool surface.
    pub transaction: bool,
}

impl ToolSurfaceConfig {
    /// Whether the switch `name` (a key of the section) is on; unknown names are off.
    pub fn is_on(&self, name: &str) -> bool {
        match name {
            "transaction" => self.transaction,
            _ => false,
        }
    }
}

impl Default for ToolSurfaceConfig {
    fn default() -> Self {
        Self {
            defer_threshold: DeferThreshold::default(),
            execute: None,
            execute_timeout: DEFAULT_EXECUTE_TIMEOUT,
            transaction: false,
        }
    }
}

/// Reads `tool_surface`; errors name the field.
pub(super) fn section(root: &Map<String, Value>) -> Result<ToolSurfaceConfig, FieldError> {
    let empty = Map::new();
    let obj = object(root, "tool_surface", "tool_surface")?.unwrap_or(&empty);
    let defaults = ToolSurfaceConfig::default();
    let defer_threshold = match get(obj, "defer_threshold") {
        None => defaults.defer_threshold,
        Some(v) => threshold(v)?,
    };
    let timeout = positive_as(
        obj,
        "execute_timeout",
        "tool_surface.execute_timeout",
        "a positive number of milliseconds",
    )?;
    Ok(ToolSurfaceConfig {
        defer_threshold,
        execute: boolean(obj, "execute", "tool_surface.execute")?,
        execute_timeout: timeout.map_or(defaults.execute_timeout, Duration::from_millis),
        transaction: boolean(obj, "transaction", "tool_surface.transaction")?.unwrap_or(false),
    })
}

fn threshold(v: &Value) -> Result<DeferThreshold, FieldError> {
    let expected = "a share of the context window (above 0, up to 1) or a number of tokens";
    let field = "tool_surface.defer_threshold";
    match v.as_f64() {
        Some(x) if x > 0.0 && x <= 1.0 => Ok(DeferThreshold::Share(x)),
        Some(_) if v.as_u64().is_some_and(|n| n > 1) => {
            Ok(DeferThreshold::Tokens(v.as_u64().unwrap_or_default()))
        }
        _ => Err(wrong(field, expected, v)),
    }
}

/// Reads `mcp.<name>.defer` from a server's object.
pub(super) fn defer_mode(obj: &Map<String, Value>, name: &str) -> Result<DeferMode, FieldError> {
    match get(obj, "defer") {
        None => Ok(DeferMode::Auto),
        Some(Value::String(s)) if s == "auto" => Ok(DeferMode::Auto),
        Some(Value::String(s)) if s == "always" => Ok(DeferMode::Always),
        Some(Value::String(s)) if s == "never" => Ok(DeferMode::Never),
        Some(v) => Err(wrong(
            &format!("mcp.{name}.defer"),
            "\"auto\", \"always\" or \"never\"",
            v,
        )),
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use serde_json::json;

    use super::*;

    fn parse(v: Value) -> Result<ToolSurfaceConfig, String> {
        let Value::Object(root) = v else {
            unreachable!()
        };
        section(&root).map_err(|e| e.field)
    }

    #[test]
    fn defaults_share_and_tokens() {
        let d = parse(json!({})).unwrap();
        assert_eq!(d, ToolSurfaceConfig::default());
        assert_eq!(d.defer_threshold.tokens(200_000), 20_000);
        let share = parse(json!({"tool_surface": {"defer_threshold": 0.25}})).unwrap();
        assert_eq!(share.defer_threshold, DeferThreshold::Share(0.25));
        assert_eq!(
            parse(json!({"tool_surface": {"defer_threshold": 1}}))
                .unwrap()
                .defer_threshold,
            DeferThreshold::Share(1.0)
        );
        let tokens = parse(json!({"tool_surface": {"defer_threshold": 5000}})).unwrap();
        assert_eq!(tokens.defer_threshold.tokens(200_000), 5000);
        let exec =
            parse(json!({"tool_surface": {"execute": true, "execute_timeout": 500}})).unwrap();
        assert_eq!(exec.execute, Some(true));
        assert_eq!(exec.execute_timeout, Duration::from_millis(500));
    }

    #[test]
    fn bad_values_name_the_field() {
        for bad in [json!(0), json!(-1), json!(2.5), json!("10%")] {
            let e = parse(json!({"tool_surface": {"defer_threshold": bad}})).unwrap_err();
            assert_eq!(e, "tool_surface.defer_threshold");
        }
        let e = parse(json!({"tool_surface": {"execute": "yes"}})).unwrap_err();
        assert_eq!(e, "tool_surface.execute");
        assert_eq!(
            parse(json!({"tool_surface": 1})).unwrap_err(),
            "tool_surface"
        );
    }

    #[test]
    fn defer_modes() {
        let Value::Object(o) = json!({"defer": "always"}) else {
            unreachable!()
        };
        assert_eq!(defer_mode(&o, "s").unwrap(), DeferMode::Always);
        assert_eq!(defer_mode(&Map::new(), "s").unwrap(), DeferMode::Auto);
        let Value::Object(bad) = json!({"defer": true}) else {
            unreachable!()
        };
        assert_eq!(defer_mode(&bad, "s").unwrap_err().field, "mcp.s.defer");
    }

    #[test]
    fn the_transaction_switch_is_off_by_default_and_must_be_a_boolean() {
        let on = |v: serde_json::Value| Config::from_value(v).map(|c| c.tool_surface.transaction);
        assert!(!on(json!({})).unwrap());
        assert!(!on(json!({"tool_surface": {}})).unwrap());
        assert!(on(json!({"tool_surface": {"transaction": true}})).unwrap());
        let err = on(json!({"tool_surface": {"transaction": "yes"}}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("`tool_surface.transaction`"), "{err}");
        assert!(err.contains("true or false"), "{err}");
        let err = on(json!({"tool_surface": true})).unwrap_err().to_string();
        assert!(err.contains("`tool_surface`"), "{err}");
        let c = Config::from_value(json!({"tool_surface": {"transaction": true}})).unwrap();
        assert!(c.tool_surface.is_on("transaction"));
        assert!(!c.tool_surface.is_on("other"));
    }
}
