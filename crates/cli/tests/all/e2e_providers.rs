//! Providers as opencode users declare them, end to end: a custom OpenAI-compatible provider in
//! `opencode.json` (opencode's own Ollama snippet, pointed at the scripted model server) runs a
//! tool turn, `options.api` picks the Responses API, and bad ids fail with what to do next.

use serde_json::json;
use strata_testkit::model_server::{ModelServer, RESPONSES_PATH, Turn};

use super::common::Project;
use super::e2e_run_support::strata;

/// opencode's documented shape for a local Ollama, with the server's URL as its base.
fn ollama_config(base_url: &str) -> String {
    json!({
        "$schema": "https://opencode.ai/config.json",
        "model": "ollama/qwen3",
        "provider": {"ollama": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Ollama (local)",
            "options": {"baseURL": base_url},
            "models": {"qwen3": {"name": "Qwen 3"}},
        }},
    })
    .to_string()
}

#[test]
fn a_custom_ollama_provider_in_opencode_json_completes_a_tool_turn() {
    let p = Project::new();
    p.file("notes.txt", "alpha\n");
    let server = ModelServer::start(vec![
        Turn::tool_call("c1", "read", r#"{"filePath":"notes.txt"}"#),
        Turn::text("The notes say alpha."),
    ]);
    p.file("opencode.json", ollama_config(&server.url()));
    let run = strata(
        &p,
        &server,
        &["run", "--format", "json", "what do the notes say?"],
    );
    run.expect_code(0);
    let sent = server.sent();
    assert_eq!(sent.len(), 2, "{run:#?}");
    assert_eq!(server.requests()[0]["model"], "qwen3");
    let results = sent[1].results();
    assert_eq!(results[0].0, "c1");
    assert!(results[0].1.contains("alpha"), "{results:?}");
    // No key was sent: a base URL on this machine needs none.
    assert_eq!(server.recorded()[0].header("authorization"), None);
    // The answers are stored under the provider's own id.
    let first: serde_json::Value =
        serde_json::from_str(run.stdout.lines().next().unwrap_or_default()).unwrap();
    let session = first["sessionID"].as_str().unwrap().to_string();
    let export = strata(&p, &server, &["session", "export", &session]);
    export.expect_code(0);
    let compact: String = export.stdout.split_whitespace().collect();
    assert!(
        compact.contains("\"providerID\":\"ollama\""),
        "{}",
        export.stdout
    );
    assert!(
        run.stdout.contains("The notes say alpha."),
        "{}",
        run.stdout
    );
}

#[test]
fn options_api_sends_a_custom_openai_endpoint_to_the_responses_api() {
    let p = Project::new();
    let server = ModelServer::start(vec![Turn::text("Answered over Responses.")]);
    p.file(
        "strata.json",
        json!({"provider": {"openai": {"options": {"baseURL": server.url(), "api": "responses"}}}})
            .to_string(),
    );
    let run = strata(&p, &server, &["run", "--model", "openai/gpt-5", "hi"]);
    run.expect_code(0);
    assert_eq!(run.stdout, "Answered over Responses.\n", "{run:#?}");
    let recorded = server.recorded();
    assert_eq!(recorded[0].path, RESPONSES_PATH);
    assert_eq!(recorded[0].body["store"], false);
    assert_eq!(
        recorded[0].body["include"],
        json!(["reasoning.encrypted_content"])
    );
}

#[test]
fn an_unknown_provider_names_the_close_ones_and_how_to_declare_it() {
    let p = Project::new();
    let server = ModelServer::start(vec![]);
    let run = strata(&p, &server, &["run", "--model", "ollama/qwen3", "hi"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("unknown provider `ollama`")
            && run.stderr.contains("`ollama-cloud`")
            && run
                .stderr
                .contains("\"npm\": \"@ai-sdk/openai-compatible\""),
        "{}",
        run.stderr
    );
    assert!(server.requests().is_empty());
}

#[test]
fn a_missing_key_names_the_variables_and_the_login_command() {
    let p = Project::new();
    let server = ModelServer::start(vec![]);
    let run = strata(
        &p,
        &server,
        &["run", "--model", "groq/llama-3.3-70b-versatile", "hi"],
    );
    run.expect_code(2);
    assert!(
        run.stderr.contains("GROQ_API_KEY") && run.stderr.contains("strata auth login groq"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_unknown_model_of_a_known_provider_runs_with_one_warning() {
    let p = Project::new();
    let server = ModelServer::start(vec![Turn::text("Still here.")]);
    let run = strata(
        &p,
        &server,
        &["run", "--model", "openai/a-model-from-2030", "hi"],
    );
    run.expect_code(0);
    assert_eq!(run.stdout, "Still here.\n");
    assert_eq!(
        run.stderr.matches("is not in the catalogue").count(),
        1,
        "{}",
        run.stderr
    );
}
