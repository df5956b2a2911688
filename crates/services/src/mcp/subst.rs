//! `{env:VAR}` and `{file:path}` in MCP config values, as opencode substitutes them.
//!
//! An unset variable becomes empty text; a file that cannot be read fails the server (named by
//! the caller), since a missing secret would only fail later and less clearly.

use std::path::Path;

/// Where `{file:…}` paths are taken from.
#[derive(Debug, Clone, Copy)]
pub struct Roots<'a> {
    /// Relative paths start here (the project directory).
    pub project: &'a Path,
    /// `~/` is this directory (the runtime flags' home, so tests never read the real one).
    pub home: &'a Path,
}

/// Replaces every `{env:NAME}` and `{file:PATH}` in `value`. A file's trailing newline is
/// dropped.
pub fn substitute(value: &str, roots: Roots<'_>) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let Some(end) = tail.find('}') else {
            out.push_str(tail);
            return Ok(out);
        };
        let token = &tail[1..end];
        if let Some(name) = token.strip_prefix("env:") {
            out.push_str(&std::env::var(name.trim()).unwrap_or_default());
        } else if let Some(path) = token.strip_prefix("file:") {
            out.push_str(&read(path.trim(), roots)?);
        } else {
            out.push_str(&tail[..=end]);
        }
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn read(path: &str, roots: Roots<'_>) -> Result<String, String> {
    let full = match path.strip_prefix("~/") {
        Some(rest) => roots.home.join(rest),
        None => roots.project.join(path),
    };
    // Config-time read of a small secret file, like the config files themselves.
    let text = std::fs::read_to_string(&full).map_err(|e| {
        format!(
            "could not read {} for `{{file:{path}}}`: {e}",
            full.display()
        )
    })?;
    Ok(text.trim_end_matches(['\n', '\r']).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots(dir: &Path) -> Roots<'_> {
        Roots {
            project: dir,
            home: dir,
        }
    }

    #[test]
    fn env_and_file_values_are_substituted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("token"), "s3cret\n").unwrap();
        let home = std::env::var("HOME").unwrap_or_default();
        let got = substitute("Bearer {file:token} at {env:HOME}", roots(dir.path())).unwrap();
        assert_eq!(got, format!("Bearer s3cret at {home}"));
        // `~/` is the roots' home, not the process's.
        let elsewhere = tempfile::tempdir().unwrap();
        let in_home = Roots {
            project: elsewhere.path(),
            home: dir.path(),
        };
        assert_eq!(substitute("{file:~/token}", in_home).unwrap(), "s3cret");
        assert_eq!(
            substitute("{env:STRATA_SURELY_UNSET_VAR}x", roots(dir.path())).unwrap(),
            "x"
        );
        assert_eq!(
            substitute("{other} {env:", roots(dir.path())).unwrap(),
            "{other} {env:"
        );
        let err = substitute("{file:missing}", roots(dir.path())).unwrap_err();
        assert!(
            err.contains("missing") && err.contains("{file:missing}"),
            "{err}"
        );
    }
}
