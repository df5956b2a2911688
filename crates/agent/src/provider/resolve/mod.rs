//! From a model id such as `ollama/qwen3` or `anthropic/claude-sonnet-4` to a ready provider,
//! the model id to send, the wire it speaks and what the catalogue knows of the model.
//!
//! A provider is looked up in the config's `provider.<id>` first (opencode's shape: `npm`,
//! `options.{baseURL, apiKey, headers, timeout, api}`, `models.<id>`), then in the packed
//! models.dev catalogue. Its wire comes from the AI SDK package it names ([`endpoints`]); its
//! base URL from `OPENAI_BASE_URL`/`ANTHROPIC_BASE_URL` (for those two providers), the config,
//! the catalogue, then Strata's table of vendor endpoints; its key from the catalogue's
//! environment variables, then `options.apiKey`, then a stored key ([`Credentials`]). A key is
//! required only for a vendor's own endpoint: a base URL the user set, or one on this machine,
//! may need none.

mod build;
mod endpoints;
mod listing;
mod suggest;

use serde_json::{Map, Value};

use super::credentials::{Credentials, KeyOrigin};
use super::{Provider, ProviderError};
use crate::catalogue::models_dev::{ModelEntry, ModelsDev, ProviderEntry};
use crate::catalogue::{Catalogue, ModelInfo};

pub use endpoints::{SDKS, Sdk, WireKind, is_local, sdk, wire_named};
pub use listing::{ListedModel, ListedProvider};
pub use suggest::closest;

pub const OPENAI_DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
pub const ANTHROPIC_DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// The context window assumed for a model the catalogue does not know, so that a long session
/// still compacts before a small window overflows.
pub const UNKNOWN_MODEL_CONTEXT: u64 = 64_000;

/// A model id resolved to a provider that can be called.
#[derive(Debug)]
pub struct Resolved {
    pub provider: Box<dyn Provider>,
    /// The model id sent to the API.
    pub api_model: String,
    pub wire: WireKind,
    /// What the config and the catalogue know of the model; `None` when neither does.
    pub info: Option<ModelInfo>,
    /// Things the user should know (an unknown model), to be shown once.
    pub warnings: Vec<String>,
}

/// Looks up an environment variable.
type EnvFn<'a> = Box<dyn Fn(&str) -> Option<String> + 'a>;

/// Resolves model ids against the config's providers, the catalogue, the environment and the
/// stored keys.
pub struct Resolver<'a> {
    env: EnvFn<'a>,
    providers: &'a Map<String, Value>,
    credentials: Credentials,
    enabled: Option<Vec<String>>,
    disabled: Vec<String>,
}

impl std::fmt::Debug for Resolver<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolver")
            .field("providers", &self.providers.keys().collect::<Vec<_>>())
            .field("credentials", &self.credentials)
            .field("enabled", &self.enabled)
            .field("disabled", &self.disabled)
            .finish_non_exhaustive()
    }
}

/// Builds the provider for `model_id` (`<provider>/<model>`), with no stored keys and every
/// provider allowed. `env` looks up environment variables; `providers` is the config's
/// `provider` object.
pub fn resolve_provider(
    model_id: &str,
    env: impl Fn(&str) -> Option<String>,
    providers: &Map<String, Value>,
) -> Result<(Box<dyn Provider>, String), ProviderError> {
    let resolved = Resolver::new(providers).with_env(env).resolve(model_id)?;
    Ok((resolved.provider, resolved.api_model))
}

impl<'a> Resolver<'a> {
    /// A resolver over the config's `provider` map, reading the process environment.
    pub fn new(providers: &'a Map<String, Value>) -> Self {
        Self {
            env: Box::new(|k| std::env::var(k).ok()),
            providers,
            credentials: Credentials::none(),
            enabled: None,
            disabled: Vec::new(),
        }
    }

    /// Reads environment variables through `env` instead of the process environment.
    pub fn with_env(mut self, env: impl Fn(&str) -> Option<String> + 'a) -> Self {
        self.env = Box::new(env);
        self
    }

    /// Falls back to the keys stored in `credentials`.
    pub fn with_credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = credentials;
        self
    }

    /// Honours the config's `enabled_providers` and `disabled_providers` (read from the whole
    /// config document `raw`): a disabled provider is refused, and when `enabled_providers` is
    /// set only those are allowed.
    pub fn with_filters_from(mut self, raw: &Value) -> Self {
        let ids = |key: &str| -> Option<Vec<String>> {
            raw.get(key)?.as_array().map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
        };
        self.enabled = ids("enabled_providers");
        self.disabled = ids("disabled_providers").unwrap_or_default();
        self
    }

    /// Whether the config lets provider `id` be used.
    pub fn allowed(&self, id: &str) -> bool {
        !self.disabled.iter().any(|d| d == id)
            && self
                .enabled
                .as_ref()
                .is_none_or(|e| e.iter().any(|x| x == id))
    }

    fn env(&self, key: &str) -> Option<String> {
        (self.env)(key).filter(|v| !v.trim().is_empty())
    }

    /// Resolves `model_id` to a ready provider.
    pub fn resolve(&self, model_id: &str) -> Result<Resolved, ProviderError> {
        let fail = |detail: String| ProviderError::Config {
            model: model_id.to_string(),
            detail,
        };
        let Some((provider_id, model)) = model_id
            .split_once('/')
            .filter(|(p, m)| !p.is_empty() && !m.is_empty())
        else {
            return Err(fail(
                "model ids look like `<provider>/<model>`, e.g. `anthropic/claude-sonnet-4` or \
                 `openai/gpt-5`; `strata models` lists the ones you can use"
                    .into(),
            ));
        };
        if !self.allowed(provider_id) {
            return Err(fail(self.refusal(provider_id)));
        }
        let source = self
            .source(provider_id, model)
            .ok_or_else(|| fail(self.unknown_provider(provider_id, model)))?;
        let api_model = source
            .config_model
            .and_then(|m| m.get("id"))
            .and_then(Value::as_str)
            .unwrap_or(model)
            .to_string();
        let endpoint = build::endpoint(self, &source, &api_model).map_err(fail)?;
        let catalogue = Catalogue::with_config(self.providers).map_err(|e| fail(e.to_string()))?;
        let info = catalogue.lookup(model_id);
        let mut warnings = Vec::new();
        if info.is_none() {
            warnings.push(format!(
                "the model `{model_id}` is not in the catalogue: its limits and prices are \
                 unknown, costs show as 0 and the session compacts as if its window were {} \
                 tokens; declare it under provider.{provider_id}.models.{model} with `limit` \
                 and `cost` to change that",
                UNKNOWN_MODEL_CONTEXT
            ));
        }
        let wire = endpoint.wire;
        let provider = build::provider(endpoint, provider_id, &api_model).map_err(|e| match e {
            ProviderError::Config { detail, .. } => fail(detail),
            other => other,
        })?;
        Ok(Resolved {
            provider,
            api_model,
            wire,
            info,
            warnings,
        })
    }

    /// What the config and the catalogue say of provider `id` and its model `model`; `None`
    /// when neither knows the provider.
    fn source<'s>(&'s self, id: &'s str, model: &str) -> Option<Source<'s>> {
        let config = self.providers.get(id).filter(|v| v.is_object());
        let catalogue = ModelsDev::get().provider(id);
        if config.is_none() && catalogue.is_none() {
            return None;
        }
        Some(Source {
            id,
            config,
            config_model: config
                .and_then(|c| c.get("models"))
                .and_then(|m| m.get(model)),
            catalogue,
            catalogue_model: catalogue.and_then(|c| c.models.get(model)),
        })
    }

    /// The key for provider `id`: its catalogue variables, `options.apiKey`, then a stored key.
    fn key(&self, source: &Source<'_>) -> Option<(String, KeySource)> {
        let names = source.env_names();
        names
            .iter()
            .find_map(|n| self.env(n).map(|k| (k, KeySource::Env(n.clone()))))
            .or_else(|| {
                source
                    .option("apiKey")
                    .and_then(Value::as_str)
                    .filter(|k| !k.trim().is_empty())
                    .map(|k| (k.to_string(), KeySource::Config))
            })
            .or_else(|| {
                self.credentials
                    .key(source.id)
                    .map(|(k, o)| (k, KeySource::Stored(o)))
            })
    }

    fn refusal(&self, id: &str) -> String {
        if self.disabled.iter().any(|d| d == id) {
            format!(
                "the provider `{id}` is turned off by `disabled_providers` in the config; \
                 remove it from that list to use it"
            )
        } else {
            format!(
                "the provider `{id}` is not in the config's `enabled_providers`; add it there \
                 to use it"
            )
        }
    }

    /// Whether the config or the catalogue knows provider `id`.
    pub fn knows(&self, id: &str) -> bool {
        self.providers.get(id).is_some_and(Value::is_object)
            || ModelsDev::get().provider(id).is_some()
    }

    /// Up to `n` known provider ids (config and catalogue) closest to the mistyped `id`.
    pub fn closest_ids(&self, id: &str, n: usize) -> Vec<String> {
        let known = self
            .providers
            .keys()
            .map(String::as_str)
            .chain(ModelsDev::get().ids());
        suggest::closest(id, known, n)
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    fn unknown_provider(&self, id: &str, model: &str) -> String {
        let close = self.closest_ids(id, 3);
        let hint = if close.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = close.iter().map(|c| format!("`{c}`")).collect();
            format!(" (did you mean {}?)", names.join(", "))
        };
        let example = DECLARE_EXAMPLE
            .replace("PROVIDER", id)
            .replace("MODEL", model);
        format!(
            "unknown provider `{id}`{hint}; `strata models --all` lists the known ones. To use \
             a server Strata does not know, declare it in opencode.json or strata.json: {example}"
        )
    }
}

/// How an unknown provider is declared, as the error shows it (an OpenAI-compatible server on
/// Ollama's usual port); `PROVIDER` and `MODEL` are the ids asked for.
const DECLARE_EXAMPLE: &str = r#"{"provider": {"PROVIDER": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "http://127.0.0.1:11434/v1"}, "models": {"MODEL": {}}}}}"#;

/// The wire `model_id` speaks, judged from the packages and options of its config and
/// catalogue entries alone (no key or URL needed); `None` for an unknown provider.
pub fn wire_hint(model_id: &str, providers: &Map<String, Value>) -> Option<WireKind> {
    let (id, model) = model_id.split_once('/')?;
    let r = Resolver::new(providers).with_env(|_| None);
    let source = r.source(id, model)?;
    let forced = source
        .option("api")
        .and_then(Value::as_str)
        .and_then(wire_named);
    let shape = source
        .catalogue_model
        .and_then(|m| m.shape.as_deref())
        .and_then(wire_named);
    let own = match source.npm().map_or(Sdk::Unknown, sdk) {
        Sdk::Speaks { wire, .. } => wire,
        _ => WireKind::Chat,
    };
    Some(forced.or(shape).unwrap_or(own))
}

/// Where a key came from (for `strata models` and messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    Env(String),
    Config,
    Stored(KeyOrigin),
}

/// One provider's entries: the config's and the catalogue's, with the model's own.
#[derive(Debug, Clone, Copy)]
struct Source<'s> {
    id: &'s str,
    config: Option<&'s Value>,
    config_model: Option<&'s Value>,
    catalogue: Option<&'s ProviderEntry>,
    catalogue_model: Option<&'s ModelEntry>,
}

impl<'s> Source<'s> {
    /// An option, the model's own over the provider's; a few also accepted at the top of the
    /// provider entry, as Strata read them before.
    fn option(&self, key: &str) -> Option<&'s Value> {
        let in_options = |v: Option<&'s Value>| v?.get("options")?.get(key);
        in_options(self.config_model)
            .or_else(|| in_options(self.config))
            .or_else(|| {
                matches!(key, "baseURL" | "apiKey")
                    .then(|| self.config?.get(key))
                    .flatten()
            })
    }

    /// The AI SDK package: the model's own, then the provider's; config over catalogue.
    fn npm(&self) -> Option<&'s str> {
        let config_model = self
            .config_model
            .and_then(|m| m.pointer("/provider/npm"))
            .and_then(Value::as_str);
        config_model
            .or_else(|| self.catalogue_model?.npm.as_deref())
            .or_else(|| self.config?.get("npm")?.as_str())
            .or_else(|| self.catalogue?.npm.as_deref())
    }

    /// The environment variables that may hold the key: the catalogue's, or the config's `env`.
    fn env_names(&self) -> Vec<String> {
        if let Some(names) = self
            .config
            .and_then(|c| c.get("env"))
            .and_then(Value::as_array)
        {
            return names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect();
        }
        self.catalogue.map(|c| c.env.clone()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests;
