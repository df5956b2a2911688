//! Reading the config sources (see [`discovery`](super::discovery)) and merging them: each
//! source is read as JSON with comments, its strings substituted, checked on its own (so an
//! error names the source at fault), searched for unknown keys, and merged over the ones before.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::discovery::{self, Source};
use super::provenance::Recorder;
use super::subst::{self, FileError};
use super::{ConfigError, jsonc, known, merge, parse};
use crate::flags::RuntimeFlags;
use crate::instance::InstanceInfo;

/// What loading produced, before it is wrapped in a [`Config`](super::Config).
#[derive(Debug)]
pub(super) struct Loaded {
    pub(super) merged: Value,
    pub(super) files: Vec<PathBuf>,
    pub(super) sources: Vec<(String, String)>,
    pub(super) warnings: Vec<String>,
}

/// Reads and merges every source; missing files are skipped.
pub(super) fn load(
    info: &InstanceInfo,
    flags: &RuntimeFlags,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Loaded, ConfigError> {
    let mut merged = Value::Object(Map::new());
    let mut files = Vec::new();
    let mut recorder = Recorder::default();
    let mut warnings = Vec::new();
    for source in discovery::sources(info, flags, env) {
        let label = source.label();
        let (text, dir) = match &source {
            Source::File(path) | Source::Named(path) => match read_text(path)? {
                Some(text) => (text, path.parent().unwrap_or(Path::new("/")).to_path_buf()),
                None => {
                    if matches!(source, Source::Named(_)) {
                        warnings.push(format!(
                            "{} names the config file {label}, which does not exist; it is \
                             skipped (fix the path or unset the variable)",
                            discovery::OPENCODE_CONFIG
                        ));
                    }
                    continue;
                }
            },
            Source::Inline(text) => (text.clone(), info.directory.clone()),
        };
        let mut value = parse_text(&text, &label)?;
        let cx = subst::Context {
            dir: &dir,
            home: &flags.home_dir,
            env,
        };
        subst::substitute_all(&mut value, cx).map_err(|e| file_error(e, &label))?;
        parse::typed(&value).map_err(|e| e.in_file(&label))?;
        if let Value::Object(doc) = &value {
            warnings.extend(
                doc.keys()
                    .filter(|k| !known::is_known(k))
                    .map(|k| known::unknown_key_warning(k, &label)),
            );
            recorder.record(doc, &label);
        }
        merge(&mut merged, value);
        if let Source::File(path) | Source::Named(path) = source {
            files.push(path);
        }
    }
    Ok(Loaded {
        sources: recorder.finish(&merged),
        merged,
        files,
        warnings,
    })
}

/// A file's text; `None` when it does not exist.
fn read_text(path: &Path) -> Result<Option<String>, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ConfigError::Read {
            file: path.display().to_string(),
            source,
        }),
    }
}

/// JSON with comments and trailing commas; blank text counts as `{}`. Errors give the line and
/// column of `text` as written.
fn parse_text(text: &str, label: &str) -> Result<Value, ConfigError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(&jsonc::strip(text)).map_err(|e| ConfigError::Syntax {
        file: label.to_string(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}

fn file_error(e: FileError, label: &str) -> ConfigError {
    ConfigError::Substitution {
        file: label.to_string(),
        written: e.written,
        path: e.full.display().to_string(),
        source: e.source,
    }
}
