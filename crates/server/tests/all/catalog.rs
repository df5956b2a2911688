//! The catalog routes with the instance's real data: every agent (built-in and custom) with
//! its rules, the MCP servers' status, the skills, and the `/api/*` location.

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::fixture::server;

#[tokio::test]
async fn agent_lists_the_builtin_and_custom_agents_default_first() {
    let s = server(vec![])
        .config(json!({"agent": {
            "review": {
                "description": "Reviews the change.",
                "mode": "subagent",
                "model": "openai/scripted-model",
                "prompt": "Review with care.",
                "temperature": 0.2,
                "steps": 4,
                "permission": {"edit": "deny"},
            },
            "audit": {"description": "Audits.", "mode": "primary"},
        }}))
        .start()
        .await;
    let a = s.get("/agent").await;
    assert_eq!(a.status, StatusCode::OK);
    let names: Vec<&str> = a
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    // The default first: opencode's TUI starts with the first agent that is not a subagent.
    assert_eq!(
        names,
        ["build", "audit", "explore", "general", "plan", "review"]
    );
    let review = &a.body[5];
    assert_eq!(review["native"], false);
    assert_eq!(
        review["model"],
        json!({"providerID": "openai", "modelID": "scripted-model"})
    );
    // The agent's own rule comes after the defaults, so it wins.
    let last_edit = review["permission"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|r| r["permission"] == "edit")
        .unwrap();
    assert_eq!(
        last_edit,
        &json!({"permission": "edit", "pattern": "*", "action": "deny"})
    );
    let plan = &a.body[4];
    assert!(
        plan["permission"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["permission"] == "edit" && r["action"] == "deny"),
        "{plan}"
    );
    // Rules and prompts are long, hold paths and change with the defaults; the snapshot keeps
    // the shape of each agent.
    let shapes: Vec<Value> = a
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|agent| {
            let mut agent = agent.clone();
            assert!(!agent["permission"].as_array().unwrap().is_empty());
            agent["permission"] = json!("[rules]");
            if agent["prompt"].is_string() {
                agent["prompt"] = json!("[prompt]");
            }
            agent
        })
        .collect();
    s.redactions()
        .bind(|| insta::assert_json_snapshot!("agents", shapes));
    s.shutdown().await;
}

#[tokio::test]
async fn mcp_reports_each_configured_server_in_opencodes_shape() {
    let s = server(vec![])
        .config(json!({"mcp": {
            "missing": {"type": "local", "command": ["strata-no-such-mcp-server"]},
            "off": {"type": "local", "command": ["strata-no-such-mcp-server"], "enabled": false},
        }}))
        .start()
        .await;
    let a = s.get("/mcp").await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.body["off"], json!({"status": "disabled"}));
    assert_eq!(a.body["missing"]["status"], "failed");
    let why = a.body["missing"]["error"].as_str().unwrap();
    assert!(why.contains("strata-no-such-mcp-server"), "{why}");
    assert_eq!(a.body.as_object().unwrap().len(), 2);
    s.shutdown().await;
}

#[tokio::test]
async fn skills_and_the_api_location_come_from_the_project() {
    let s = server(vec![]).start().await;
    // A directory of its own gets its own instance, which finds the skill.
    let sub = s.dir.join("sub");
    let skill_dir = sub.join(".strata/skills/greet");
    std::fs::create_dir_all(&skill_dir).unwrap();
    std::fs::write(
        skill_dir.join("SKILL.md"),
        "---\nname: greet\ndescription: Says hello.\n---\nSay hello politely.\n",
    )
    .unwrap();
    let q = format!("?directory={}", sub.display());
    let skills = s.get(&format!("/skill{q}")).await;
    assert_eq!(skills.status, StatusCode::OK);
    let greet = skills
        .body
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == "greet");
    let greet = greet.unwrap_or_else(|| panic!("{}", skills.body));
    assert_eq!(greet["description"], "Says hello.");
    assert!(
        greet["content"]
            .as_str()
            .unwrap()
            .contains("Say hello politely.")
    );
    assert!(greet["location"].as_str().unwrap().ends_with("SKILL.md"));
    let api = s.get(&format!("/api/skill{q}")).await;
    assert_eq!(api.body["data"], skills.body);
    let dir = sub.to_string_lossy();
    assert_eq!(api.body["location"]["directory"], dir.as_ref());
    let location = s.get(&format!("/api/location{q}")).await;
    assert_eq!(location.body, api.body["location"]);
    assert_eq!(location.body["project"]["directory"], dir.as_ref());
    let status = s.get("/experimental/workspace/status").await;
    assert_eq!(status.body, json!([]));
    s.shutdown().await;
}
