//! Packs the models.dev catalogue (`catalogue/models-dev.json`, MIT, see `catalogue/LICENSE`)
//! into the binary: only the fields Strata reads are kept, each model's `base_model` is folded
//! in (its own fields win), and each provider is deflated on its own (`models-dev.bin`, the
//! chunks one after another; `models-dev-index.rs`, each provider's id and byte range). The
//! agent inflates and parses a provider the first time it is looked up, so commands that never
//! resolve a model pay nothing, and a run pays for its own provider only.

use std::path::PathBuf;

use serde_json::{Map, Value, json};

const SOURCE: &str = "catalogue/models-dev.json";

fn main() {
    println!("cargo::rerun-if-changed={SOURCE}");
    println!("cargo::rerun-if-changed=build.rs");
    let text = std::fs::read_to_string(SOURCE)
        .unwrap_or_else(|e| panic!("cannot read {SOURCE} (the packed model catalogue): {e}"));
    let full: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{SOURCE} is not valid JSON: {e}"));
    let providers = full
        .get("providers")
        .and_then(Value::as_object)
        .unwrap_or_else(|| panic!("{SOURCE} has no `providers` object"));
    let mut chunks = Vec::new();
    let mut index = String::from("&[\n");
    // Sorted by id whatever order the map keeps, so the agent can search the index.
    let mut sorted: Vec<_> = providers.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    for (id, provider) in sorted {
        let bytes = serde_json::to_vec(&pack_provider(providers, provider))
            .unwrap_or_else(|e| panic!("cannot serialise the packed provider {id}: {e}"));
        let start = chunks.len();
        chunks.extend(miniz_oxide::deflate::compress_to_vec(&bytes, 9));
        // `{:?}` writes the id as a Rust string literal, escapes included.
        index.push_str(&format!("    ({id:?}, {start}, {}),\n", chunks.len()));
    }
    index.push_str("]\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into()));
    std::fs::write(out.join("models-dev.bin"), chunks)
        .unwrap_or_else(|e| panic!("cannot write the packed catalogue to OUT_DIR: {e}"));
    std::fs::write(out.join("models-dev-index.rs"), index)
        .unwrap_or_else(|e| panic!("cannot write the catalogue index to OUT_DIR: {e}"));
}

fn pack_provider(all: &Map<String, Value>, provider: &Value) -> Value {
    let mut out = Map::new();
    for key in ["name", "env", "npm", "api"] {
        if let Some(v) = provider.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    let mut models = Map::new();
    if let Some(list) = provider.get("models").and_then(Value::as_object) {
        for (id, model) in list {
            models.insert(id.clone(), pack_model(&folded(all, model, 0)));
        }
    }
    out.insert("models".into(), Value::Object(models));
    Value::Object(out)
}

/// `model` with its `base_model` (`provider/model`) underneath: the base's fields where the
/// model has none, `limit` and `cost` merged key by key. A missing or self-referring base
/// leaves the model as it is.
fn folded(all: &Map<String, Value>, model: &Value, depth: u8) -> Value {
    let Some(base_id) = model.get("base_model").and_then(Value::as_str) else {
        return model.clone();
    };
    let base = base_id
        .split_once('/')
        .and_then(|(p, m)| all.get(p)?.get("models")?.get(m))
        .filter(|b| *b != model && depth < 4);
    let Some(base) = base else {
        return model.clone();
    };
    let mut merged = folded(all, base, depth + 1);
    let (Some(into), Some(own)) = (merged.as_object_mut(), model.as_object()) else {
        return model.clone();
    };
    for (key, value) in own {
        match (into.get_mut(key), value) {
            (Some(Value::Object(a)), Value::Object(b)) if key == "limit" || key == "cost" => {
                for (k, v) in b {
                    a.insert(k.clone(), v.clone());
                }
            }
            _ => {
                into.insert(key.clone(), value.clone());
            }
        }
    }
    merged
}

fn pack_model(model: &Value) -> Value {
    let mut out = Map::new();
    for key in [
        "name",
        "reasoning",
        "tool_call",
        "temperature",
        "attachment",
        "status",
        "release_date",
    ] {
        if let Some(v) = model.get(key).filter(|v| !v.is_null()) {
            out.insert(key.into(), v.clone());
        }
    }
    if let Some(limit) = model.get("limit") {
        for key in ["context", "output"] {
            if let Some(n) = limit.get(key).and_then(Value::as_u64) {
                out.insert(key.into(), json!(n));
            }
        }
    }
    if let Some(cost) = model.get("cost").and_then(Value::as_object) {
        let kept: Map<String, Value> = ["input", "output", "cache_read", "cache_write"]
            .iter()
            .filter_map(|k| Some((k.to_string(), cost.get(*k)?.clone())))
            .collect();
        out.insert("cost".into(), Value::Object(kept));
    }
    match model.get("interleaved") {
        Some(Value::Bool(true)) => {
            out.insert("interleaved".into(), json!("reasoning_content"));
        }
        Some(Value::Object(o)) => {
            if let Some(field) = o.get("field") {
                out.insert("interleaved".into(), field.clone());
            }
        }
        _ => {}
    }
    if let Some(input) = model.pointer("/modalities/input") {
        out.insert("input".into(), input.clone());
    }
    if let Some(own) = model.get("provider").and_then(Value::as_object) {
        for key in ["npm", "api", "shape"] {
            if let Some(v) = own.get(key) {
                out.insert(key.into(), v.clone());
            }
        }
    }
    Value::Object(out)
}
