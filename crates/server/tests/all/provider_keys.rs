//! The provider routes over the resolver's listing, and the keys a client stores with
//! `PUT /auth/{providerID}`: kept in the server's data directory (mode 0600), sent to the
//! provider on the next prompt, removed with `DELETE`.

use std::os::unix::fs::PermissionsExt;

use axum::http::StatusCode;
use serde_json::{Value, json};
use strata_testkit::model_server::Turn;

use super::fixture::server;

const KEY: &str = "gsk-server-test-0123456789";

fn ids(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().or_else(|| p["id"].as_str()).unwrap())
        .collect()
}

#[tokio::test]
async fn a_stored_key_is_sent_to_the_catalogue_provider_and_can_be_removed() {
    let s = server(vec![Turn::text("Hello from groq.")])
        .served_as("groq")
        .start()
        .await;
    let put = s
        .call(
            "PUT",
            "/auth/groq",
            Some(json!({"type": "api", "key": KEY})),
        )
        .await;
    assert_eq!((put.status, put.body), (StatusCode::OK, json!(true)));
    let file = s.root().join("data").join("auth.json");
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    let id = s.session().await;
    let prompt = json!({
        "model": {"providerID": "groq", "modelID": "llama-3.3-70b-versatile"},
        "parts": [{"type": "text", "text": "hello"}],
    });
    let answer = s.post(&format!("/session/{id}/message"), prompt).await;
    assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    let recorded = s.model.recorded();
    assert!(!recorded.is_empty());
    // A key in the test's own environment would win over the stored one.
    let expected = std::env::var("GROQ_API_KEY")
        .ok()
        .filter(|k| !k.trim().is_empty())
        .unwrap_or_else(|| KEY.to_string());
    for request in &recorded {
        assert_eq!(
            request.header("authorization"),
            Some(format!("Bearer {expected}").as_str()),
            "{}",
            request.path
        );
    }

    let delete = s.call("DELETE", "/auth/groq", None).await;
    assert_eq!((delete.status, delete.body), (StatusCode::OK, json!(true)));
    let again = s.call("DELETE", "/auth/groq", None).await;
    assert_eq!((again.status, again.body), (StatusCode::OK, json!(false)));
    let left: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(left, json!({}));
    s.shutdown().await;
}

#[tokio::test]
async fn only_api_keys_are_accepted() {
    let s = server(vec![]).start().await;
    for (body, says) in [
        (json!({"type": "oauth", "key": "x"}), "`oauth`"),
        (json!({"type": "api"}), "no `key`"),
        (json!({"type": "api", "key": "  "}), "no `key`"),
        (json!({"key": "x"}), "type"),
    ] {
        let a = s.call("PUT", "/auth/groq", Some(body.clone())).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{body}: {a:?}");
        let message = a.body["data"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{body}: {message}");
    }
    assert!(!s.root().join("data").join("auth.json").exists());
    s.shutdown().await;
}

#[tokio::test]
async fn a_stored_key_connects_a_catalogue_provider() {
    let s = server(vec![]).start().await;
    let env_has_key = std::env::var("DEEPSEEK_API_KEY").is_ok_and(|k| !k.trim().is_empty());
    let before = s.get("/provider").await.body;
    let all = before["all"].as_array().unwrap();
    assert!(all.len() >= 140, "{}", all.len());
    // Configured providers come first, so clients fall back to one the user set up.
    assert_eq!(all[0]["id"], "openai");
    assert_eq!(all[0]["source"], "config");
    assert!(ids(&before["connected"]).contains(&"openai"));
    assert_eq!(before["default"]["openai"], "scripted-model");
    if !env_has_key {
        assert!(!ids(&before["connected"]).contains(&"deepseek"));
    }
    let deepseek = all.iter().find(|p| p["id"] == "deepseek").unwrap();
    assert_eq!(deepseek["env"], json!(["DEEPSEEK_API_KEY"]));
    let chat = &deepseek["models"]["deepseek-chat"];
    assert!(chat["limit"]["context"].as_u64().unwrap() > 0, "{chat}");
    assert!(chat["cost"]["input"].as_f64().unwrap() > 0.0, "{chat}");
    assert!(chat["api"]["url"].as_str().unwrap().starts_with("https://"));

    let put = s
        .call(
            "PUT",
            "/auth/deepseek",
            Some(json!({"type": "api", "key": KEY})),
        )
        .await;
    assert_eq!(put.status, StatusCode::OK);
    let after = s.get("/provider").await.body;
    assert!(ids(&after["connected"]).contains(&"deepseek"));
    let config = s.get("/config/providers").await.body;
    let listed = ids(&config["providers"]);
    assert!(
        listed.contains(&"deepseek") && listed.contains(&"openai"),
        "{listed:?}"
    );
    assert!(!listed.contains(&"anthropic") || std::env::var("ANTHROPIC_API_KEY").is_ok());
    let deepseek = config["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "deepseek")
        .unwrap();
    if !env_has_key {
        assert_eq!(deepseek["source"], "api");
    }
    assert!(
        config["default"]["deepseek"].is_string(),
        "{}",
        config["default"]
    );
    assert_eq!(config["default"]["openai"], "scripted-model");
    s.shutdown().await;
}
