//! Which providers may be used (`enabled_providers`, `disabled_providers`) and the model for
//! small side tasks (`small_model`), in opencode's shape.

use serde_json::{Map, Value};

use super::ConfigData;
use super::fields::{FieldError, get, string, strings, wrong};

/// `enabled_providers`: absent means every provider; a list (even empty) only those listed.
pub(super) fn enabled(root: &Map<String, Value>) -> Result<Option<Vec<String>>, FieldError> {
    let Some(value) = get(root, "enabled_providers") else {
        return Ok(None);
    };
    ids(Some(value), "enabled_providers").map(Some)
}

/// `disabled_providers`: providers never used, whatever else says.
pub(super) fn disabled(root: &Map<String, Value>) -> Result<Vec<String>, FieldError> {
    ids(get(root, "disabled_providers"), "disabled_providers")
}

fn ids(value: Option<&Value>, field: &str) -> Result<Vec<String>, FieldError> {
    strings(
        value,
        field,
        "a provider id (a string such as \"openai\")",
        "an array of provider ids",
    )
}

/// `small_model`: `provider/model`, both parts non-empty.
pub(super) fn small_model(root: &Map<String, Value>) -> Result<Option<String>, FieldError> {
    let Some(id) = string(root, "small_model", "small_model")? else {
        return Ok(None);
    };
    match id.split_once('/') {
        Some((p, m)) if !p.trim().is_empty() && !m.trim().is_empty() => Ok(Some(id)),
        _ => Err(wrong(
            "small_model",
            "a model id `provider/model`, e.g. \"openai/gpt-4.1-mini\"",
            &Value::String(id),
        )),
    }
}

impl ConfigData {
    /// Whether provider `id` may be used: never when `disabled_providers` lists it; otherwise
    /// only when `enabled_providers` is absent or lists it (opencode's rule).
    pub fn provider_allowed(&self, id: &str) -> bool {
        if self.disabled_providers.iter().any(|p| p == id) {
            return false;
        }
        self.enabled_providers
            .as_ref()
            .is_none_or(|enabled| enabled.iter().any(|p| p == id))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::config::Config;

    fn config(v: serde_json::Value) -> Config {
        Config::from_value(v).unwrap()
    }

    #[test]
    fn disabled_wins_and_an_enabled_list_allows_only_its_own() {
        let all = config(json!({}));
        assert!(all.provider_allowed("openai") && all.provider_allowed("anthropic"));
        let off = config(json!({"disabled_providers": ["openai"]}));
        assert!(!off.provider_allowed("openai") && off.provider_allowed("anthropic"));
        let only = config(json!({"enabled_providers": ["openai", "anthropic"]}));
        assert!(only.provider_allowed("openai") && !only.provider_allowed("groq"));
        let both = config(json!({
            "enabled_providers": ["openai", "anthropic"],
            "disabled_providers": ["openai"],
        }));
        assert!(!both.provider_allowed("openai") && both.provider_allowed("anthropic"));
        let none = config(json!({"enabled_providers": []}));
        assert!(!none.provider_allowed("openai"));
    }

    #[test]
    fn the_fields_are_checked_and_errors_name_them() {
        let c = config(json!({"small_model": "openai/gpt-4.1-mini", "enabled_providers": null}));
        assert_eq!(c.small_model.as_deref(), Some("openai/gpt-4.1-mini"));
        assert_eq!(c.enabled_providers, None);
        let err = |v| Config::from_value(v).unwrap_err().to_string();
        for (bad, field) in [
            (json!({"small_model": "gpt-4.1-mini"}), "`small_model`"),
            (json!({"small_model": "openai/"}), "`small_model`"),
            (json!({"small_model": 4}), "`small_model`"),
            (
                json!({"enabled_providers": "openai"}),
                "`enabled_providers`",
            ),
            (
                json!({"disabled_providers": ["a", 1]}),
                "`disabled_providers[1]`",
            ),
        ] {
            let e = err(bad);
            assert!(e.contains(field), "{e}");
        }
    }
}
