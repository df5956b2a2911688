//! The resolver's provider listing in opencode's shapes: `Provider {id, name, source, env,
//! options, models}` and `Model {id, providerID, api, name, capabilities, cost, limit, …}`.
//! Plain functions over [`ListedProvider`] values.

use serde_json::{Map, Value, json};
use strata_agent::catalogue::ModelInfo;
use strata_agent::catalogue::models_dev::ModelsDev;
use strata_agent::provider::resolve::{KeySource, ListedModel, ListedProvider};

/// The package opencode's clients are told a provider speaks when neither the config nor the
/// catalogue names one.
const DEFAULT_NPM: &str = "@ai-sdk/openai-compatible";

/// Where a provider comes from, in opencode's words: declared in the config, its key from the
/// environment, a stored key (`api`), or neither (`custom`: a server that needs no key).
pub fn source(p: &ListedProvider) -> &'static str {
    match (&p.key, p.configured) {
        (_, true) | (Some(KeySource::Config), _) => "config",
        (Some(KeySource::Env(_)), _) => "env",
        (Some(KeySource::Stored(_)), _) => "api",
        (None, false) => "custom",
    }
}

/// One provider with its models. Its options are left empty: they may hold a key.
pub fn provider(p: &ListedProvider) -> Value {
    let url = catalogue_url(&p.id, None);
    let models: Map<String, Value> = p
        .models
        .iter()
        .map(|m| (m.id.clone(), model(p, m, url.as_deref())))
        .collect();
    json!({
        "id": p.id,
        "name": p.name,
        "source": source(p),
        "env": p.env,
        "options": {},
        "models": models,
    })
}

/// The catalogue's base URL of a provider (or of one of its models): what opencode shows as a
/// model's `api.url`. Empty for a provider only the config knows.
fn catalogue_url(provider: &str, model: Option<&str>) -> Option<String> {
    let entry = ModelsDev::get().provider(provider)?;
    model
        .and_then(|m| entry.models.get(m)?.api.clone())
        .or_else(|| entry.api.clone())
}

fn model(p: &ListedProvider, m: &ListedModel, provider_url: Option<&str>) -> Value {
    let info = &m.info;
    let has = |kind: &str| m.input.iter().any(|i| i == kind);
    let input = json!({
        "text": has("text"), "audio": has("audio"), "image": has("image"),
        "video": has("video"), "pdf": has("pdf"),
    });
    let output =
        json!({"text": true, "audio": false, "image": false, "video": false, "pdf": false});
    let url = catalogue_url(&p.id, Some(&m.id))
        .or_else(|| provider_url.map(str::to_string))
        .unwrap_or_default();
    let (context, out) = limits(info);
    json!({
        "id": m.id,
        "providerID": p.id,
        "api": {"id": m.id, "url": url, "npm": p.npm.as_deref().unwrap_or(DEFAULT_NPM)},
        "name": m.name,
        "capabilities": {
            "temperature": m.temperature,
            "reasoning": info.reasoning,
            "attachment": m.attachment,
            "toolcall": m.tool_call,
            "input": input,
            "output": output,
            "interleaved": info.interleaved.as_ref().map_or(json!(false), |f| json!({"field": f})),
        },
        "cost": {
            "input": info.cost.input,
            "output": info.cost.output,
            "cache": {"read": info.cost.cache_read, "write": info.cost.cache_write},
        },
        "limit": {"context": context, "output": out},
        "status": m.status.as_deref().unwrap_or("active"),
        "options": {},
        "headers": {},
        "release_date": m.release_date.as_deref().unwrap_or(""),
        "variants": {},
    })
}

/// The limits shown for a model: its own, or for one nobody describes the room Strata's
/// clients have always been told (a 128k window, 32k out).
fn limits(info: &ModelInfo) -> (u64, u64) {
    if info.context == 0 {
        return (128_000, 32_000);
    }
    (info.context, info.output)
}

/// A model only the config's `model` names (not declared under its provider nor in the
/// catalogue): listed so clients find the model the project runs on.
pub fn named_only(id: &str) -> ListedModel {
    ListedModel {
        id: id.to_string(),
        name: id.to_string(),
        tool_call: true,
        temperature: true,
        input: vec!["text".into()],
        ..ListedModel::default()
    }
}

/// The order clients see: configured providers, then those with a key, then the rest (servers
/// on this machine that need none), each group by id. opencode's clients fall back to the
/// first provider's default model, which should be one the user set up.
pub fn rank(p: &ListedProvider) -> u8 {
    match (p.configured, &p.key) {
        (true, _) => 0,
        (false, Some(_)) => 1,
        (false, None) => 2,
    }
}

#[cfg(test)]
mod tests {
    use strata_agent::provider::credentials::KeyOrigin;

    use super::*;

    fn listed(id: &str, key: Option<KeySource>, configured: bool) -> ListedProvider {
        ListedProvider {
            id: id.into(),
            name: id.into(),
            env: vec![],
            npm: None,
            base: None,
            configured,
            key,
            problem: None,
            models: vec![named_only("m")],
        }
    }

    #[test]
    fn the_source_says_where_the_provider_and_its_key_come_from() {
        let env = Some(KeySource::Env("X_KEY".into()));
        let stored = Some(KeySource::Stored(KeyOrigin::Strata));
        assert_eq!(source(&listed("a", env.clone(), false)), "env");
        assert_eq!(source(&listed("a", stored.clone(), false)), "api");
        assert_eq!(source(&listed("a", None, false)), "custom");
        assert_eq!(source(&listed("a", env, true)), "config");
        let ranks: Vec<u8> = [
            listed("a", None, true),
            listed("b", stored, false),
            listed("c", None, false),
        ]
        .iter()
        .map(rank)
        .collect();
        assert_eq!(ranks, [0, 1, 2]);
    }

    #[test]
    fn a_model_nobody_describes_gets_the_usual_room_and_text_only_io() {
        let v = provider(&listed("own-box", None, true));
        let m = &v["models"]["m"];
        assert_eq!(m["limit"], json!({"context": 128000, "output": 32000}));
        assert_eq!(m["api"], json!({"id": "m", "url": "", "npm": DEFAULT_NPM}));
        assert_eq!(m["capabilities"]["input"]["text"], true);
        assert_eq!(m["capabilities"]["input"]["image"], false);
        assert_eq!(m["capabilities"]["interleaved"], false);
        assert_eq!(v["options"], json!({}));
    }
}
