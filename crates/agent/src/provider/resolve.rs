//! `resolve_provider`: from a model id such as `openai/gpt-4.1` or `anthropic/claude-sonnet-4`
//! to a ready provider and the model id to send. Settings come from the environment first
//! (`OPENAI_BASE_URL`, `OPENAI_API_KEY`, `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY`), then from
//! the config's `provider` map (`provider.openai.baseURL` / `apiKey`, also accepted under
//! `options`), then from the vendors' public endpoints.

use serde_json::{Map, Value};

use super::{Anthropic, OpenAiCompatible, Provider, ProviderError};

pub const OPENAI_DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
pub const ANTHROPIC_DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// The provider ids `resolve_provider` understands.
pub const KNOWN_PROVIDERS: [&str; 2] = ["openai", "anthropic"];

/// Builds the provider for `model_id` (`<provider>/<model>`). `env` looks up environment
/// variables; `providers` is the config's `provider` object. A key is required only when the
/// base URL is the vendor's own endpoint (local servers usually need none).
pub fn resolve_provider(
    model_id: &str,
    env: impl Fn(&str) -> Option<String>,
    providers: &Map<String, Value>,
) -> Result<(Box<dyn Provider>, String), ProviderError> {
    let config_error = |detail: String| ProviderError::Config {
        model: model_id.to_string(),
        detail,
    };
    let Some((provider_id, model)) = model_id
        .split_once('/')
        .filter(|(p, m)| !p.is_empty() && !m.is_empty())
    else {
        return Err(config_error(format!(
            "model ids look like `<provider>/<model>` with provider one of {}, e.g. `openai/gpt-4.1`",
            KNOWN_PROVIDERS.join(", ")
        )));
    };
    let (env_prefix, default_base) = match provider_id {
        "openai" => ("OPENAI", OPENAI_DEFAULT_BASE_URL),
        "anthropic" => ("ANTHROPIC", ANTHROPIC_DEFAULT_BASE_URL),
        other => {
            return Err(config_error(format!(
                "unknown provider `{other}`; use one of {}",
                KNOWN_PROVIDERS.join(", ")
            )));
        }
    };
    let setting = |var: &str, key: &str| -> Option<String> {
        env(&format!("{env_prefix}_{var}"))
            .filter(|v| !v.trim().is_empty())
            .or_else(|| {
                let entry = providers.get(provider_id)?;
                entry
                    .get(key)
                    .or_else(|| entry.get("options").and_then(|o| o.get(key)))
                    .and_then(Value::as_str)
                    .filter(|v| !v.trim().is_empty())
                    .map(str::to_string)
            })
    };
    let base_url = setting("BASE_URL", "baseURL").unwrap_or_else(|| default_base.to_string());
    let api_key = setting("API_KEY", "apiKey");
    if api_key.is_none() && base_url.trim_end_matches('/') == default_base {
        return Err(config_error(format!(
            "no API key for {provider_id}: set {env_prefix}_API_KEY (or provider.{provider_id}.apiKey in the config), or set {env_prefix}_BASE_URL to a server that needs no key"
        )));
    }
    let provider: Box<dyn Provider> = match provider_id {
        "openai" => Box::new(OpenAiCompatible::new(base_url, api_key)?),
        _ => Box::new(Anthropic::new(base_url, api_key)?),
    };
    Ok((provider, model.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn env_wins_over_config_and_the_model_keeps_its_slashes() {
        let providers =
            map(json!({"openai": {"baseURL": "http://127.0.0.1:2/v1", "apiKey": "cfg"}}));
        let env = env_of(&[("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")]);
        let (p, model) = resolve_provider("openai/org/model-x", env, &providers).unwrap();
        assert_eq!(p.name(), "openai");
        assert_eq!(p.base_url(), "http://127.0.0.1:1/v1");
        assert_eq!(model, "org/model-x");
    }

    #[test]
    fn config_is_the_fallback_including_options() {
        let providers = map(json!({"anthropic": {"options": {"baseURL": "http://127.0.0.1:3"}}}));
        let (p, model) = resolve_provider("anthropic/claude-x", env_of(&[]), &providers).unwrap();
        assert_eq!(
            (p.name(), p.base_url()),
            ("anthropic", "http://127.0.0.1:3")
        );
        assert_eq!(model, "claude-x");
    }

    #[test]
    fn errors_say_what_to_set() {
        let none = Map::new();
        let err = resolve_provider("openai/gpt", env_of(&[]), &none)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("OPENAI_API_KEY") && err.contains("openai/gpt"),
            "{err}"
        );
        let err = resolve_provider("anthropic/c", env_of(&[]), &none)
            .unwrap_err()
            .to_string();
        assert!(err.contains("ANTHROPIC_API_KEY"), "{err}");
        let err = resolve_provider("gemini/x", env_of(&[]), &none)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("unknown provider `gemini`") && err.contains("openai, anthropic"),
            "{err}"
        );
        let err = resolve_provider("gpt-4", env_of(&[]), &none)
            .unwrap_err()
            .to_string();
        assert!(err.contains("<provider>/<model>"), "{err}");
        // With a key the public endpoint is fine.
        let env = env_of(&[("ANTHROPIC_API_KEY", "k")]);
        let (p, _) = resolve_provider("anthropic/c", env, &none).unwrap();
        assert_eq!(p.base_url(), ANTHROPIC_DEFAULT_BASE_URL);
    }
}
