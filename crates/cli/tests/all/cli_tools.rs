//! `strata tools`: the tool surface each model sees, with the schemas it is sent, and the MCP
//! tools deferred behind `tool_search` once they pass the threshold.

use crate::common::Project;
use serde_json::Value;

const SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// `strata tools --model MODEL --format json`, checked for shape; returns the document with
/// the machine's directories replaced by placeholders.
fn surface(p: &Project, model: &str) -> Value {
    let run = p.strata(&["tools", "--model", model, "--format", "json"]);
    run.expect_code(0);
    // The bash description names the project and temp directories and the shell's path (which
    // depends on `$SHELL` and `PATH`); nothing else is redacted.
    let text = redact_shell(
        &run.stdout
            .replace(&p.dir_str(), "[PROJECT]")
            .replace(&p.tmp.display().to_string(), "[TMP]"),
    );
    let doc: Value = serde_json::from_str(&text).expect("`tools --format json` prints JSON");
    assert_eq!(doc["model"], model);
    for tool in doc["tools"].as_array().expect("`tools` is an array") {
        let keys: Vec<&str> = tool
            .as_object()
            .expect("each tool is an object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            ["id", "description", "parameters", "effects", "state"]
        );
        let id = tool["id"].as_str().expect("id is a string");
        assert!(
            !tool["description"]
                .as_str()
                .unwrap_or_default()
                .trim()
                .is_empty(),
            "{id} has a description"
        );
        let params = &tool["parameters"];
        assert_eq!(params["$schema"], SCHEMA_DIALECT, "{id}: {params}");
        assert_eq!(params["type"], "object", "{id}: {params}");
        assert!(params["properties"].is_object(), "{id}: {params}");
        assert!(tool["effects"].is_object(), "{id}");
    }
    doc
}

/// Replaces the path in "a bash shell (`PATH -c`" with `[SHELL]`.
fn redact_shell(text: &str) -> String {
    const OPEN: &str = "shell (`";
    let Some(start) = text.find(OPEN).map(|i| i + OPEN.len()) else {
        return text.to_string();
    };
    let Some(len) = text[start..].find(" -c`") else {
        return text.to_string();
    };
    format!("{}[SHELL]{}", &text[..start], &text[start + len..])
}

fn ids(doc: &Value) -> Vec<String> {
    doc["tools"]
        .as_array()
        .expect("`tools` is an array")
        .iter()
        .map(|t| t["id"].as_str().expect("id is a string").to_string())
        .collect()
}

fn has(ids: &[String], id: &str) -> bool {
    ids.iter().any(|i| i == id)
}

#[test]
fn patch_models_get_apply_patch_instead_of_edit_and_write() {
    let p = Project::new();
    for model in ["gpt-5", "openai/gpt-5"] {
        let ids = ids(&surface(&p, model));
        assert!(has(&ids, "apply_patch"), "{model}: {ids:?}");
        assert!(
            !has(&ids, "edit") && !has(&ids, "write"),
            "{model}: {ids:?}"
        );
        for common in ["bash", "read", "glob", "grep"] {
            assert!(has(&ids, common), "{model} lacks {common}: {ids:?}");
        }
        assert!(
            !has(&ids, "invalid"),
            "`invalid` is never advertised: {ids:?}"
        );
    }
}

#[test]
fn other_models_get_edit_and_write_instead_of_apply_patch() {
    let p = Project::new();
    for model in ["claude-sonnet", "anthropic/claude-sonnet-4"] {
        let ids = ids(&surface(&p, model));
        assert!(has(&ids, "edit") && has(&ids, "write"), "{model}: {ids:?}");
        assert!(!has(&ids, "apply_patch"), "{model}: {ids:?}");
        for common in ["bash", "read", "glob", "grep"] {
            assert!(has(&ids, common), "{model} lacks {common}: {ids:?}");
        }
    }
}

#[test]
fn the_default_format_lists_the_same_tools_one_per_line() {
    let p = Project::new();
    let json_ids = ids(&surface(&p, "claude-sonnet"));
    let run = p.strata(&["tools", "--model", "claude-sonnet"]);
    run.expect_code(0);
    let listed: Vec<String> = run
        .stdout
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(listed, json_ids);
}

#[test]
fn a_denied_permission_hides_its_tool() {
    let p = Project::new();
    p.file("strata.json", r#"{"permission": {"bash": "deny"}}"#);
    let ids = ids(&surface(&p, "claude-sonnet"));
    assert!(!has(&ids, "bash"), "{ids:?}");
    assert!(has(&ids, "read"), "{ids:?}");
}

#[test]
fn snapshot_of_the_patch_model_surface() {
    let p = Project::new();
    insta::assert_json_snapshot!("surface_gpt_5", surface(&p, "openai/gpt-5"));
}

#[test]
fn snapshot_of_the_default_surface() {
    let p = Project::new();
    insta::assert_json_snapshot!(
        "surface_claude_sonnet",
        surface(&p, "anthropic/claude-sonnet-4")
    );
}

/// `strata tools` with the testkit's 120-tool MCP server on loopback HTTP: past the threshold
/// (a model of unknown window: 64k tokens, so 6,400) the MCP tools are deferred, `tool_search`
/// is loaded after the built-ins, and the counts match the states, in both formats.
#[tokio::test(flavor = "multi_thread")]
async fn mcp_tools_past_the_threshold_are_listed_as_deferred_behind_tool_search() {
    let mcp = strata_testkit::mcp_many::serve_many_http(120, 50).await;
    let p = Project::new();
    let config = serde_json::json!({"mcp": {"many": {"type": "remote", "url": mcp.url("/mcp"),
        "timeout": 10_000}}});
    p.file("strata.json", config.to_string());
    let model = "openai/scripted-model";
    let (json, text) = tokio::task::spawn_blocking(move || {
        let json = p.strata(&["tools", "--model", model, "--format", "json"]);
        let text = p.strata(&["tools", "--model", model]);
        (json, text)
    })
    .await
    .unwrap();
    let doc = json.expect_code(0).json();
    let tools = doc["tools"].as_array().expect("`tools` is an array");
    let in_state = |state: &str| -> Vec<&str> {
        tools
            .iter()
            .filter(|t| t["state"] == state)
            .map(|t| t["id"].as_str().expect("id is a string"))
            .collect()
    };
    let (loaded, deferred) = (in_state("loaded"), in_state("deferred"));
    assert_eq!(loaded.len() + deferred.len(), tools.len(), "one state each");
    assert_eq!(doc["loaded"], loaded.len());
    assert_eq!(doc["deferred"], deferred.len());
    // 120 generated tools and `grow`.
    assert_eq!(deferred.len(), 121, "{deferred:?}");
    assert!(
        deferred.iter().all(|t| t.starts_with("many_")),
        "{deferred:?}"
    );
    assert_eq!(loaded.last(), Some(&"tool_search"), "{loaded:?}");
    assert!(loaded.contains(&"bash") && !loaded.iter().any(|t| t.starts_with("many_")));

    text.expect_code(0);
    let marked = text.stdout.lines().filter(|l| l.ends_with(" (deferred)"));
    assert_eq!(marked.count(), 121, "{}", text.stdout);
    assert!(
        text.stdout.lines().any(|l| l.starts_with("tool_search ")),
        "{}",
        text.stdout
    );
}
