//! Where each setting came from: for every top-level key, and for every entry of the maps whose
//! entries are set one by one (`provider`, `mcp`, `agent`, `permission`), the last source that
//! set it. `strata debug config` prints it beside the merged config.

use std::collections::HashMap;

use serde_json::{Map, Value};

/// The maps whose entries are tracked one by one.
const NESTED: [&str; 4] = ["provider", "mcp", "agent", "permission"];

/// Records sources while files are merged; [`Recorder::finish`] orders the result.
#[derive(Debug, Default)]
pub(super) struct Recorder {
    last: HashMap<String, String>,
}

impl Recorder {
    /// Notes that the source labelled `label` set every key of `doc`.
    pub(super) fn record(&mut self, doc: &Map<String, Value>, label: &str) {
        for (key, value) in doc {
            self.last.insert(key.clone(), label.to_string());
            if let (true, Value::Object(entries)) = (NESTED.contains(&key.as_str()), value) {
                for entry in entries.keys() {
                    self.last
                        .insert(format!("{key}.{entry}"), label.to_string());
                }
            }
        }
    }

    /// `(key, source)` in the merged document's order: each key, then its tracked entries.
    pub(super) fn finish(mut self, merged: &Value) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let Value::Object(root) = merged else {
            return out;
        };
        for (key, value) in root {
            if let Some(source) = self.last.remove(key) {
                out.push((key.clone(), source));
            }
            if let (true, Value::Object(entries)) = (NESTED.contains(&key.as_str()), value) {
                for entry in entries.keys() {
                    let dotted = format!("{key}.{entry}");
                    if let Some(source) = self.last.remove(&dotted) {
                        out.push((dotted, source));
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn obj(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn the_last_source_to_set_a_key_or_entry_wins_in_merged_order() {
        let a = json!({"model": "m", "provider": {"x": {}, "y": {}}, "theme": "t"});
        let b = json!({"provider": {"y": {"k": 1}}, "model": "n", "tools": {"t": true}});
        let mut merged = a.clone();
        super::super::merge(&mut merged, b.clone());
        let mut r = Recorder::default();
        r.record(&obj(a), "A");
        r.record(&obj(b), "B");
        let got = r.finish(&merged);
        let want: Vec<(String, String)> = [
            ("model", "B"),
            ("provider", "B"),
            ("provider.x", "A"),
            ("provider.y", "B"),
            ("theme", "A"),
            ("tools", "B"),
        ]
        .iter()
        .map(|(k, s)| (k.to_string(), s.to_string()))
        .collect();
        // `tools` is not tracked entry by entry.
        assert_eq!(got, want);
    }
}
