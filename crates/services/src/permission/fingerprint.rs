//! What a permission request showed, as hashes: the call's input and the files its diff was
//! computed from. A request keeps its [`Fingerprint`]; after a person approves it, the caller
//! computes one again and [`compare`]s the two, so an approval only ever covers the call and the
//! file contents that were on screen.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The hashes one request showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// [`input_hash`] of the call's input.
    pub input: String,
    /// [`files_hash`] of the files the request's diff was computed from.
    pub files: String,
}

/// What an approved fingerprint says about the call as it is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drift {
    /// Same input, same files: the approval covers what would run.
    None,
    /// The call's input is not the one that was approved: refuse it.
    Input,
    /// The files changed since the ask: the diff shown is stale, ask again.
    Files,
}

/// The hash of a JSON input, independent of key order: objects are hashed with their keys
/// sorted, at every depth.
pub fn input_hash(input: &Value) -> String {
    let text = canonical(input).to_string();
    hex(&Sha256::digest(text.as_bytes()))
}

/// The hash of a set of files: each path with its content, or the word `absent` for a file
/// that does not exist. Order does not matter; paths are length-prefixed so that no two sets
/// encode the same.
pub fn files_hash<'a>(files: impl IntoIterator<Item = (&'a str, Option<&'a [u8]>)>) -> String {
    let mut lines: Vec<String> = files
        .into_iter()
        .map(|(path, content)| {
            let state = match content {
                Some(bytes) => hex(&Sha256::digest(bytes)),
                None => "absent".to_string(),
            };
            format!("{}:{path}={state}\n", path.len())
        })
        .collect();
    lines.sort();
    lines.dedup();
    hex(&Sha256::digest(lines.concat().as_bytes()))
}

/// Compares what was approved with what would run now. A changed input wins over changed
/// files: a different call is refused outright rather than asked about again.
pub fn compare(approved: &Fingerprint, now: &Fingerprint) -> Drift {
    if approved.input != now.input {
        Drift::Input
    } else if approved.files != now.files {
        Drift::Files
    } else {
        Drift::None
    }
}

fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let sorted: Map<String, Value> = entries
                .into_iter()
                .map(|(k, v)| (k.clone(), canonical(v)))
                .collect();
            Value::Object(sorted)
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_input_hash_ignores_key_order_but_not_values() {
        let a = json!({"filePath": "a.rs", "edit": {"old": "x", "new": "y"}, "all": [1, 2]});
        let b = json!({"all": [1, 2], "edit": {"new": "y", "old": "x"}, "filePath": "a.rs"});
        assert_eq!(input_hash(&a), input_hash(&b));
        let c = json!({"all": [2, 1], "edit": {"new": "y", "old": "x"}, "filePath": "a.rs"});
        assert_ne!(input_hash(&a), input_hash(&c), "array order is meaningful");
        let d = json!({"all": [1, 2], "edit": {"new": "z", "old": "x"}, "filePath": "a.rs"});
        assert_ne!(input_hash(&a), input_hash(&d));
        assert_eq!(input_hash(&a).len(), 64);
    }

    #[test]
    fn a_missing_file_differs_from_an_empty_one_and_order_does_not_matter() {
        let absent = files_hash([("a.txt", None)]);
        let empty = files_hash([("a.txt", Some(&b""[..]))]);
        assert_ne!(absent, empty);
        assert_ne!(empty, files_hash([("a.txt", Some(&b"x"[..]))]));
        assert_eq!(
            files_hash([("a", Some(&b"1"[..])), ("b", None)]),
            files_hash([("b", None), ("a", Some(&b"1"[..]))]),
        );
        assert_ne!(
            files_hash([("a", Some(&b"1"[..]))]),
            files_hash([("b", Some(&b"1"[..]))]),
            "the path is part of the state"
        );
        assert_ne!(files_hash([]), absent);
    }

    #[test]
    fn compare_names_what_drifted_and_input_wins() {
        let fp = |input: &str, files: &str| Fingerprint {
            input: input.into(),
            files: files.into(),
        };
        assert_eq!(compare(&fp("i", "f"), &fp("i", "f")), Drift::None);
        assert_eq!(compare(&fp("i", "f"), &fp("i", "g")), Drift::Files);
        assert_eq!(compare(&fp("i", "f"), &fp("j", "f")), Drift::Input);
        assert_eq!(compare(&fp("i", "f"), &fp("j", "g")), Drift::Input);
    }
}
