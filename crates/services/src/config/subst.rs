//! `{env:VAR}` and `{file:path}` in config values, as opencode writes them: applied to every
//! string value of every config file when it is read, so secrets can stay out of the files.
//!
//! `{env:VAR}` becomes the variable's value, or nothing when it is unset. `{file:path}`
//! becomes the file's content with surrounding whitespace trimmed; a relative path starts at
//! the config file's folder and `~/` at the home directory. A file that cannot be read is an
//! error: a missing secret would otherwise fail later, and less clearly.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// What substitution needs: where relative paths start, the home directory and a reader of
/// environment variables (tests pass their own, so the process environment is never touched).
#[derive(Clone, Copy)]
pub(crate) struct Context<'a> {
    /// The folder of the config file (the instance directory for inline config).
    pub(crate) dir: &'a Path,
    /// `~/` (the runtime flags' home, so tests never read the real one).
    pub(crate) home: &'a Path,
    pub(crate) env: &'a dyn Fn(&str) -> Option<String>,
}

impl std::fmt::Debug for Context<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("dir", &self.dir)
            .field("home", &self.home)
            .finish_non_exhaustive()
    }
}

/// A `{file:…}` whose file could not be read.
#[derive(Debug)]
pub(crate) struct FileError {
    /// The path as written in the value.
    pub(crate) written: String,
    /// Where it was looked for.
    pub(crate) full: PathBuf,
    pub(crate) source: std::io::Error,
}

/// Substitutes in every string of `value` (object keys are left as written).
pub(crate) fn substitute_all(value: &mut Value, cx: Context<'_>) -> Result<(), FileError> {
    match value {
        Value::String(s) => {
            if s.contains('{') {
                *s = substitute(s, cx)?;
            }
        }
        Value::Array(items) => {
            for item in items {
                substitute_all(item, cx)?;
            }
        }
        Value::Object(map) => {
            for (_, item) in map.iter_mut() {
                substitute_all(item, cx)?;
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
    Ok(())
}

/// Replaces every `{env:NAME}` and `{file:PATH}` in `text`; other braces stay as written.
pub(crate) fn substitute(text: &str, cx: Context<'_>) -> Result<String, FileError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let Some(end) = tail.find('}') else {
            out.push_str(tail);
            return Ok(out);
        };
        let token = &tail[1..end];
        if let Some(name) = token.strip_prefix("env:") {
            out.push_str(&(cx.env)(name.trim()).unwrap_or_default());
        } else if let Some(path) = token.strip_prefix("file:") {
            out.push_str(&read(path.trim(), cx)?);
        } else {
            out.push_str(&tail[..=end]);
        }
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn read(path: &str, cx: Context<'_>) -> Result<String, FileError> {
    let full = match path.strip_prefix("~/") {
        Some(rest) => cx.home.join(rest),
        None => cx.dir.join(path),
    };
    // A config-time read of a small file, like the config files themselves.
    match std::fs::read_to_string(&full) {
        Ok(text) => Ok(text.trim().to_string()),
        Err(source) => Err(FileError {
            written: path.to_string(),
            full,
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn env(name: &str) -> Option<String> {
        (name == "TOKEN").then(|| "t0k".to_string())
    }

    fn cx<'a>(dir: &'a Path, home: &'a Path) -> Context<'a> {
        Context {
            dir,
            home,
            env: &env,
        }
    }

    #[test]
    fn env_values_and_unset_variables() {
        let d = Path::new("/nowhere");
        assert_eq!(
            substitute("Bearer {env:TOKEN}!", cx(d, d)).unwrap(),
            "Bearer t0k!"
        );
        assert_eq!(substitute("{env: TOKEN }", cx(d, d)).unwrap(), "t0k");
        assert_eq!(substitute("a{env:UNSET}b", cx(d, d)).unwrap(), "ab");
        // Other braces, and a brace never closed, stay as written.
        assert_eq!(
            substitute("{other} {x:y} {env:", cx(d, d)).unwrap(),
            "{other} {x:y} {env:"
        );
    }

    #[test]
    fn files_are_read_relative_to_the_config_folder_or_home_and_trimmed() {
        let dir = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("key"), "  s3cret\n\n").unwrap();
        std::fs::write(home.path().join("h"), "from home\n").unwrap();
        let c = cx(dir.path(), home.path());
        assert_eq!(substitute("{file:key}", c).unwrap(), "s3cret");
        assert_eq!(
            substitute("{file:./key}/{file:~/h}", c).unwrap(),
            "s3cret/from home"
        );
        let abs = format!("{{file:{}}}", dir.path().join("key").display());
        assert_eq!(substitute(&abs, c).unwrap(), "s3cret");
        let err = substitute("x {file:missing.txt}", c).unwrap_err();
        assert_eq!(err.written, "missing.txt");
        assert_eq!(err.full, dir.path().join("missing.txt"));
    }

    #[test]
    fn every_string_of_a_document_is_substituted_and_keys_are_not() {
        let d = Path::new("/nowhere");
        let mut doc = json!({
            "provider": {"x": {"options": {"apiKey": "{env:TOKEN}"}}},
            "list": ["{env:TOKEN}", 3, true, null],
            "{env:TOKEN}": "key stays",
        });
        substitute_all(&mut doc, cx(d, d)).unwrap();
        assert_eq!(
            doc,
            json!({
                "provider": {"x": {"options": {"apiKey": "t0k"}}},
                "list": ["t0k", 3, true, null],
                "{env:TOKEN}": "key stays",
            })
        );
    }
}
