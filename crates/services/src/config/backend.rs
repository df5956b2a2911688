//! Whether a backend a tool is shown for (`Visibility::Backend`) is configured: read from the
//! config here, so the registry's surface filter names no tool.

use serde_json::Value;

use super::ConfigData;
use crate::flags::RuntimeFlags;

impl ConfigData {
    /// Whether backend `name` is configured. `websearch` (spec §9) has its own typed section and
    /// environment variables (`WebsearchConfig::is_configured`). Any other backend: its `name`
    /// block sets `enabled`, or else gives a non-empty `url` or `apiKey`; an explicit
    /// `enabled: false` wins.
    pub fn backend_configured(&self, name: &str, flags: &RuntimeFlags) -> bool {
        if name == "websearch" {
            return self.websearch.is_configured(flags);
        }
        let Some(block) = self.raw.get(name).and_then(Value::as_object) else {
            return false;
        };
        if let Some(enabled) = block.get("enabled").and_then(Value::as_bool) {
            return enabled;
        }
        ["url", "apiKey"].iter().any(|k| {
            block
                .get(*k)
                .and_then(Value::as_str)
                .is_some_and(|v| !v.trim().is_empty())
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::config::Config;
    use crate::flags::RuntimeFlags;

    #[test]
    fn a_backend_is_configured_by_enabled_or_an_endpoint_or_key() {
        let none = RuntimeFlags::for_dirs("/d", "/c");
        let configured_as = |name: &str, v: serde_json::Value, flags: &RuntimeFlags| {
            let config = Config::from_value(v).unwrap();
            config.backend_configured(name, flags)
        };
        let configured = |v: serde_json::Value| configured_as("websearch", v, &none);
        assert!(!configured(json!({})));
        assert!(!configured(json!({"websearch": {}})));
        assert!(!configured(json!({"other": {"enabled": true}})));
        assert!(configured(json!({"websearch": {"enabled": true}})));
        assert!(configured(
            json!({"websearch": {"url": "http://127.0.0.1:9/mcp"}})
        ));
        assert!(configured(json!({"websearch": {"apiKey": "k"}})));
        assert!(!configured(
            json!({"websearch": {"enabled": false, "apiKey": "k"}})
        ));
        // `websearch` values of the wrong kind are config errors naming the key.
        for bad in [
            json!({"websearch": "on"}),
            json!({"websearch": {"url": "  "}}),
        ] {
            let err = Config::from_value(bad).unwrap_err().to_string();
            assert!(err.contains("`websearch"), "{err}");
        }
        // The environment configures `websearch` too.
        let mut env = RuntimeFlags::for_dirs("/d", "/c");
        env.exa_api_key = Some("k".into());
        assert!(configured_as("websearch", json!({}), &env));
        // Another backend is read from its own block.
        let other = |v: serde_json::Value| configured_as("other", v, &none);
        assert!(other(json!({"other": {"enabled": true}})));
        assert!(other(json!({"other": {"url": "http://127.0.0.1:9"}})));
        assert!(!other(json!({"other": "on"})));
        assert!(!other(json!({"other": {"url": "  "}})));
        assert!(!other(json!({"other": {"enabled": false, "apiKey": "k"}})));
    }
}
