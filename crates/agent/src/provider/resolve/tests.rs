use serde_json::{Map, Value, json};

use super::*;

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
}

fn map(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

fn resolve(model: &str, env: &[(&str, &str)], providers: &Map<String, Value>) -> Resolved {
    Resolver::new(providers)
        .with_env(env_of(env))
        .resolve(model)
        .unwrap_or_else(|e| panic!("{model}: {e}"))
}

fn error(model: &str, env: &[(&str, &str)], providers: &Map<String, Value>) -> String {
    Resolver::new(providers)
        .with_env(env_of(env))
        .resolve(model)
        .map(|r| format!("resolved to {}", r.provider.base_url()))
        .unwrap_or_else(|e| e.to_string())
}

#[test]
fn env_wins_over_config_and_the_model_keeps_its_slashes() {
    let providers = map(json!({"openai": {"baseURL": "http://127.0.0.1:2/v1", "apiKey": "cfg"}}));
    let env = env_of(&[("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")]);
    let (p, model) = resolve_provider("openai/org/model-x", env, &providers).unwrap();
    assert_eq!(p.name(), "openai");
    assert_eq!(p.base_url(), "http://127.0.0.1:1/v1");
    assert_eq!(model, "org/model-x");
}

#[test]
fn config_is_the_fallback_including_options() {
    let providers = map(json!({"anthropic": {"options": {"baseURL": "http://127.0.0.1:3"}}}));
    let (p, model) = resolve_provider("anthropic/claude-x", env_of(&[]), &providers).unwrap();
    assert_eq!(
        (p.name(), p.base_url()),
        ("anthropic", "http://127.0.0.1:3")
    );
    assert_eq!(model, "claude-x");
}

#[test]
fn errors_say_what_to_set() {
    let none = Map::new();
    let err = error("openai/gpt", &[], &none);
    assert!(
        err.contains("OPENAI_API_KEY") && err.contains("openai/gpt"),
        "{err}"
    );
    assert!(err.contains("strata auth login openai"), "{err}");
    let err = error("anthropic/c", &[], &none);
    assert!(err.contains("ANTHROPIC_API_KEY"), "{err}");
    let err = error("gpt-4", &[], &none);
    assert!(err.contains("<provider>/<model>"), "{err}");
    // With a key the public endpoint is fine.
    let r = resolve("anthropic/c", &[("ANTHROPIC_API_KEY", "k")], &none);
    assert_eq!(r.provider.base_url(), ANTHROPIC_DEFAULT_BASE_URL);
    assert_eq!(r.wire, WireKind::Anthropic);
}

#[test]
fn an_unknown_provider_names_the_closest_ids_and_how_to_declare_one() {
    let err = error("ollama/qwen3", &[], &Map::new());
    assert!(err.contains("unknown provider `ollama`"), "{err}");
    assert!(err.contains("`ollama-cloud`"), "{err}");
    assert!(error("olama/x", &[], &Map::new()).contains("`llama`"));
    assert!(
        err.contains(r#""ollama": {"npm": "@ai-sdk/openai-compatible""#)
            && err.contains(r#""models": {"qwen3": {}}"#),
        "{err}"
    );
}

#[test]
fn a_custom_provider_as_opencode_writes_it_needs_no_key_on_this_machine() {
    let providers = map(json!({"ollama": {
        "npm": "@ai-sdk/openai-compatible",
        "name": "Ollama (local)",
        "options": {"baseURL": "http://127.0.0.1:11434/v1", "headers": {"X-Trace": "on"}, "timeout": 5000},
        "models": {"qwen3": {"name": "Qwen 3", "limit": {"context": 32768, "output": 8192}}},
    }}));
    let r = resolve("ollama/qwen3", &[], &providers);
    assert_eq!(r.provider.name(), "ollama");
    assert_eq!(r.provider.base_url(), "http://127.0.0.1:11434/v1");
    assert_eq!(r.wire, WireKind::Chat);
    assert_eq!(r.api_model, "qwen3");
    let info = r.info.unwrap();
    assert_eq!((info.context, info.output), (32_768, 8_192));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn catalogue_providers_get_their_endpoint_wire_and_key_variable() {
    let none = Map::new();
    // A catalogue provider with its own base URL.
    let r = resolve(
        "deepseek/deepseek-chat",
        &[("DEEPSEEK_API_KEY", "k")],
        &none,
    );
    assert_eq!((r.provider.name(), r.wire), ("deepseek", WireKind::Chat));
    assert!(
        r.provider
            .base_url()
            .starts_with("https://api.deepseek.com")
    );
    // One named only by its SDK package.
    let r = resolve(
        "groq/llama-3.3-70b-versatile",
        &[("GROQ_API_KEY", "k")],
        &none,
    );
    assert_eq!(r.provider.base_url(), "https://api.groq.com/openai/v1");
    assert!(r.info.is_some_and(|i| i.context > 0));
    let err = error("mistral/mistral-large-latest", &[], &none);
    assert!(err.contains("MISTRAL_API_KEY"), "{err}");
    // OpenAI's own endpoint speaks Responses; a base URL of the user's keeps chat.
    let r = resolve("openai/gpt-5", &[("OPENAI_API_KEY", "k")], &none);
    assert_eq!(r.wire, WireKind::Responses);
    let r = resolve(
        "openai/gpt-5",
        &[("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")],
        &none,
    );
    assert_eq!(r.wire, WireKind::Chat);
    // `options.api` overrides either way.
    let forced = map(
        json!({"openai": {"options": {"baseURL": "http://127.0.0.1:9/v1", "api": "responses"}}}),
    );
    assert_eq!(
        resolve("openai/gpt-5", &[], &forced).wire,
        WireKind::Responses
    );
    let bad = map(json!({"openai": {"options": {"api": "grpc"}}}));
    let err = error("openai/gpt-5", &[("OPENAI_API_KEY", "k")], &bad);
    assert!(err.contains("options.api") && err.contains("grpc"), "{err}");
}

#[test]
fn wires_strata_lacks_and_azure_settings_are_named() {
    let none = Map::new();
    let err = error("amazon-bedrock/anthropic.claude-sonnet-4", &[], &none);
    assert!(
        err.contains("amazon-bedrock") && err.contains("SigV4"),
        "{err}"
    );
    let err = error("azure/gpt-4o", &[("AZURE_API_KEY", "k")], &none);
    assert!(
        err.contains("resourceName") && err.contains("apiVersion"),
        "{err}"
    );
    let azure =
        map(json!({"azure": {"options": {"resourceName": "acme", "apiVersion": "2024-10-21"}}}));
    let r = resolve("azure/gpt-4o", &[("AZURE_API_KEY", "k")], &azure);
    assert_eq!(
        r.provider.base_url(),
        "https://acme.openai.azure.com/openai/deployments/gpt-4o"
    );
}

#[test]
fn keys_come_from_the_environment_then_the_config_then_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let creds = Credentials::new(dir.path(), None);
    creds.set("groq", "stored").unwrap();
    let cfg = map(json!({"groq": {"options": {"apiKey": "from-config"}}}));
    let none = Map::new();
    let key = |env: &[(&str, &str)], providers: &Map<String, Value>| {
        let r = Resolver::new(providers)
            .with_env(env_of(env))
            .with_credentials(creds.clone());
        let source = r.source("groq", "m").unwrap();
        r.key(&source).unwrap()
    };
    assert_eq!(
        key(&[("GROQ_API_KEY", "from-env")], &cfg),
        ("from-env".into(), KeySource::Env("GROQ_API_KEY".into()))
    );
    assert_eq!(key(&[], &cfg), ("from-config".into(), KeySource::Config));
    assert_eq!(
        key(&[], &none),
        ("stored".into(), KeySource::Stored(KeyOrigin::Strata))
    );
}

#[test]
fn enabled_and_disabled_providers_are_honoured() {
    let none = Map::new();
    let raw = json!({"disabled_providers": ["groq"]});
    let r = Resolver::new(&none)
        .with_env(env_of(&[("GROQ_API_KEY", "k")]))
        .with_filters_from(&raw);
    let err = r
        .resolve("groq/llama-3.3-70b-versatile")
        .unwrap_err()
        .to_string();
    assert!(err.contains("disabled_providers"), "{err}");
    let raw = json!({"enabled_providers": ["anthropic"], "disabled_providers": ["anthropic"]});
    let r = Resolver::new(&none).with_filters_from(&raw);
    assert!(!r.allowed("anthropic"), "disabled wins");
    assert!(!r.allowed("openai"), "only the enabled ones");
    let raw = json!({"enabled_providers": ["openai"]});
    let r = Resolver::new(&none).with_filters_from(&raw);
    assert!(r.allowed("openai"));
    assert!(r.list().iter().all(|p| p.id == "openai"));
}

#[test]
fn an_unknown_model_of_a_known_provider_runs_with_a_warning() {
    let r = resolve(
        "anthropic/claude-from-the-future-9",
        &[("ANTHROPIC_API_KEY", "k")],
        &Map::new(),
    );
    assert!(r.info.is_none());
    assert!(
        r.warnings[0].contains("not in the catalogue") && r.warnings[0].contains("limit"),
        "{:?}",
        r.warnings
    );
}

#[test]
fn catalogue_urls_with_variables_are_filled_from_the_environment() {
    let providers = map(json!({"x": {"npm": "@ai-sdk/openai-compatible", "options": {}}}));
    let err = error("x/m", &[], &providers);
    assert!(
        err.contains("has no base URL") && err.contains("provider.x.options.baseURL"),
        "{err}"
    );
    let db = ModelsDev::get();
    let templated = db
        .providers()
        .find(|(_, p)| p.api.as_deref().is_some_and(|a| a.contains("${")));
    if let Some((id, provider)) = templated {
        let model = provider.models.keys().next().cloned().unwrap_or_default();
        let err = error(&format!("{id}/{model}"), &[], &Map::new());
        assert!(err.contains("environment variable"), "{id}: {err}");
    }
}

#[test]
fn the_listing_covers_the_catalogue_and_marks_what_can_be_called() {
    let providers = map(
        json!({"lab": {"options": {"baseURL": "http://127.0.0.1:8000/v1"}, "models": {"m1": {}}}}),
    );
    let r = Resolver::new(&providers).with_env(env_of(&[("GROQ_API_KEY", "k")]));
    let list = r.list();
    assert!(list.len() >= 140, "{}", list.len());
    let find = |id: &str| list.iter().find(|p| p.id == id).unwrap();
    assert!(find("lab").usable() && find("lab").configured);
    assert_eq!(find("lab").models[0].id, "m1");
    assert!(find("groq").usable());
    assert_eq!(
        find("groq").key,
        Some(KeySource::Env("GROQ_API_KEY".into()))
    );
    assert!(!find("mistral").usable());
    assert!(
        find("amazon-bedrock")
            .problem
            .as_deref()
            .is_some_and(|p| p.contains("SigV4"))
    );
    assert!(find("anthropic").models.len() > 5);
}

#[test]
fn known_ids_and_suggestions_cover_the_config_and_the_catalogue() {
    let providers = map(json!({"my-box": {"options": {"baseURL": "http://127.0.0.1:9/v1"}}}));
    let r = Resolver::new(&providers).with_env(|_| None);
    assert!(r.knows("groq"));
    assert!(r.knows("my-box"));
    assert!(!r.knows("grq"));
    assert_eq!(r.closest_ids("grq", 1), ["groq"]);
    assert_eq!(r.closest_ids("my-bx", 1), ["my-box"]);
}
