//! The typed view of a config document, checked field by field so errors name the field.

use serde_json::{Map, Value};

use super::fields::{
    FieldError, boolean, get, object, positive, positive_as, string, strings, wrong,
};
use super::{
    ConfigData, Experimental, SkillsConfig, SnapshotConfig, ToolOutput, ToolsConfig,
    WebsearchConfig, mcp, providers,
};

const ACTIONS: &str = "\"allow\", \"ask\" or \"deny\"";

fn is_action(v: &Value) -> bool {
    matches!(v.as_str(), Some("allow" | "ask" | "deny"))
}

/// `permission`: each entry an action, or an object from pattern to action.
fn permission(obj: &Map<String, Value>) -> Result<Option<Map<String, Value>>, FieldError> {
    let Some(map) = object(obj, "permission", "permission")? else {
        return Ok(None);
    };
    for (tool, value) in map {
        match value {
            v if is_action(v) => {}
            Value::Object(patterns) => {
                for (pattern, action) in patterns {
                    if !is_action(action) {
                        let field = format!("permission.{tool}.{pattern}");
                        return Err(wrong(&field, ACTIONS, action));
                    }
                }
            }
            v => {
                let field = format!("permission.{tool}");
                let expected = "\"allow\", \"ask\", \"deny\" or an object of pattern to action";
                return Err(wrong(&field, expected, v));
            }
        }
    }
    Ok(Some(map.clone()))
}

/// `websearch`: `enabled`, an http(s) `url`, a string `apiKey`.
fn websearch(obj: &Map<String, Value>) -> Result<WebsearchConfig, FieldError> {
    let empty = Map::new();
    let section = object(obj, "websearch", "websearch")?.unwrap_or(&empty);
    let url = string(section, "url", "websearch.url")?;
    if let Some(u) = &url {
        let ok = url::Url::parse(u).is_ok_and(|p| matches!(p.scheme(), "http" | "https"));
        if !ok {
            let value = Value::String(u.clone());
            return Err(wrong(
                "websearch.url",
                "an absolute http:// or https:// URL",
                &value,
            ));
        }
    }
    Ok(WebsearchConfig {
        enabled: boolean(section, "enabled", "websearch.enabled")?,
        url,
        api_key: string(section, "apiKey", "websearch.apiKey")?,
    })
}

/// `skills.paths`: an array of strings.
fn skill_paths(obj: &Map<String, Value>) -> Result<Vec<String>, FieldError> {
    let Some(skills) = object(obj, "skills", "skills")? else {
        return Ok(Vec::new());
    };
    strings(
        get(skills, "paths"),
        "skills.paths",
        "a string (a directory)",
        "an array of directory paths",
    )
}

/// `snapshot`: opencode's boolean, or an object with a positive `max_mb`.
fn snapshot(obj: &Map<String, Value>) -> Result<SnapshotConfig, FieldError> {
    let defaults = SnapshotConfig::default();
    let section = match get(obj, "snapshot") {
        None | Some(Value::Bool(_)) => return Ok(defaults),
        Some(Value::Object(section)) => section,
        Some(v) => return Err(wrong("snapshot", "true, false or an object", v)),
    };
    let what = "a whole number of MiB above 0 (the default is 2048)";
    Ok(SnapshotConfig {
        max_mb: positive_as(section, "max_mb", "snapshot.max_mb", what)?.unwrap_or(defaults.max_mb),
    })
}

/// `instructions`: an array of strings (paths or globs).
fn instructions(obj: &Map<String, Value>) -> Result<Vec<String>, FieldError> {
    strings(
        get(obj, "instructions"),
        "instructions",
        "a string (a file path or glob)",
        "an array of file paths or globs",
    )
}

/// Checks and extracts the typed view of one config document.
pub(super) fn typed(value: &Value) -> Result<ConfigData, FieldError> {
    let Value::Object(root) = value else {
        return Err(wrong("(top level)", "a JSON object", value));
    };
    let empty = Map::new();
    let tool_output = object(root, "tool_output", "tool_output")?.unwrap_or(&empty);
    let tools = object(root, "tools", "tools")?.unwrap_or(&empty);
    let experimental = object(root, "experimental", "experimental")?.unwrap_or(&empty);
    Ok(ConfigData {
        model: string(root, "model", "model")?,
        small_model: providers::small_model(root)?,
        enabled_providers: providers::enabled(root)?,
        disabled_providers: providers::disabled(root)?,
        shell: string(root, "shell", "shell")?,
        permission: permission(root)?,
        tool_output: ToolOutput {
            max_lines: positive(tool_output, "max_lines", "tool_output.max_lines")?,
            max_bytes: positive(tool_output, "max_bytes", "tool_output.max_bytes")?,
        },
        tools: ToolsConfig {
            read_before_edit: boolean(tools, "read_before_edit", "tools.read_before_edit")?
                .unwrap_or(true),
        },
        tool_surface: super::tool_surface::section(root)?,
        provider: object(root, "provider", "provider")?
            .cloned()
            .unwrap_or_default(),
        experimental: Experimental {
            continue_loop_on_deny: boolean(
                experimental,
                "continue_loop_on_deny",
                "experimental.continue_loop_on_deny",
            )?
            .unwrap_or(false),
        },
        mcp: mcp::servers(root)?,
        mcp_trust: mcp::trust(root)?,
        websearch: websearch(root)?,
        skills: SkillsConfig {
            paths: skill_paths(root)?,
        },
        sandbox: super::sandbox::section(root)?,
        snapshot: snapshot(root)?,
        instructions: instructions(root)?,
        raw: value.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field_error(v: Value) -> (String, String) {
        let e = typed(&v).unwrap_err();
        (e.field, e.found)
    }

    #[test]
    fn defaults_for_an_empty_document() {
        let d = typed(&json!({})).unwrap();
        assert_eq!(d.model, None);
        assert_eq!(d.permission, None);
        assert_eq!(d.tool_output, ToolOutput::default());
        assert!(d.tools.read_before_edit);
        assert!(!d.experimental.continue_loop_on_deny);
        assert!(d.provider.is_empty());
        assert_eq!(d, ConfigData::default());
    }

    #[test]
    fn reads_every_typed_field_and_ignores_unknown_keys() {
        let d = typed(&json!({
            "$schema": "x", "unknown": [1, 2],
            "model": "m", "shell": "/bin/zsh",
            "permission": {"bash": {"*": "ask", "git *": "allow"}, "edit": "deny"},
            "tool_output": {"max_lines": 123, "max_bytes": 456, "other": true},
            "tools": {"read_before_edit": false},
            "provider": {"openai": {"base_url": "http://127.0.0.1:1"}},
            "experimental": {"continue_loop_on_deny": true},
            "skills": {"paths": ["~/skills", "rel/dir"], "urls": []},
        }))
        .unwrap();
        assert_eq!(d.model.as_deref(), Some("m"));
        assert_eq!(d.shell.as_deref(), Some("/bin/zsh"));
        let keys: Vec<_> = d.permission.unwrap().keys().cloned().collect();
        assert_eq!(keys, ["bash", "edit"]);
        assert_eq!(d.tool_output.max_lines, Some(123));
        assert_eq!(d.tool_output.max_bytes, Some(456));
        assert!(!d.tools.read_before_edit);
        assert!(d.provider.contains_key("openai"));
        assert!(d.experimental.continue_loop_on_deny);
        assert_eq!(d.skills.paths, ["~/skills", "rel/dir"]);
        assert_eq!(d.raw["unknown"], json!([1, 2]));
    }

    #[test]
    fn wrong_types_name_the_field() {
        let (f, found) = field_error(json!({"tool_output": {"max_lines": "ten"}}));
        assert_eq!(f, "tool_output.max_lines");
        assert_eq!(found, "the string \"ten\"");
        assert_eq!(
            field_error(json!({"tool_output": {"max_bytes": 0}})).0,
            "tool_output.max_bytes"
        );
        assert_eq!(field_error(json!({"model": 3})).0, "model");
        assert_eq!(
            field_error(json!({"tools": {"read_before_edit": "no"}})).0,
            "tools.read_before_edit"
        );
        assert_eq!(field_error(json!({"provider": []})).0, "provider");
        assert_eq!(
            field_error(json!({"permission": {"bash": "maybe"}})).0,
            "permission.bash"
        );
        assert_eq!(
            field_error(json!({"permission": {"bash": {"rm *": 1}}})).0,
            "permission.bash.rm *"
        );
        assert_eq!(field_error(json!([1])).0, "(top level)");
        assert_eq!(field_error(json!({"skills": []})).0, "skills");
        let (f, found) = field_error(json!({"skills": {"paths": "dir"}}));
        assert_eq!(f, "skills.paths");
        assert_eq!(found, "the string \"dir\"");
        assert_eq!(
            field_error(json!({"skills": {"paths": ["ok", 3]}})).0,
            "skills.paths[1]"
        );
        assert_eq!(
            field_error(json!({"instructions": "AGENTS.md"})).0,
            "instructions"
        );
        assert_eq!(
            field_error(json!({"instructions": ["a.md", {}]})).0,
            "instructions[1]"
        );
        let d = typed(&json!({"instructions": ["docs/*.md", "~/x.md"]})).unwrap();
        assert_eq!(d.instructions, ["docs/*.md", "~/x.md"]);
    }

    #[test]
    fn websearch_section_is_read_and_checked() {
        let d = typed(&json!({"websearch": {
            "enabled": true, "url": "http://127.0.0.1:1/mcp", "apiKey": "k"
        }}))
        .unwrap();
        assert_eq!(
            d.websearch,
            WebsearchConfig {
                enabled: Some(true),
                url: Some("http://127.0.0.1:1/mcp".into()),
                api_key: Some("k".into()),
            }
        );
        assert_eq!(
            typed(&json!({})).unwrap().websearch,
            WebsearchConfig::default()
        );
        assert_eq!(field_error(json!({"websearch": true})).0, "websearch");
        assert_eq!(
            field_error(json!({"websearch": {"enabled": "yes"}})).0,
            "websearch.enabled"
        );
        assert_eq!(
            field_error(json!({"websearch": {"apiKey": 42}})).0,
            "websearch.apiKey"
        );
        for bad in ["search.example/mcp", "file:///tmp/x", "not a url"] {
            let (field, found) = field_error(json!({"websearch": {"url": bad}}));
            assert_eq!(field, "websearch.url");
            assert!(found.contains(bad), "{found}");
        }
    }

    #[test]
    fn snapshot_budget_is_read_and_checked() {
        assert_eq!(typed(&json!({})).unwrap().snapshot.max_mb, 2048);
        assert_eq!(
            typed(&json!({"snapshot": false})).unwrap().snapshot.max_mb,
            2048
        );
        let d = typed(&json!({"snapshot": {"max_mb": 64}})).unwrap();
        assert_eq!(d.snapshot.max_bytes(), 64 * 1024 * 1024);
        for bad in [json!(0), json!(-5), json!(1.5), json!("1G")] {
            let (field, found) = field_error(json!({"snapshot": {"max_mb": bad}}));
            assert_eq!(field, "snapshot.max_mb", "{found}");
        }
        let e = typed(&json!({"snapshot": {"max_mb": "1G"}}))
            .unwrap_err()
            .in_file("strata.json")
            .to_string();
        assert!(
            e.contains("`snapshot.max_mb` must be a whole number of MiB above 0")
                && e.contains("strata.json")
                && e.contains("\"1G\""),
            "{e}"
        );
        assert_eq!(field_error(json!({"snapshot": "on"})).0, "snapshot");
    }

    #[test]
    fn null_counts_as_absent() {
        let d = typed(&json!({"model": null, "tools": {"read_before_edit": null}})).unwrap();
        assert_eq!(d.model, None);
        assert!(d.tools.read_before_edit);
    }

    #[test]
    fn long_values_are_shortened_in_errors() {
        let long = "x".repeat(200);
        let (_, found) = field_error(json!({ "model": [long] }));
        assert!(found.len() < 80 && found.ends_with("..."), "{found}");
    }
}
