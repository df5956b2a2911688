//! Helpers shared by the read, glob, grep, invalid and wrapper test files: paths outside the
//! project, explicit mtimes, a plan-agent ruleset, read-page parts and the wire-schema shape.
//! Redaction and raw calls live in the testkit.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use strata_services::flags::RuntimeFlags;
use strata_services::permission::{Action, Rule, Ruleset, default_rules};
use strata_testkit::TestInstance;

/// The temporary directory holding the project; everything in it but the project (and the
/// data dir's saved outputs) is outside the project.
pub(crate) fn root(t: &TestInstance) -> PathBuf {
    t.dir()
        .parent()
        .expect("the project has a parent")
        .to_path_buf()
}

/// Writes a file outside the project (under [`root`]), creating parents.
pub(crate) fn write_outside(t: &TestInstance, rel: &str, content: &str) -> PathBuf {
    let path = root(t).join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, content).unwrap();
    path
}

/// A fixed point in time plus `secs`, for explicit mtimes.
pub(crate) fn at(secs: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + secs)
}

/// Sets a file's modification time.
pub(crate) fn set_mtime(path: &Path, time: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap_or_else(|e| panic!("open {} to set its mtime: {e}", path.display()))
        .set_modified(time)
        .unwrap();
}

/// The plan agent's rules as spec §0.5 states them: defaults, then its own additions. The
/// parts that matter here (the `read` rules for `.env` files) come from the defaults.
pub(crate) fn plan_ruleset(t: &TestInstance) -> Ruleset {
    let flags = t.get::<RuntimeFlags>();
    let mut rules = default_rules(
        &flags.tool_output_dir(),
        &flags.temp_dir.join("strata"),
        &[],
    );
    rules.extend([
        Rule::new("question", "*", Action::Allow),
        Rule::new("plan_exit", "*", Action::Allow),
        Rule::new("edit", "*", Action::Deny),
    ]);
    rules
}

/// The `‹n›: ‹text›` lines of a read page.
pub(crate) fn content_lines(output: &str) -> Vec<&str> {
    let start = output.find("<content>\n").expect("a <content> block") + "<content>\n".len();
    let end = output.find("\n\n(").expect("a footer");
    if end < start {
        return Vec::new();
    }
    output[start..end].lines().collect()
}

/// The footer line of a read page or listing (the last parenthesised line).
pub(crate) fn footer(output: &str) -> &str {
    output
        .lines()
        .rev()
        .find(|l| l.starts_with('('))
        .expect("a footer line")
}

/// What every wire schema shares (spec §0.2): draft 2020-12, an object with its properties and
/// `required` in the given order, references inlined, no titles, formats or nullable types.
pub(crate) fn check_schema_shape(
    id: &str,
    s: &serde_json::Value,
    properties: &[&str],
    required: &[&str],
) {
    assert_eq!(
        s["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "{id}"
    );
    assert_eq!(s["type"], "object", "{id}");
    let keys: Vec<&String> = s["properties"].as_object().unwrap().keys().collect();
    assert_eq!(keys, properties, "{id}: property order");
    assert_eq!(
        s["required"],
        serde_json::json!(required),
        "{id}: required order"
    );
    let text = s.to_string();
    for absent in [
        "additionalProperties",
        "$ref",
        "$defs",
        "\"title\"",
        "\"null\"",
        "anyOf",
        "\"format\"",
    ] {
        assert!(!text.contains(absent), "{id}: `{absent}` in {text}");
    }
}
