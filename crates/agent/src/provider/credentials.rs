//! Stored API keys: `strata auth login` writes them to `<data dir>/auth.json` (mode 0600, in
//! opencode's shape `{"<provider>": {"type": "api", "key": "…"}}`), and opencode's own
//! `auth.json` is read when present, so keys a user already gave opencode work here too.
//! Strata's file wins over opencode's. Only API keys are read: OAuth sign-ins of other tools
//! cannot be reused.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

/// The name of the key file in the data directory.
pub const FILE_NAME: &str = "auth.json";

/// Where a stored key came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum KeyOrigin {
    /// Strata's own `auth.json`.
    Strata,
    /// opencode's `auth.json`.
    Opencode,
}

/// The key files: Strata's own (read and written) and opencode's (read only).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Credentials {
    own: Option<PathBuf>,
    opencode: Option<PathBuf>,
}

impl Credentials {
    /// No stored keys at all (tests, and callers without a data directory).
    pub fn none() -> Self {
        Self::default()
    }

    /// Keys in `<data_dir>/auth.json`, then in `opencode_file` when given.
    pub fn new(data_dir: &Path, opencode_file: Option<PathBuf>) -> Self {
        Self {
            own: Some(data_dir.join(FILE_NAME)),
            opencode: opencode_file,
        }
    }

    /// Strata's key file in `data_dir` and opencode's where opencode keeps it:
    /// `$XDG_DATA_HOME/opencode/auth.json`, else `~/.local/share/opencode/auth.json`.
    pub fn standard(data_dir: &Path, home: &Path, env: &dyn Fn(&str) -> Option<String>) -> Self {
        let data_home = env("XDG_DATA_HOME")
            .filter(|v| !v.trim().is_empty())
            .map_or_else(|| home.join(".local").join("share"), PathBuf::from);
        Self::new(data_dir, Some(data_home.join("opencode").join(FILE_NAME)))
    }

    /// Strata's own key file, if any.
    pub fn file(&self) -> Option<&Path> {
        self.own.as_deref()
    }

    /// The stored key for `provider`, and where it came from.
    pub fn key(&self, provider: &str) -> Option<(String, KeyOrigin)> {
        let read = |path: &Option<PathBuf>| api_key(&read_map(path.as_deref()?), provider);
        read(&self.own)
            .map(|k| (k, KeyOrigin::Strata))
            .or_else(|| read(&self.opencode).map(|k| (k, KeyOrigin::Opencode)))
    }

    /// Every provider with a stored key, sorted, with where its key came from.
    pub fn list(&self) -> Vec<(String, KeyOrigin)> {
        let mut out: Vec<(String, KeyOrigin)> = Vec::new();
        for (path, origin) in [
            (&self.own, KeyOrigin::Strata),
            (&self.opencode, KeyOrigin::Opencode),
        ] {
            let Some(path) = path else { continue };
            let map = read_map(path);
            for id in map.keys() {
                if api_key(&map, id).is_some() && !out.iter().any(|(p, _)| p == id) {
                    out.push((id.clone(), origin));
                }
            }
        }
        out.sort();
        out
    }

    /// Stores `key` for `provider` in Strata's file (atomically, readable by the user only).
    pub fn set(&self, provider: &str, key: &str) -> Result<(), String> {
        let path = self.writable()?;
        let mut map = read_map(path);
        map.insert(provider.to_string(), json!({"type": "api", "key": key}));
        write_private(path, &Value::Object(map))
    }

    /// Removes the key of `provider` from Strata's file; `false` when it had none there.
    pub fn remove(&self, provider: &str) -> Result<bool, String> {
        let path = self.writable()?;
        let mut map = read_map(path);
        if map.remove(provider).is_none() {
            return Ok(false);
        }
        write_private(path, &Value::Object(map))?;
        Ok(true)
    }

    fn writable(&self) -> Result<&Path, String> {
        self.own
            .as_deref()
            .ok_or_else(|| "no data directory to store keys in".to_string())
    }
}

/// The `key` of an API-key entry (`{"type": "api", "key": …}`); other kinds are skipped.
fn api_key(map: &Map<String, Value>, provider: &str) -> Option<String> {
    let entry = map.get(provider)?;
    let kind = entry.get("type").and_then(Value::as_str).unwrap_or("api");
    (kind == "api")
        .then(|| entry.get("key").and_then(Value::as_str))
        .flatten()
        .filter(|k| !k.trim().is_empty())
        .map(str::to_string)
}

/// The file's object; a missing or unreadable file is empty (a broken file is reported by the
/// commands that write it, which refuse to overwrite it).
fn read_map(path: &Path) -> Map<String, Value> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| match v {
            Value::Object(m) => Some(m),
            _ => None,
        })
        .unwrap_or_default()
}

/// Writes `value` to `path` through a private temporary file in the same folder and a rename,
/// so a crash leaves either the old file or the new one, never half of one.
fn write_private(path: &Path, value: &Value) -> Result<(), String> {
    let shown = path.display();
    if let Ok(text) = std::fs::read_to_string(path)
        && serde_json::from_str::<Value>(&text).map_or(true, |v| !v.is_object())
    {
        return Err(format!(
            "{shown} is not a JSON object; fix or remove it before storing keys"
        ));
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let tmp = dir.join(format!(".{FILE_NAME}.{}.tmp", std::process::id()));
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .and_then(|mut f| {
            f.write_all(text.as_bytes())?;
            f.write_all(b"\n")?;
            f.sync_all()
        })
        .and_then(|()| std::fs::rename(&tmp, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write {shown}: {e}")
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn keys_are_stored_privately_listed_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let opencode = dir.path().join("opencode-auth.json");
        std::fs::write(
            &opencode,
            r#"{"groq": {"type": "api", "key": "gsk-1"}, "anthropic": {"type": "oauth", "access": "x"}, "openai": {"type": "api", "key": "sk-oc"}}"#,
        )
        .unwrap();
        let creds = Credentials::new(&dir.path().join("data"), Some(opencode));
        assert_eq!(
            creds.key("groq"),
            Some(("gsk-1".into(), KeyOrigin::Opencode))
        );
        assert_eq!(creds.key("anthropic"), None, "OAuth entries are not keys");
        creds.set("openai", "sk-mine").unwrap();
        assert_eq!(
            creds.key("openai"),
            Some(("sk-mine".into(), KeyOrigin::Strata))
        );
        let file = creds.file().unwrap();
        let mode = std::fs::metadata(file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(
            creds.list(),
            [
                ("groq".to_string(), KeyOrigin::Opencode),
                ("openai".to_string(), KeyOrigin::Strata)
            ]
        );
        assert!(creds.remove("openai").unwrap());
        assert!(!creds.remove("openai").unwrap());
        assert_eq!(
            creds.key("openai"),
            Some(("sk-oc".into(), KeyOrigin::Opencode))
        );
    }

    #[test]
    fn a_broken_key_file_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE_NAME), "{not json").unwrap();
        let creds = Credentials::new(dir.path(), None);
        let err = creds.set("x", "k").unwrap_err();
        assert!(err.contains("not a JSON object"), "{err}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join(FILE_NAME)).unwrap(),
            "{not json"
        );
    }

    #[test]
    fn opencode_keys_are_found_under_xdg_data_home_or_home() {
        let home = Path::new("/h");
        let none = |_: &str| None;
        let c = Credentials::standard(Path::new("/d"), home, &none);
        assert_eq!(
            c.opencode.as_deref(),
            Some(Path::new("/h/.local/share/opencode/auth.json"))
        );
        let xdg = |k: &str| (k == "XDG_DATA_HOME").then(|| "/x".to_string());
        let c = Credentials::standard(Path::new("/d"), home, &xdg);
        assert_eq!(
            c.opencode.as_deref(),
            Some(Path::new("/x/opencode/auth.json"))
        );
    }
}
