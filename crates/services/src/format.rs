//! The Formatter service (spec §2 step 6, §3.1 step 8, §4 step 5): after `write`, `edit` or
//! `apply_patch` changes a file, the formatters configured for its type run on it.
//!
//! Only formatters named in config run; none is guessed from what happens to be installed:
//!
//! ```json
//! { "formatter": { "upper": { "command": ["prettier", "--write", "$FILE"], "extensions": ["ts"] } } }
//! ```
//!
//! `"formatter": false` turns them all off; `{"name": {"disabled": true}}` one of them. A
//! formatter that fails is logged and the file stays as written: formatting never fails a write.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use strata_graph::{BoxError, Node, Scope, Tier};

use crate::config::Config;
use crate::instance::InstanceInfo;
use crate::process::sandbox::Sandbox;
use crate::process::{ChildProcessSpawner, CommandSpec};

/// How long one formatter may run.
pub const FORMAT_TIMEOUT: Duration = Duration::from_secs(30);

/// One configured formatter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatterDef {
    pub name: String,
    /// Program and arguments; `$FILE` is replaced by the file's absolute path.
    pub command: Vec<String>,
    /// File extensions without the dot.
    pub extensions: Vec<String>,
}

/// Reads the config's `formatter` key.
pub fn parse(value: Option<&Value>) -> Result<Vec<FormatterDef>, String> {
    let entries = match value {
        None | Some(Value::Bool(false)) => return Ok(Vec::new()),
        Some(Value::Object(entries)) => entries,
        Some(other) => {
            return Err(format!(
                "`formatter` must be false or an object of formatters, not {other}"
            ));
        }
    };
    let mut defs = Vec::new();
    for (name, entry) in entries {
        if entry.get("disabled") == Some(&Value::Bool(true)) {
            continue;
        }
        let list = |field: &str| -> Result<Vec<String>, String> {
            entry
                .get(field)
                .and_then(Value::as_array)
                .and_then(|items| {
                    items
                        .iter()
                        .map(|i| i.as_str().map(|s| s.trim_start_matches('.').to_string()))
                        .collect::<Option<Vec<_>>>()
                })
                .filter(|v| !v.is_empty())
                .ok_or_else(|| {
                    format!("`formatter.{name}.{field}` must be a non-empty list of strings")
                })
        };
        defs.push(FormatterDef {
            name: name.clone(),
            command: list("command")?,
            extensions: list("extensions")?,
        });
    }
    Ok(defs)
}

/// Handle to the instance's formatters.
#[derive(Clone, Debug)]
pub struct Formatter {
    project: PathBuf,
    spawner: ChildProcessSpawner,
    defs: Vec<FormatterDef>,
    /// Formatters are commands from the config run on files the model wrote: inside the
    /// instance's sandbox.
    sandbox: Sandbox,
}

impl strata_graph::Service for Formatter {
    const KEY: &'static str = "Formatter";
}

impl Formatter {
    pub fn new(project: PathBuf, spawner: ChildProcessSpawner, defs: Vec<FormatterDef>) -> Self {
        Self {
            project,
            spawner,
            defs,
            sandbox: Sandbox::off(),
        }
    }

    /// Runs the formatters inside `sandbox`.
    pub fn in_sandbox(mut self, sandbox: Sandbox) -> Self {
        self.sandbox = sandbox;
        self
    }

    /// The instance-tier node: the formatters of config `formatter`.
    pub fn node() -> Node {
        Node::new(
            Tier::Instance,
            |(info, config, spawner, sandbox): (
                InstanceInfo,
                Config,
                ChildProcessSpawner,
                Sandbox,
            ),
             _scope: Scope| async move {
                let defs = parse(config.data().raw.get("formatter"))
                    .map_err(|e| format!("{e} (in the config's `formatter` key)"))?;
                let formatter = Formatter::new(info.directory.clone(), spawner, defs);
                Ok::<_, BoxError>(formatter.in_sandbox(sandbox))
            },
        )
    }

    /// The formatters for this file's type.
    pub fn for_file(&self, path: &Path) -> Vec<&FormatterDef> {
        let Some(ext) = path.extension().and_then(|e| e.to_str()) else {
            return Vec::new();
        };
        self.defs
            .iter()
            .filter(|d| d.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext)))
            .collect()
    }

    /// Runs every formatter for `path` in the project directory; returns whether any of them
    /// succeeded (so the file may have changed).
    pub async fn format(&self, path: &Path) -> bool {
        let mut changed = false;
        for def in self.for_file(path) {
            let file = path.to_string_lossy();
            let mut args = def.command.iter().map(|a| a.replace("$FILE", &file));
            let Some(program) = args.next() else {
                continue;
            };
            let spec = CommandSpec::new(program).args(args).cwd(&self.project);
            let spec = self.sandbox.command(spec, "formatter");
            match self.spawner.run(spec, FORMAT_TIMEOUT).await {
                Ok(out) if out.success() => changed = true,
                Ok(out) => tracing::warn!(
                    formatter = %def.name, path = %path.display(), code = ?out.code,
                    stderr = %out.stderr_text(), "formatter failed; the file is left as written"
                ),
                Err(e) => tracing::warn!(
                    formatter = %def.name, path = %path.display(), error = %e,
                    "formatter could not run; the file is left as written"
                ),
            }
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn config_names_the_formatters_and_bad_entries_say_where() {
        assert!(parse(None).unwrap().is_empty());
        assert!(parse(Some(&json!(false))).unwrap().is_empty());
        let defs = parse(Some(&json!({
            "pretty": {"command": ["prettier", "--write", "$FILE"], "extensions": [".ts", "tsx"]},
            "off": {"disabled": true},
        })))
        .unwrap();
        assert_eq!(
            defs,
            vec![FormatterDef {
                name: "pretty".into(),
                command: vec!["prettier".into(), "--write".into(), "$FILE".into()],
                extensions: vec!["ts".into(), "tsx".into()],
            }]
        );
        let err = parse(Some(&json!({"x": {"command": ["fmt"]}}))).unwrap_err();
        assert!(err.contains("`formatter.x.extensions`"), "{err}");
        assert!(parse(Some(&json!("yes"))).is_err());
    }

    #[test]
    fn formatters_are_picked_by_extension() {
        let f = Formatter::new(
            "/p".into(),
            ChildProcessSpawner::live(),
            parse(Some(
                &json!({"a": {"command": ["x"], "extensions": ["ts"]}}),
            ))
            .unwrap(),
        );
        assert_eq!(f.for_file(Path::new("/p/a.TS")).len(), 1);
        assert!(f.for_file(Path::new("/p/a.js")).is_empty());
        assert!(f.for_file(Path::new("/p/Makefile")).is_empty());
    }
}
