//! The config's `small_model`: a cheaper model for the session's side requests (compaction
//! summaries), resolved like the session's own model. When it is unset the session's model
//! does the work; when it cannot be used (unknown provider, a provider `disabled_providers`
//! or `enabled_providers` rules out, bad settings) a warning is logged and the session's
//! model does the work too, so a wrong `small_model` never stops a session.

use strata_services::config::ConfigData;

use super::model::Model;
use crate::catalogue::ModelSettings;
use crate::provider::Resolver;

/// A ready small model and its settings (`max_tokens`, prices).
#[derive(Debug, Clone)]
pub struct SmallModel {
    pub model: Model,
    pub settings: ModelSettings,
}

/// The config's `small_model` as a ready model; `None` when unset or unusable (logged).
/// `resolver` is the one the session's own model came from (its environment and stored keys).
pub fn resolve(config: &ConfigData, resolver: &Resolver<'_>) -> Option<SmallModel> {
    let id = config.small_model.as_deref()?;
    match try_resolve(id, config, resolver) {
        Ok(small) => Some(small),
        Err(why) => {
            tracing::warn!(
                small_model = id,
                "the config's small_model `{id}` cannot be used ({why}); the session's own \
                 model writes summaries instead. Fix `small_model` or the provider's settings"
            );
            None
        }
    }
}

fn try_resolve(
    id: &str,
    config: &ConfigData,
    resolver: &Resolver<'_>,
) -> Result<SmallModel, String> {
    let provider_id = id.split_once('/').map_or(id, |(p, _)| p);
    if !config.provider_allowed(provider_id) {
        return Err(format!(
            "the provider `{provider_id}` is ruled out by `enabled_providers` or \
             `disabled_providers`"
        ));
    }
    let resolved = resolver.resolve(id).map_err(|e| e.to_string())?;
    let settings =
        crate::catalogue::settings(id, &config.provider, None).map_err(|e| e.to_string())?;
    Ok(SmallModel {
        model: Model::resolved(id, resolved),
        settings,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use strata_services::config::Config;

    use super::*;

    fn env(name: &str) -> Option<String> {
        (name == "OPENAI_BASE_URL").then(|| "http://127.0.0.1:9/v1".to_string())
    }

    fn resolve(config: &Config) -> Option<SmallModel> {
        super::resolve(config, &Resolver::new(&config.provider).with_env(env))
    }

    #[test]
    fn a_usable_small_model_is_resolved() {
        let c = Config::from_value(json!({"small_model": "openai/mini"})).unwrap();
        let small = resolve(&c).unwrap();
        assert_eq!(small.model.id, "openai/mini");
        assert_eq!(small.model.api_model, "mini");
        assert_eq!(small.model.provider.base_url(), "http://127.0.0.1:9/v1");
    }

    #[test]
    fn unset_or_unusable_gives_none() {
        let unset = Config::from_value(json!({})).unwrap();
        assert!(resolve(&unset).is_none());
        let unknown = Config::from_value(json!({"small_model": "nowhere/mini"})).unwrap();
        assert!(resolve(&unknown).is_none());
        let disabled = Config::from_value(json!({
            "small_model": "openai/mini", "disabled_providers": ["openai"],
        }))
        .unwrap();
        assert!(resolve(&disabled).is_none());
        let not_enabled = Config::from_value(json!({
            "small_model": "openai/mini", "enabled_providers": ["anthropic"],
        }))
        .unwrap();
        assert!(resolve(&not_enabled).is_none());
    }
}
