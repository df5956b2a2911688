//! `strata debug config`: the merged configuration of a project (secrets shown as `***`), then
//! which file set each top-level key and each `provider`, `mcp`, `agent` and `permission`
//! entry. `--format json` prints one object `{config, sources, warnings}`. Warnings about the
//! config (unknown keys) go to stderr in both formats.

use std::path::PathBuf;

use serde_json::{Map, Value, json};
use strata_services::config::{Config, redact_secrets};
use strata_services::flags::RuntimeFlags;
use strata_services::instance::{InstanceInfo, InstanceSeed};

use super::instance::project_dir;
use crate::args::Format;

pub(super) fn config(dir: Option<PathBuf>, format: Format) -> u8 {
    let config = match load(dir) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    print_warnings(&config);
    match format {
        Format::Default => print!("{}", human(&config)),
        Format::Json => println!("{}", as_json(&config)),
    }
    0
}

/// The project's config, read as an instance would read it (no services are started).
fn load(dir: Option<PathBuf>) -> Result<Config, String> {
    let flags = RuntimeFlags::from_env();
    let seed = InstanceSeed {
        directory: project_dir(dir)?,
    };
    let info = InstanceInfo::detect(&seed, &flags).map_err(|e| e.to_string())?;
    Config::load(&info, &flags).map_err(|e| e.to_string())
}

/// Prints each of the config's warnings once on stderr.
pub(super) fn print_warnings(config: &Config) {
    for warning in config.warnings() {
        eprintln!("strata: warning: {warning}");
    }
}

/// The merged config as pretty JSON, then a `key  <- file` table.
fn human(config: &Config) -> String {
    let shown = redact_secrets(&config.raw);
    let mut out = serde_json::to_string_pretty(&shown).unwrap_or_else(|_| shown.to_string());
    out.push_str("\n\n");
    out.push_str(&sources_table(config.sources()));
    out
}

/// `  key  <- file` lines under a `sources:` heading, keys padded to one column.
fn sources_table(sources: &[(String, String)]) -> String {
    if sources.is_empty() {
        return "sources: none (no config file was found)\n".into();
    }
    let width = sources.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = String::from("sources:\n");
    for (key, file) in sources {
        out.push_str(&format!("  {key:<width$}  <- {file}\n"));
    }
    out
}

fn as_json(config: &Config) -> Value {
    let sources: Map<String, Value> = config
        .sources()
        .iter()
        .map(|(k, f)| (k.clone(), Value::String(f.clone())))
        .collect();
    json!({
        "config": redact_secrets(&config.raw),
        "sources": sources,
        "warnings": config.warnings(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_aligns_keys_and_says_when_nothing_was_found() {
        let rows = vec![
            ("model".to_string(), "/p/opencode.json".to_string()),
            ("provider.openai".to_string(), "/p/strata.json".to_string()),
        ];
        assert_eq!(
            sources_table(&rows),
            "sources:\n  model            <- /p/opencode.json\n  provider.openai  <- /p/strata.json\n"
        );
        assert!(sources_table(&[]).contains("none"));
    }
}
