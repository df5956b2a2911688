//! Each route group's success and error shapes, through the real router.

use axum::http::StatusCode;
use serde_json::json;
use strata_testkit::model_server::Turn;

use super::fixture::{Server, server};

#[tokio::test]
async fn sessions_are_created_listed_updated_forked_and_deleted() {
    let s = server(vec![]).start().await;
    let created = s
        .post(
            "/session",
            json!({"title": "First", "permission": [{"permission": "question", "pattern": "*", "action": "deny"}]}),
        )
        .await;
    assert_eq!(created.status, StatusCode::OK);
    s.redactions()
        .bind(|| insta::assert_json_snapshot!("session_created", created.body));
    let id = created.body["id"].as_str().unwrap().to_string();

    let got = s.get(&format!("/session/{id}")).await;
    assert_eq!(got.body, created.body);
    let list = s.get("/session").await;
    assert_eq!(list.body.as_array().unwrap().len(), 1);

    let patched = s
        .call(
            "PATCH",
            &format!("/session/{id}"),
            Some(json!({"title": "Renamed"})),
        )
        .await;
    assert_eq!(patched.body["title"], "Renamed");
    assert_eq!(patched.body["permission"][0]["action"], "deny");

    let child = s.post("/session", json!({"parentID": id})).await;
    assert_eq!(child.body["parentID"], id.as_str());
    let children = s.get(&format!("/session/{id}/children")).await;
    assert_eq!(children.body.as_array().unwrap().len(), 1);

    let fork = s.post(&format!("/session/{id}/fork"), json!({})).await;
    assert_eq!(fork.status, StatusCode::OK);
    assert_ne!(fork.body["id"], id.as_str());
    assert_eq!(fork.body["title"], "Renamed (fork)");

    for (path, want) in [("todo", json!([])), ("diff", json!([]))] {
        let a = s.get(&format!("/session/{id}/{path}")).await;
        assert_eq!((a.status, a.body), (StatusCode::OK, want), "{path}");
    }
    assert_eq!(s.get("/session/status").await.body, json!({}));

    let deleted = s.call("DELETE", &format!("/session/{id}"), None).await;
    assert_eq!(deleted.body, json!(true));
    let gone = s.get(&format!("/session/{id}")).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
    // The child went with its parent.
    let child_id = child.body["id"].as_str().unwrap();
    assert_eq!(
        s.get(&format!("/session/{child_id}")).await.status,
        StatusCode::NOT_FOUND
    );
    s.shutdown().await;
}

#[tokio::test]
async fn errors_have_opencodes_body_and_status() {
    let s = server(vec![]).start().await;
    let missing = s.get("/session/ses_nope").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    s.redactions()
        .bind(|| insta::assert_json_snapshot!("error_not_found", missing.body));

    let unknown = s.get("/no/such/route").await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert_eq!(unknown.body["name"], "NotFoundError");
    assert!(
        unknown.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );

    let id = s.session().await;
    let bad = s
        .post(
            &format!("/session/{id}/message"),
            json!({"parts": [{"type": "text"}]}),
        )
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    s.redactions()
        .bind(|| insta::assert_json_snapshot!("error_bad_field", bad.body));

    let not_json = s
        .send(
            axum::http::Request::post("/session")
                .header("content-type", "application/json")
                .body(axum::body::Body::from("{oops"))
                .unwrap(),
        )
        .await;
    assert_eq!(not_json.status, StatusCode::BAD_REQUEST);
    assert_eq!(not_json.body["name"], "BadRequest");

    let rule = s
        .post(
            "/session",
            json!({"permission": [{"permission": "bash", "pattern": "*", "action": "maybe"}]}),
        )
        .await;
    assert_eq!(rule.status, StatusCode::BAD_REQUEST);
    assert!(
        rule.body["data"]["message"]
            .as_str()
            .unwrap()
            .contains("permission[0].action")
    );

    let huge = "x".repeat(strata_server::http::BODY_LIMIT + 10);
    let too_big = s
        .send(
            axum::http::Request::post(format!("/session/{id}/message"))
                .header("content-type", "application/json")
                .body(axum::body::Body::from(huge))
                .unwrap(),
        )
        .await;
    assert_eq!(too_big.status, StatusCode::PAYLOAD_TOO_LARGE);

    let no_reply = s
        .post("/permission/per_nope/reply", json!({"reply": "once"}))
        .await;
    // Not pending (here: never issued) is a conflict, not a missing route.
    assert_eq!(no_reply.status, StatusCode::CONFLICT);
    assert_eq!(no_reply.body["name"], "NotPendingError");
    let bad_reply = s
        .post("/permission/per_nope/reply", json!({"reply": "sometimes"}))
        .await;
    assert_eq!(bad_reply.status, StatusCode::BAD_REQUEST);
    assert!(
        bad_reply.body["data"]["message"]
            .as_str()
            .unwrap()
            .starts_with("reply")
    );
    let no_question = s.post("/question/que_nope/reject", json!({})).await;
    assert_eq!(no_question.status, StatusCode::NOT_FOUND);
    let no_dir = s.get("/session?directory=%2Fno%2Fsuch%2Fdir").await;
    assert_eq!(no_dir.status, StatusCode::BAD_REQUEST);
    s.shutdown().await;
}

#[tokio::test]
async fn a_blocking_prompt_returns_the_last_assistant_message_after_a_tool_call() {
    let s = server(vec![
        Turn::tool_call("call_1", "read", r#"{"filePath":"a.txt"}"#),
        Turn::text("Done."),
    ])
    .file("a.txt", "hello\n")
    .start()
    .await;
    let id = s.session().await;
    let answer = s
        .post(
            &format!("/session/{id}/message"),
            Server::prompt("read a.txt"),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    s.redactions()
        .bind(|| insta::assert_json_snapshot!("prompt_answer", answer.body));
    let messages = s.get(&format!("/session/{id}/message")).await;
    let all = messages.body.as_array().unwrap();
    assert_eq!(all.len(), 3, "user, tool step, text step");
    assert_eq!(all[2]["info"]["parentID"], all[0]["info"]["id"]);
    let tool = &all[1]["parts"][1];
    assert_eq!(tool["tool"], "read");
    assert_eq!(tool["state"]["status"], "completed");
    let last = s.get(&format!("/session/{id}/message?limit=1")).await;
    assert_eq!(last.body.as_array().unwrap().len(), 1);
    let mid = all[1]["info"]["id"].as_str().unwrap();
    let one = s.get(&format!("/session/{id}/message/{mid}")).await;
    assert_eq!(one.body["info"]["id"], mid);
    let info = s.get(&format!("/session/{id}")).await.body;
    assert_eq!(info["title"], "read a.txt");
    // The session's usage is the sum of its two steps'.
    for field in ["input", "output"] {
        let steps: u64 = [&all[1], &all[2]]
            .iter()
            .map(|m| m["info"]["tokens"][field].as_u64().unwrap())
            .sum();
        assert!(steps > 0, "{field}");
        assert_eq!(info["tokens"][field], steps, "{field}");
    }
    s.shutdown().await;
}

#[tokio::test]
async fn context_routes_answer_in_opencodes_shapes() {
    let s = server(vec![]).start().await;
    let path = s.get("/path").await;
    assert_eq!(path.body["directory"], s.dir.to_string_lossy().as_ref());
    for key in ["home", "state", "config", "worktree"] {
        assert!(path.body[key].is_string(), "{key}: {:?}", path.body);
    }
    // The configured provider and the model the config names; the catalogue's own models
    // (and the local servers that need no key) are listed beside them.
    let providers = s.get("/config/providers").await;
    let openai = providers.body["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "openai")
        .unwrap();
    let configured = json!({
        "provider": {
            "id": openai["id"], "name": openai["name"], "source": openai["source"],
            "env": openai["env"], "options": openai["options"],
        },
        "model": openai["models"]["scripted-model"],
        "default": providers.body["default"]["openai"],
    });
    s.redactions()
        .bind(|| insta::assert_json_snapshot!("config_providers", configured));
    let provider = s.get("/provider").await;
    assert_eq!(provider.body["connected"][0], "openai");
    let agents = s.get("/agent").await;
    assert_eq!(agents.body[0]["name"], "build");
    assert_eq!(agents.body[0]["mode"], "primary");
    let config = s.get("/config").await;
    assert_eq!(config.body["model"], "openai/scripted-model");
    for (path, want) in [
        ("/lsp", json!([])),
        ("/formatter", json!([])),
        ("/command", json!([])),
        ("/mcp", json!({})),
        (
            "/experimental/capabilities",
            json!({"backgroundSubagents": false}),
        ),
    ] {
        let a = s.get(path).await;
        assert_eq!((a.status, a.body), (StatusCode::OK, want), "{path}");
    }
    let located = s.get("/api/agent").await;
    assert_eq!(located.body["data"], json!([]));
    let health = s.get("/global/health").await;
    assert_eq!(health.body["healthy"], true);
    s.shutdown().await;
}

#[tokio::test]
async fn every_tool_id_is_listed_once() {
    let s = server(vec![]).start().await;
    let ids = s.get("/experimental/tool/ids").await;
    assert_eq!(ids.status, StatusCode::OK);
    let ids: Vec<&str> = ids
        .body
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    for tool in [
        "bash",
        "read",
        "glob",
        "grep",
        "edit",
        "write",
        "apply_patch",
        "task",
    ] {
        assert!(ids.contains(&tool), "{tool} missing: {ids:?}");
    }
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "{ids:?}");
    s.shutdown().await;
}

#[tokio::test]
async fn the_config_is_served_with_its_keys_hidden() {
    let s = server(vec![])
        .config(json!({"provider": {"groq": {"options": {"apiKey": "gsk-sekrit", "timeout": 5}}}}))
        .start()
        .await;
    let config = s.get("/config").await;
    assert_eq!(config.status, StatusCode::OK);
    let groq = &config.body["provider"]["groq"]["options"];
    assert_eq!(groq["apiKey"], "***", "{}", config.body);
    assert_eq!(groq["timeout"], 5, "other settings stay readable");
    assert!(!config.body.to_string().contains("gsk-sekrit"));
    s.shutdown().await;
}

#[tokio::test]
async fn the_openapi_document_lists_every_route_with_schemas_from_the_types() {
    let s = server(vec![]).start().await;
    let doc = s.get("/doc").await.body;
    assert_eq!(doc["openapi"], "3.1.0");
    let routes = strata_server::routes::all_routes();
    assert!(routes.len() >= 52, "{} routes", routes.len());
    for route in routes {
        let op = &doc["paths"][route.doc_path()][route.method];
        assert!(op.is_object(), "{} {} missing", route.method, route.path);
    }
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    for name in [
        "SessionInfo",
        "PromptBody",
        "PermissionReplyBody",
        "ApiError",
        "Envelope",
    ] {
        assert!(
            schemas.contains_key(name),
            "{name} missing: {:?}",
            schemas.keys()
        );
    }
    let create =
        &doc["paths"]["/session"]["post"]["requestBody"]["content"]["application/json"]["schema"];
    assert_eq!(create["$ref"], "#/components/schemas/SessionCreateBody");
    s.shutdown().await;
}

#[tokio::test]
async fn a_user_message_names_the_model_it_was_sent_to() {
    let s = server(vec![Turn::text("Hi.")]).start().await;
    let id = s.session().await;
    let answer = s
        .post(&format!("/session/{id}/message"), Server::prompt("hello"))
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    let messages = s.get(&format!("/session/{id}/message")).await;
    let user = &messages.body[0]["info"];
    assert_eq!(user["role"], "user");
    // opencode's clients read the model of the last user message back.
    assert_eq!(
        user["model"],
        json!({"providerID": "openai", "modelID": "scripted-model"})
    );
    s.shutdown().await;
}

#[tokio::test]
async fn a_body_that_is_not_an_object_is_a_400() {
    // schemathesis found `[null, null]` accepted as an empty create and update.
    let s = server(vec![]).start().await;
    let id = s.session().await;
    for (method, path) in [
        ("POST", "/session".to_string()),
        ("PATCH", format!("/session/{id}")),
    ] {
        for body in [json!([null, null]), json!(true), json!("x")] {
            let a = s.call(method, &path, Some(body.clone())).await;
            assert_eq!(
                a.status,
                StatusCode::BAD_REQUEST,
                "{method} {path} {body}: {a:?}"
            );
            assert!(a.body.to_string().contains("JSON object"), "{a:?}");
        }
    }
    assert_eq!(s.get("/session").await.body.as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn mcp_prompts_are_listed_as_commands_and_run_as_a_turn() {
    let mcp = strata_testkit::mcp_server::serve_http_with_resources().await;
    let s = server(vec![Turn::text("Hello, Ada.")])
        .config(json!({"mcp": {"rich": {"type": "remote", "url": mcp.url("/mcp")}}}))
        .start()
        .await;
    let listed = s.get("/command").await;
    assert_eq!(listed.status, StatusCode::OK, "{listed:?}");
    let all = listed.body.as_array().unwrap();
    assert_eq!(all.len(), strata_testkit::mcp_server::PROMPTS, "{all:?}");
    assert_eq!(
        all[0],
        json!({"name": "rich:greet", "description": "Greets someone.", "source": "mcp",
            "template": "", "hints": ["name", "[mood]"]})
    );
    let id = s.session().await;
    let path = format!("/session/{id}/command");
    let missing = s
        .post(
            &path,
            json!({"command": "rich:greet", "arguments": "mood=warmly"}),
        )
        .await;
    assert_eq!(missing.status, StatusCode::BAD_REQUEST, "{missing:?}");
    let why = missing.body["data"]["message"].as_str().unwrap();
    assert!(
        why.contains("`rich:greet` needs the argument `name`"),
        "{why}"
    );
    let unknown = s.post(&path, json!({"command": "rich:nope"})).await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST, "{unknown:?}");
    let ran = s
        .post(
            &path,
            json!({"command": "rich:greet", "arguments": "Ada mood=warmly",
            "model": "openai/scripted-model"}),
        )
        .await;
    assert_eq!(ran.status, StatusCode::OK, "{ran:?}");
    // The reply is the turn's last assistant message: its text part carries the answer.
    let parts = ran.body["parts"].as_array().unwrap();
    let texts: Vec<_> = parts.iter().filter(|p| p["type"] == "text").collect();
    assert_eq!(texts.len(), 1, "{parts:?}");
    assert_eq!(texts[0]["text"], "Hello, Ada.", "{parts:?}");
    let sent = s.model.requests()[0]["messages"].to_string();
    assert!(sent.contains("Greet Ada warmly."), "{sent}");
    s.shutdown().await;
}
