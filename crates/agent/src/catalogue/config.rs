//! Catalogue entries from the config: `provider.<id>.models.<model>` with `limit.context`,
//! `limit.output`, `cost.{input, output, cache_read, cache_write}` and `reasoning`, each
//! optional. An entry for a catalogued model changes only the fields it sets.

use serde_json::{Map, Value};

use super::{Catalogue, ModelInfo};

/// A model setting that cannot be used: a config model entry (`field` is its path in the
/// config) or the `--variant` flag.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("`{field}` must be {expected}, but it is {found}; change or remove it")]
pub struct CatalogueError {
    pub field: String,
    pub expected: &'static str,
    pub found: String,
}

/// Adds the config's model entries to `catalogue`.
pub(super) fn apply(
    catalogue: &mut Catalogue,
    providers: &Map<String, Value>,
) -> Result<(), CatalogueError> {
    for (provider, entry) in providers {
        let Some(models) = entry.get("models") else {
            continue;
        };
        let path = format!("provider.{provider}.models");
        let models = models
            .as_object()
            .ok_or_else(|| wrong(&path, "an object", models))?;
        for (model, spec) in models {
            let id = format!("{provider}/{model}");
            let field = format!("{path}.{model}");
            let spec = spec
                .as_object()
                .ok_or_else(|| wrong(&field, "an object", spec))?;
            let mut info = catalogue.lookup(&id).unwrap_or_default();
            info.id = id;
            merge(&mut info, spec, &field)?;
            catalogue.insert(info);
        }
    }
    Ok(())
}

fn merge(
    info: &mut ModelInfo,
    spec: &Map<String, Value>,
    field: &str,
) -> Result<(), CatalogueError> {
    if let Some(limit) = section(spec, "limit", field)? {
        let at = format!("{field}.limit");
        if let Some(n) = count(limit, "context", &at)? {
            info.context = n;
        }
        if let Some(n) = count(limit, "output", &at)? {
            info.output = n;
        }
    }
    if let Some(cost) = section(spec, "cost", field)? {
        let at = format!("{field}.cost");
        let p = &mut info.cost;
        for (key, slot) in [
            ("input", &mut p.input),
            ("output", &mut p.output),
            ("cache_read", &mut p.cache_read),
            ("cache_write", &mut p.cache_write),
        ] {
            if let Some(v) = cost.get(key) {
                *slot = v.as_f64().filter(|n| *n >= 0.0).ok_or_else(|| {
                    wrong(
                        &format!("{at}.{key}"),
                        "a price per million tokens (a number, 0 or more)",
                        v,
                    )
                })?;
            }
        }
    }
    if let Some(v) = spec.get("reasoning") {
        info.reasoning = v
            .as_bool()
            .ok_or_else(|| wrong(&format!("{field}.reasoning"), "true or false", v))?;
    }
    Ok(())
}

fn section<'a>(
    spec: &'a Map<String, Value>,
    key: &str,
    field: &str,
) -> Result<Option<&'a Map<String, Value>>, CatalogueError> {
    spec.get(key)
        .map(|v| {
            v.as_object()
                .ok_or_else(|| wrong(&format!("{field}.{key}"), "an object", v))
        })
        .transpose()
}

fn count(map: &Map<String, Value>, key: &str, field: &str) -> Result<Option<u64>, CatalogueError> {
    map.get(key)
        .map(|v| {
            v.as_u64()
                .ok_or_else(|| wrong(&format!("{field}.{key}"), "a whole number of tokens", v))
        })
        .transpose()
}

fn wrong(field: &str, expected: &'static str, found: &Value) -> CatalogueError {
    CatalogueError {
        field: field.to_string(),
        expected,
        found: found.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn providers(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn config_adds_entries_and_overrides_only_what_it_sets() {
        let c = Catalogue::with_config(&providers(json!({
            "openai": {"baseURL": "http://x", "models": {
                "tiny": {"limit": {"context": 900, "output": 100}, "cost": {"input": 1, "output": 2}},
                "gpt-4.1": {"cost": {"input": 9.5}},
            }},
            "anthropic": {"apiKey": "k"},
        })))
        .unwrap();
        let tiny = c.lookup("openai/tiny").unwrap();
        assert_eq!(
            (tiny.context, tiny.output, tiny.reasoning),
            (900, 100, false)
        );
        assert_eq!(tiny.cost.output, 2.0);
        let gpt = c.lookup("openai/gpt-4.1").unwrap();
        assert_eq!(gpt.cost.input, 9.5);
        assert_eq!(gpt.cost.output, 8.0, "unset prices keep the built-in value");
        assert_eq!(gpt.context, 1_047_576);
    }

    #[test]
    fn a_wrong_field_is_named() {
        let err = Catalogue::with_config(&providers(
            json!({"openai": {"models": {"m": {"limit": {"context": "big"}}}}}),
        ))
        .unwrap_err();
        assert_eq!(err.field, "provider.openai.models.m.limit.context");
        assert!(err.to_string().contains("whole number"), "{err}");
        let err = Catalogue::with_config(&providers(
            json!({"openai": {"models": {"m": {"cost": {"output": -1}}}}}),
        ))
        .unwrap_err();
        assert_eq!(err.field, "provider.openai.models.m.cost.output");
    }
}
