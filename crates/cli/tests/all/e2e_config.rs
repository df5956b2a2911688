//! opencode's config files used as they are, end to end: a project with only `opencode.json`
//! runs, unknown keys warn once, `small_model` writes compaction summaries, and
//! `strata debug config` shows the merged config (secrets hidden) and where each key came from.

use serde_json::{Value, json};
use strata_testkit::model_server::{ModelServer, Turn};

use super::common::Project;
use super::e2e_run_support::{command, finish, strata};

/// `~/.config/opencode/opencode.json` of the test's home.
fn global_opencode(p: &Project, text: &str) {
    let dir = p.home.join(".config/opencode");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("opencode.json"), text).unwrap();
}

fn redact(p: &Project, text: &str) -> String {
    text.replace(&p.dir.display().to_string(), "[DIR]")
        .replace(&p.home.display().to_string(), "[HOME]")
        .replace(&p.config.display().to_string(), "[CONFIG]")
}

#[test]
fn a_project_with_only_opencode_json_runs_and_an_unknown_key_warns_once() {
    let p = Project::new();
    p.file(
        "opencode.json",
        "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  // the model\n  \
         \"model\": \"openai/scripted-model\",\n  \"modle\": \"typo\",\n}\n",
    );
    let server = ModelServer::start(vec![Turn::text("Configured by opencode.json.")]);
    let run = strata(&p, &server, &["run", "hi"]);
    run.expect_code(0);
    assert_eq!(run.stdout, "Configured by opencode.json.\n", "{run:#?}");
    assert_eq!(server.requests()[0]["model"], "scripted-model");
    assert_eq!(run.stderr.matches("`modle`").count(), 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&p.dir.join("opencode.json").display().to_string()),
        "{}",
        run.stderr
    );
}

#[test]
fn the_small_model_writes_the_compaction_summary() {
    let p = Project::new();
    p.file(
        "opencode.json",
        json!({"model": "openai/scripted-model", "small_model": "openai/small-one"}).to_string(),
    );
    let overflow = json!({"error": {
        "message": "This model's maximum context length is 10 tokens.",
        "type": "invalid_request_error",
        "code": "context_length_exceeded",
    }});
    let server = ModelServer::start(vec![
        Turn::Status(400, overflow.to_string()),
        Turn::text("SUMMARY: the user said hi."),
        Turn::text("Hello."),
    ]);
    let child = command(&p, &server, &["run", "hi"]).spawn().unwrap();
    let run = finish(child);
    run.expect_code(0);
    let models: Vec<Value> = server
        .requests()
        .iter()
        .map(|r| r["model"].clone())
        .collect();
    assert_eq!(models, ["scripted-model", "small-one", "scripted-model"]);
}

/// A global opencode file, a project `opencode.jsonc` with comments, `.opencode/opencode.json`
/// and a `strata.json` that wins over them key by key.
fn layered_project() -> Project {
    let p = Project::new();
    global_opencode(
        &p,
        r#"{"theme": "dark", "provider": {"openai": {"options": {"apiKey": "{env:E2E_KEY}"}}}}"#,
    );
    p.file(
        "opencode.jsonc",
        "{\n  // from opencode\n  \"model\": \"openai/from-opencode\",\n  \"small_model\": \
         \"openai/mini\",\n  \"mcp\": {\"docs\": {\"type\": \"remote\", \"url\": \
         \"http://127.0.0.1:9/mcp\", \"headers\": {\"Authorization\": \"Bearer x\"}, \
         \"enabled\": false}},\n  \"colour\": \"blue\",\n}\n",
    );
    p.file(
        ".opencode/opencode.json",
        r#"{"agent": {"review": {"description": "Reviews", "mode": "subagent"}}}"#,
    );
    p.file(
        "strata.json",
        json!({
            "model": "openai/from-strata",
            "provider": {"openai": {"options": {"baseURL": "http://127.0.0.1:8/v1"}}},
            "permission": {"bash": "ask"},
        })
        .to_string(),
    );
    p
}

#[test]
fn debug_config_prints_the_merged_config_and_each_keys_file() {
    let p = layered_project();
    let run = p.strata_env(&["debug", "config"], &[("E2E_KEY", "sk-secret")]);
    run.expect_code(0);
    assert!(!run.stdout.contains("sk-secret"), "{}", run.stdout);
    assert!(!run.stdout.contains("Bearer x"), "{}", run.stdout);
    insta::assert_snapshot!("debug_config", redact(&p, &run.stdout));
    let stderr = redact(&p, &run.stderr);
    assert_eq!(stderr.matches("`colour`").count(), 1, "{stderr}");
    assert!(stderr.contains("[DIR]/opencode.jsonc"), "{stderr}");
}

#[test]
fn debug_config_as_json_with_opencode_config_and_inline_content() {
    let p = layered_project();
    let named = p.file(
        "elsewhere.json",
        r#"{"model": "openai/named", "share": "disabled", "username": "named"}"#,
    );
    let named = named.display().to_string();
    let inline = r#"{"username": "inline", "small_model": "openai/inline-small"}"#;
    let env = [
        ("OPENCODE_CONFIG", named.as_str()),
        ("OPENCODE_CONFIG_CONTENT", inline),
    ];
    let run = p.strata_env(&["debug", "config", "--format", "json"], &env);
    run.expect_code(0);
    let out = run.json();
    let config = &out["config"];
    let sources = &out["sources"];
    let dir = |rel: &str| p.dir.join(rel).display().to_string();
    // strata.json still wins over every opencode source in its folder…
    assert_eq!(config["model"], "openai/from-strata");
    assert_eq!(sources["model"], dir("strata.json"));
    // …and the inline content over the opencode files (and OPENCODE_CONFIG's file).
    assert_eq!(config["small_model"], "openai/inline-small");
    assert_eq!(sources["small_model"], "OPENCODE_CONFIG_CONTENT");
    assert_eq!(config["username"], "inline");
    assert_eq!(sources["share"], named);
    assert_eq!(sources["agent.review"], dir(".opencode/opencode.json"));
    assert_eq!(sources["mcp.docs"], dir("opencode.jsonc"));
    assert_eq!(
        sources["theme"],
        p.home
            .join(".config/opencode/opencode.json")
            .display()
            .to_string()
    );
    assert_eq!(config["provider"]["openai"]["options"]["apiKey"], "***");
    assert_eq!(config["mcp"]["docs"]["headers"]["Authorization"], "***");
    let warnings = out["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].as_str().unwrap().contains("`colour`"));
}

#[test]
fn a_broken_config_fails_debug_config_naming_the_file_line_and_column() {
    let p = Project::new();
    p.file(
        "opencode.json",
        "{\n  /* note */ \"model\": \"m\",\n  \"x\": ]\n}\n",
    );
    let run = p.strata(&["debug", "config"]);
    run.expect_code(1);
    let stderr = redact(&p, &run.stderr);
    assert!(stderr.contains("[DIR]/opencode.json"), "{stderr}");
    assert!(stderr.contains("line 3, column 8"), "{stderr}");
}
