//! The wire schema of a tool's parameters (spec §0.2), generated from `Params`.
//!
//! schemars gives draft 2020-12 with Rust-specific details; this module turns that into the
//! shape models are used to: `$ref`s inlined, no titles or formats, optional fields not
//! nullable, integers bounded to the JSON-safe range.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

/// The largest integer a JSON number holds exactly (2^53 − 1).
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The wire schema of `P`.
pub fn wire_schema<P: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let schema = generator.into_root_schema_for::<P>();
    let mut value = schema.to_value();
    normalize_root(&mut value);
    value
}

fn normalize_root(v: &mut Value) {
    let Some(obj) = v.as_object_mut() else {
        return;
    };
    obj.remove("title");
    obj.remove("description");
    obj.remove("$defs");
    obj.insert("$schema".into(), json!(DRAFT));
    if !obj.contains_key("properties") {
        obj.insert("properties".into(), json!({}));
    }
    normalize_object(obj);
    // `$schema` first, then type, properties, required: stable and readable.
    let mut ordered = Map::new();
    for key in ["$schema", "type", "properties", "required"] {
        if let Some(x) = obj.remove(key) {
            ordered.insert(key.into(), x);
        }
    }
    ordered.append(obj);
    *v = Value::Object(ordered);
}

fn normalize_object(obj: &mut Map<String, Value>) {
    obj.remove("additionalProperties");
    obj.remove("title");
    let required: Vec<String> = obj
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        for (name, p) in props.iter_mut() {
            // A required field that may be null says so on purpose; only an optional one loses
            // its `null` (a model would send `null` instead of leaving the key out).
            let optional = !required.contains(name);
            normalize_property(p, optional);
        }
    }
    if obj
        .get("required")
        .is_some_and(|r| r.as_array().is_some_and(Vec::is_empty))
    {
        obj.remove("required");
    }
}

fn normalize_property(p: &mut Value, optional: bool) {
    let Some(obj) = p.as_object_mut() else {
        return;
    };
    if let Some(Value::String(d)) = obj.get_mut("description") {
        *d = unwrap_lines(d);
    }
    if optional {
        drop_null(obj);
    }
    // Members of a combination are schemas of their own; each is kept (repeated `allOf`
    // constraints included) and normalised in place.
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(members)) = obj.get_mut(key) {
            for member in members {
                normalize_property(member, false);
            }
        }
    }
    if obj.get("type") == Some(&json!("integer")) {
        obj.remove("format");
        obj.entry("minimum").or_insert(json!(-MAX_SAFE_INTEGER));
        obj.entry("maximum").or_insert(json!(MAX_SAFE_INTEGER));
    }
    if obj.get("type") == Some(&json!("number")) {
        obj.remove("format");
    }
    if obj.get("type") == Some(&json!("object")) {
        normalize_object(obj);
    }
    if let Some(items) = obj.get_mut("items") {
        normalize_property(items, false);
    }
}

/// `Option<T>` as schemars writes it (`"type": [T, "null"]`, `anyOf: [T, {"type":"null"}]`, a
/// `null` in an `enum`) → plain T.
fn drop_null(obj: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = obj.get("type").cloned() {
        let kept: Vec<Value> = types.into_iter().filter(|t| t != "null").collect();
        if kept.len() == 1 {
            obj.insert("type".into(), kept[0].clone());
        } else {
            obj.insert("type".into(), Value::Array(kept));
        }
    }
    if let Some(Value::Array(any)) = obj.get("anyOf").cloned() {
        let kept: Vec<Value> = any
            .into_iter()
            .filter(|s| s.get("type") != Some(&json!("null")))
            .collect();
        if kept.len() == 1 {
            obj.remove("anyOf");
            if let Value::Object(inner) = &kept[0] {
                for (k, v) in inner {
                    obj.entry(k.clone()).or_insert(v.clone());
                }
            }
        } else {
            obj.insert("anyOf".into(), Value::Array(kept));
        }
    }
    if obj.get("enum").is_some_and(Value::is_array)
        && let Some(Value::Array(values)) = obj.get_mut("enum")
    {
        values.retain(|x| !x.is_null());
    }
}

/// Doc comments wrap at the source's line width; a model should see flowing sentences, with
/// blank lines (paragraphs) and list items kept.
fn unwrap_lines(text: &str) -> String {
    let mut out = String::new();
    for line in text.split('\n') {
        let t = line.trim();
        let starts_item = t.starts_with("- ") || t.starts_with("* ");
        if out.is_empty() {
            out.push_str(t);
        } else if t.is_empty() {
            out.push_str("\n\n");
        } else if out.ends_with("\n\n") || starts_item {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(t);
        } else {
            out.push(' ');
            out.push_str(t);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::JsonSchema;
    use serde::Deserialize;

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    struct Sample {
        /// The file.
        file_path: String,
        /// Where to start.
        offset: Option<u64>,
        count: Option<i32>,
        flag: Option<bool>,
        items: Vec<Item>,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Item {
        name: String,
        #[serde(default)]
        kind: Kind,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema, Default)]
    #[serde(rename_all = "lowercase")]
    enum Kind {
        #[default]
        Low,
        High,
    }

    #[test]
    fn wrapped_doc_lines_flow() {
        assert_eq!(unwrap_lines("a long\nsentence."), "a long sentence.");
        assert_eq!(unwrap_lines("one.\n\ntwo."), "one.\n\ntwo.");
        assert_eq!(unwrap_lines("list:\n- a\n- b"), "list:\n- a\n- b");
    }

    #[test]
    fn wire_schema_has_the_expected_shape() {
        let s = wire_schema::<Sample>();
        assert_eq!(s["$schema"], DRAFT);
        assert_eq!(s["type"], "object");
        assert_eq!(s["required"], json!(["filePath", "items"]));
        assert!(s.get("additionalProperties").is_none());
        assert!(s.get("title").is_none());
        let keys: Vec<_> = s["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, ["filePath", "offset", "count", "flag", "items"]);
        let offset = &s["properties"]["offset"];
        assert_eq!(offset["type"], "integer");
        assert_eq!(offset["minimum"], 0);
        assert_eq!(offset["maximum"], MAX_SAFE_INTEGER);
        assert!(offset.get("format").is_none());
        assert_eq!(offset["description"], "Where to start.");
        let count = &s["properties"]["count"];
        assert_eq!(count["minimum"], -MAX_SAFE_INTEGER);
        assert_eq!(s["properties"]["flag"]["type"], "boolean");
        let item = &s["properties"]["items"]["items"];
        assert_eq!(item["type"], "object");
        assert_eq!(item["properties"]["kind"]["enum"], json!(["low", "high"]));
        assert!(!s.to_string().contains("$ref"), "{s}");
    }

    #[test]
    fn required_nullable_fields_and_repeated_all_of_constraints_are_kept() {
        let mut s = json!({
            "type": "object",
            "properties": {
                "reason": {"type": ["string", "null"]},
                "note": {"type": ["string", "null"]},
                "size": {"allOf": [
                    {"type": "integer", "format": "uint32"},
                    {"minimum": 1},
                    {"minimum": 1},
                ]},
                "mode": {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]},
            },
            "required": ["reason", "size"],
        });
        normalize_root(&mut s);
        let props = &s["properties"];
        assert_eq!(
            props["reason"]["type"],
            json!(["string", "null"]),
            "required"
        );
        assert_eq!(props["note"]["type"], "string", "optional");
        assert_eq!(
            props["size"]["allOf"],
            json!([
                {"type": "integer", "minimum": -MAX_SAFE_INTEGER, "maximum": MAX_SAFE_INTEGER},
                {"minimum": 1},
                {"minimum": 1},
            ])
        );
        assert_eq!(
            props["mode"]["anyOf"],
            json!([
                {"type": "integer", "minimum": -MAX_SAFE_INTEGER, "maximum": MAX_SAFE_INTEGER},
                {"type": "string"},
            ])
        );
    }

    #[test]
    fn defaulted_optional_keys_are_not_nullable() {
        let s = wire_schema::<Sample>();
        let kind = &s["properties"]["items"]["items"]["properties"]["kind"];
        assert!(!kind.to_string().contains("null"), "{kind}");
        for key in ["offset", "count", "flag"] {
            let p = &s["properties"][key];
            assert!(!p.to_string().contains("null"), "{key}: {p}");
        }
        let required = s["properties"]["items"]["items"]["required"].clone();
        assert_eq!(required, json!(["name"]), "a defaulted key is not required");
    }
}
