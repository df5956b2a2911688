//! The `tool_surface` section: opt-in tools beyond the default surface. Today one switch,
//! `transaction` (the edit transaction tool, off by default).

use serde_json::{Map, Value};

use super::fields::{FieldError, boolean, object};

/// `tool_surface` as typed data.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolSurfaceConfig {
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

/// Reads `tool_surface` from the document root; absent means every switch off.
pub(super) fn section(root: &Map<String, Value>) -> Result<ToolSurfaceConfig, FieldError> {
    let Some(section) = object(root, "tool_surface", "tool_surface")? else {
        return Ok(ToolSurfaceConfig::default());
    };
    Ok(ToolSurfaceConfig {
        transaction: boolean(section, "transaction", "tool_surface.transaction")?.unwrap_or(false),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::config::Config;

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
