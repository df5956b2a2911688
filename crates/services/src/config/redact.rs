//! Hiding secrets when a config is shown (`strata debug config`): under a key named like a
//! secret (`apiKey`, anything with `key`, `token` or `password` in its name, `headers`) every
//! string becomes `"***"`. Numbers and booleans stay, so `maxTokens: 4096` is still readable.

use serde_json::Value;

/// What a hidden value is shown as.
pub const HIDDEN: &str = "***";

/// Whether a key's values are secrets.
fn is_secret(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    if k.starts_with("keybind") {
        // opencode's key bindings are not secrets.
        return false;
    }
    k == "headers" || ["key", "token", "password"].iter().any(|s| k.contains(s))
}

/// A copy of `value` with the secrets hidden.
pub fn redact_secrets(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let shown = if is_secret(k) {
                        hide(v)
                    } else {
                        redact_secrets(v)
                    };
                    (k.clone(), shown)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact_secrets).collect()),
        other => other.clone(),
    }
}

/// Every string inside `value` as [`HIDDEN`].
fn hide(value: &Value) -> Value {
    match value {
        Value::String(_) => Value::String(HIDDEN.into()),
        Value::Array(items) => Value::Array(items.iter().map(hide).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), hide(v))).collect())
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn secrets_are_hidden_and_the_rest_is_kept() {
        let config = json!({
            "model": "openai/gpt-5",
            "keybinds": {"leader": "ctrl+x"},
            "provider": {"openai": {"options": {
                "apiKey": "sk-1", "baseURL": "http://127.0.0.1:1", "maxTokens": 4096,
                "access_token": "t", "Password": "p", "api_keys": ["a", "b"],
            }}},
            "mcp": {"s": {"type": "remote", "headers": {"Authorization": "Bearer x"}}},
        });
        assert_eq!(
            redact_secrets(&config),
            json!({
                "model": "openai/gpt-5",
                "keybinds": {"leader": "ctrl+x"},
                "provider": {"openai": {"options": {
                    "apiKey": "***", "baseURL": "http://127.0.0.1:1", "maxTokens": 4096,
                    "access_token": "***", "Password": "***", "api_keys": ["***", "***"],
                }}},
                "mcp": {"s": {"type": "remote", "headers": {"Authorization": "***"}}},
            })
        );
    }
}
