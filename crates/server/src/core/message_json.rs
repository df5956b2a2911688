//! A stored message written straight to the JSON its `MessageEntry` serializes to, for the
//! unpaged list of a long session: the stored data is already JSON, so it is spliced into the
//! envelope (`{"id", "sessionID", …, data}`) instead of being read into values and written
//! out again. Data that cannot be spliced as it is (not an object, or holding a key the
//! envelope sets itself) goes through the typed views, which drop or keep such keys.

use std::path::Path;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use strata_agent::store::{Message, MessageText, Part, PartText, Role, StoreError};
use strata_protocol::wire::PartView;

use super::convert::message_view_of;

/// The keys of a JSON object, read without building its values.
struct Keys(Vec<String>);

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeysOf;
        impl<'de> Visitor<'de> for KeysOf {
            type Value = Keys;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    map.next_value::<IgnoredAny>()?;
                    keys.push(key);
                }
                Ok(Keys(keys))
            }
        }
        d.deserialize_map(KeysOf)
    }
}

/// The members of object `text` (between its braces) when it can be spliced: a JSON object,
/// written without space around it, holding none of `taken` and no key twice (a value keeps
/// only the last). Its keys come with it.
fn members<'a>(text: &'a str, taken: &[&str]) -> Option<(&'a str, Vec<String>)> {
    let inner = text.strip_prefix('{')?.strip_suffix('}')?;
    let Keys(keys) = serde_json::from_str(text).ok()?;
    let twice = keys.iter().enumerate().any(|(i, k)| keys[..i].contains(k));
    if twice || keys.iter().any(|k| taken.contains(&k.as_str())) {
        return None;
    }
    Some((inner.trim(), keys))
}

fn string(out: &mut Vec<u8>, s: &str) {
    // A string always serializes.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// `,"key":` (or `"key":` first).
fn key(out: &mut Vec<u8>, first: bool, name: &str) {
    if !first {
        out.push(b',');
    }
    string(out, name);
    out.push(b':');
}

/// Stored data read as JSON, or a `Corrupt` error naming the database and table.
fn value(db: &Path, table: &'static str, text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt {
        path: db.to_path_buf(),
        table,
        detail: format!("a data column is not JSON: {e}"),
    })
}

/// A typed view, written (values and strings always serialize).
fn typed(out: &mut Vec<u8>, view: &impl serde::Serialize) {
    let _ = serde_json::to_writer(&mut *out, view);
}

/// The `info` of a listed message: `{id, sessionID, role, …data}`, and for an assistant
/// message `parentID` and `path` after its data unless it has them.
fn info(out: &mut Vec<u8>, m: &MessageText, cx: &Context<'_>) -> Result<(), StoreError> {
    let (parent, dir) = (cx.parent, cx.dir);
    let Some((inner, keys)) = members(&m.data, &["id", "sessionID", "role"]) else {
        let message = Message {
            id: m.id.clone(),
            session_id: m.session_id.clone(),
            role: m.role,
            created_ms: m.created_ms,
            data: value(cx.db, "messages", &m.data)?,
        };
        typed(out, &message_view_of(message, parent, Some(dir)));
        return Ok(());
    };
    out.push(b'{');
    key(out, true, "id");
    string(out, &m.id);
    key(out, false, "sessionID");
    string(out, &m.session_id);
    key(out, false, "role");
    string(out, m.role.as_str());
    if !inner.is_empty() {
        out.push(b',');
        out.extend_from_slice(inner.as_bytes());
    }
    if m.role == Role::Assistant {
        let has = |k: &str| keys.iter().any(|x| x == k);
        if let Some(parent) = parent.filter(|_| !has("parentID")) {
            key(out, false, "parentID");
            string(out, parent);
        }
        if !has("path") {
            key(out, false, "path");
            out.push(b'{');
            key(out, true, "cwd");
            string(out, dir);
            key(out, false, "root");
            string(out, dir);
            out.push(b'}');
        }
    }
    out.push(b'}');
    Ok(())
}

/// A listed part: `{id, sessionID, messageID, type, …data}`.
fn part(out: &mut Vec<u8>, p: &PartText, db: &Path) -> Result<(), StoreError> {
    let Some((inner, _)) = members(&p.data, &["id", "sessionID", "messageID", "type"]) else {
        let stored = Part {
            id: p.id.clone(),
            message_id: p.message_id.clone(),
            session_id: p.session_id.clone(),
            seq: 0,
            kind: p.kind.clone(),
            data: value(db, "parts", &p.data)?,
            updated_ms: 0,
        };
        typed(out, &PartView::from_part(stored));
        return Ok(());
    };
    out.push(b'{');
    key(out, true, "id");
    string(out, &p.id);
    key(out, false, "sessionID");
    string(out, &p.session_id);
    key(out, false, "messageID");
    string(out, &p.message_id);
    key(out, false, "type");
    string(out, &p.kind);
    if !inner.is_empty() {
        out.push(b',');
        out.extend_from_slice(inner.as_bytes());
    }
    out.push(b'}');
    Ok(())
}

/// Where a message is listed: the user message it answers, its session's directory, and
/// the database it was read from (named in errors).
pub(crate) struct Context<'a> {
    pub parent: Option<&'a str>,
    pub dir: &'a str,
    pub db: &'a Path,
}

/// Writes `m` as the JSON of its [`MessageEntry`]: `{"info": …, "parts": […]}`.
pub(crate) fn write_entry(
    out: &mut Vec<u8>,
    m: &MessageText,
    cx: &Context<'_>,
) -> Result<(), StoreError> {
    out.extend_from_slice(b"{\"info\":");
    info(out, m, cx)?;
    out.extend_from_slice(b",\"parts\":[");
    for (i, p) in m.parts.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        part(out, p, cx.db)?;
    }
    out.extend_from_slice(b"]}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::MessageEntry;
    use serde_json::json;

    fn text(data: Value) -> String {
        data.to_string()
    }

    /// What the typed views write for the same rows.
    fn through_views(m: &MessageText, parent: Option<&str>, dir: &str) -> String {
        let message = Message {
            id: m.id.clone(),
            session_id: m.session_id.clone(),
            role: m.role,
            created_ms: m.created_ms,
            data: serde_json::from_str(&m.data).unwrap(),
        };
        let parts = m
            .parts
            .iter()
            .map(|p| {
                PartView::from_part(Part {
                    id: p.id.clone(),
                    message_id: p.message_id.clone(),
                    session_id: p.session_id.clone(),
                    seq: 0,
                    kind: p.kind.clone(),
                    data: serde_json::from_str(&p.data).unwrap(),
                    updated_ms: 0,
                })
            })
            .collect();
        let entry = MessageEntry {
            info: message_view_of(message, parent, Some(dir)),
            parts,
        };
        serde_json::to_string(&entry).unwrap()
    }

    fn part_text(id: &str, kind: &str, data: String) -> PartText {
        PartText {
            id: id.into(),
            message_id: "msg_1".into(),
            session_id: "ses_1".into(),
            kind: kind.into(),
            data,
        }
    }

    #[test]
    fn spliced_entries_are_byte_for_byte_what_the_typed_views_write() {
        let parts = vec![
            part_text("prt_1", "step-start", text(json!({}))),
            part_text(
                "prt_2",
                "text",
                text(json!({"text": "a \"quoted\"\n\u{e9} line", "time": {"start": 1, "end": 2}})),
            ),
            part_text(
                "prt_3",
                "tool",
                text(
                    json!({"callID": "c", "tool": "bash", "state": {"status": "completed", "input": {"command": "ls"}, "output": "\u{1}", "metadata": {"exit": 0, "ratio": 0.25}}}),
                ),
            ),
            // Keys the envelope sets: dropped by the views, so not spliced.
            part_text(
                "prt_4",
                "text",
                text(json!({"id": "other", "type": "x", "text": "t"})),
            ),
            part_text("prt_5", "odd", text(json!([1, 2]))),
            part_text("prt_6", "odd", "null".into()),
        ];
        let cases = [
            (
                Role::User,
                json!({"time": {"created": 1}, "agent": "build"}),
                None,
            ),
            (
                Role::Assistant,
                json!({"time": {"created": 2}, "cost": 0.0125, "tokens": {"input": 3}}),
                Some("msg_0"),
            ),
            (
                Role::Assistant,
                json!({"parentID": "mine", "path": {"cwd": "/x"}, "agent": "a"}),
                Some("msg_0"),
            ),
            (Role::Assistant, json!({}), None),
            (
                Role::Assistant,
                json!({"role": "system", "id": "x"}),
                Some("msg_0"),
            ),
            (Role::User, json!("not an object"), None),
        ];
        for (role, data, parent) in cases {
            let m = MessageText {
                id: "msg_1".into(),
                session_id: "ses_1".into(),
                role,
                created_ms: 5,
                data: text(data),
                parts: parts.clone(),
            };
            let mut out = Vec::new();
            let cx = Context {
                parent,
                dir: "/p/\"dir\"",
                db: Path::new("strata.db"),
            };
            write_entry(&mut out, &m, &cx).unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                through_views(&m, parent, "/p/\"dir\"")
            );
        }
    }

    #[test]
    fn data_that_is_not_json_is_an_error() {
        let m = MessageText {
            id: "msg_1".into(),
            session_id: "ses_1".into(),
            role: Role::User,
            created_ms: 5,
            data: "{broken".into(),
            parts: vec![],
        };
        let cx = Context {
            parent: None,
            dir: "/p",
            db: Path::new("strata.db"),
        };
        let err = write_entry(&mut Vec::new(), &m, &cx).unwrap_err();
        assert!(err.to_string().contains("not JSON") && err.to_string().contains("strata.db"));
    }
}
