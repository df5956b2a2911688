//! `{env:VAR}` and `{file:path}` in MCP config values, as opencode substitutes them.
//!
//! An unset variable becomes empty text; a file that cannot be read fails the server (named by
//! the caller), since a missing secret would only fail later and less clearly.

use std::path::Path;

/// Replaces every `{env:NAME}` and `{file:PATH}` in `value`. Relative paths are taken from
/// `base` (the project directory); `~/` is the home directory. A file's trailing newline is
/// dropped.
pub fn substitute(value: &str, base: &Path) -> Result<String, String> {
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
            out.push_str(&read(path.trim(), base)?);
        } else {
            out.push_str(&tail[..=end]);
        }
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn read(path: &str, base: &Path) -> Result<String, String> {
    let full = match path.strip_prefix("~/") {
        Some(rest) => dirs::home_dir().unwrap_or_default().join(rest),
        None => base.join(path),
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

    #[test]
    fn env_and_file_values_are_substituted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("token"), "s3cret\n").unwrap();
        let home = std::env::var("HOME").unwrap_or_default();
        let got = substitute("Bearer {file:token} at {env:HOME}", dir.path()).unwrap();
        assert_eq!(got, format!("Bearer s3cret at {home}"));
        assert_eq!(
            substitute("{env:STRATA_SURELY_UNSET_VAR}x", dir.path()).unwrap(),
            "x"
        );
        assert_eq!(
            substitute("{other} {env:", dir.path()).unwrap(),
            "{other} {env:"
        );
        let err = substitute("{file:missing}", dir.path()).unwrap_err();
        assert!(
            err.contains("missing") && err.contains("{file:missing}"),
            "{err}"
        );
    }
}
