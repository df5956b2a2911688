//! Reading one config field at a time, so a wrong value is reported with its field name,
//! what was expected and what was found. Shared by the document parser and the `mcp` section.

use serde_json::{Map, Value};

use super::ConfigError;

/// A field of the wrong type; the caller adds the file name.
#[derive(Debug)]
pub(super) struct FieldError {
    pub(super) field: String,
    expected: &'static str,
    pub(super) found: String,
}

impl FieldError {
    pub(super) fn in_file(self, file: &str) -> ConfigError {
        ConfigError::Field {
            file: file.to_string(),
            field: self.field,
            expected: self.expected,
            found: self.found,
        }
    }
}

pub(super) fn wrong(field: &str, expected: &'static str, value: &Value) -> FieldError {
    FieldError {
        field: field.to_string(),
        expected,
        found: describe(value),
    }
}

/// A short description of a JSON value for error messages.
fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => return "null".into(),
        Value::Bool(b) => return format!("the boolean {b}"),
        Value::Number(n) => return format!("the number {n}"),
        Value::String(_) => "the string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    let mut text = value.to_string();
    if text.len() > 60 {
        let mut cut = 57;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("...");
    }
    format!("{kind} {text}")
}

/// Looks up `key` in `obj`; JSON `null` counts as absent.
pub(super) fn get<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

pub(super) fn string(
    obj: &Map<String, Value>,
    key: &str,
    field: &str,
) -> Result<Option<String>, FieldError> {
    match get(obj, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(wrong(field, "a string", v)),
    }
}

pub(super) fn boolean(
    obj: &Map<String, Value>,
    key: &str,
    field: &str,
) -> Result<Option<bool>, FieldError> {
    match get(obj, key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(wrong(field, "true or false", v)),
    }
}

pub(super) fn positive(
    obj: &Map<String, Value>,
    key: &str,
    field: &str,
) -> Result<Option<usize>, FieldError> {
    // usize holds every u64 on the 64-bit targets Strata builds for.
    let n = positive_as(obj, key, field, "a positive integer")?;
    Ok(n.map(|n| usize::try_from(n).unwrap_or(usize::MAX)))
}

/// A whole number above zero; `what` says what was expected when it is not one.
pub(super) fn positive_as(
    obj: &Map<String, Value>,
    key: &str,
    field: &str,
    what: &'static str,
) -> Result<Option<u64>, FieldError> {
    match get(obj, key) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|n| *n > 0)
            .map(Some)
            .ok_or_else(|| wrong(field, what, v)),
    }
}

pub(super) fn object<'a>(
    obj: &'a Map<String, Value>,
    key: &str,
    field: &str,
) -> Result<Option<&'a Map<String, Value>>, FieldError> {
    match get(obj, key) {
        None => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(v) => Err(wrong(field, "an object", v)),
    }
}

/// An array of strings at `field` (absent: empty); `item` and `list` say what is expected.
pub(super) fn strings(
    value: Option<&Value>,
    field: &str,
    item: &'static str,
    list: &'static str,
) -> Result<Vec<String>, FieldError> {
    match value {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::String(s) => Ok(s.clone()),
                v => Err(wrong(&format!("{field}[{i}]"), item, v)),
            })
            .collect(),
        Some(v) => Err(wrong(field, list, v)),
    }
}
