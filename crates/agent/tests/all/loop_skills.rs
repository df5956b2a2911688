//! Skills in the agent loop: the system prompt lists the skills the agent may load (with a
//! description, not denied), the `skill` tool's description stays the same, and a loaded
//! skill's instructions come back as the tool result (spec §13).
use crate::loop_support::*;
use serde_json::{Value, json};
use strata_agent::session::RunOutcome;
use strata_testkit::TestInstance;
use strata_testkit::model_server::{ModelServer, SentItem, Turn};

fn skill_md(name: &str, description: Option<&str>, body: &str) -> String {
    let description = description.map_or(String::new(), |d| format!("description: {d}\n"));
    format!("---\nname: {name}\n{description}---\n{body}")
}

fn system_text(request: &Value) -> String {
    let first = &request["messages"][0];
    assert_eq!(first["role"], "system");
    first["content"].as_str().unwrap().to_string()
}

fn skill_description(request: &Value) -> String {
    request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "skill")
        .map(|t| t["function"]["description"].as_str().unwrap().to_string())
        .expect("the skill tool is offered")
}

#[tokio::test]
async fn the_system_prompt_lists_the_skills_and_the_tool_loads_one() {
    TestInstance::builder()
        .config(json!({"permission": {"skill": {"*": "allow", "hidden-*": "deny"}}}))
        .file(
            ".strata/skills/deploy/SKILL.md",
            skill_md("deploy", Some("Ship a release"), "Run make release."),
        )
        .file(
            ".claude/skills/quiet/SKILL.md",
            skill_md("quiet", None, "no description"),
        )
        .file(
            ".agents/skills/h/SKILL.md",
            skill_md("hidden-one", Some("Never shown"), "secret"),
        )
        .outside_file(
            "home/.agents/skills/u/SKILL.md",
            skill_md("from-home", Some("A user skill"), "home body"),
        )
        .run(|t| async move {
            let server = ModelServer::start(vec![
                Turn::tool_call("c1", "skill", r#"{"name":"deploy"}"#),
                Turn::text("Done."),
            ]);
            let runner = runner(&t, &server, MODEL, options());
            let ran = run(&t, &runner, "ship it").await;
            assert_eq!(ran.report.outcome, RunOutcome::Completed);
            let requests = server.requests();
            let system = system_text(&requests[0]);
            let location = t.path(".strata/skills/deploy/SKILL.md");
            assert!(
                system.contains(&format!(
                    "  <skill>\n    <name>deploy</name>\n    <description>Ship a release\
                     </description>\n    <location>{}</location>\n  </skill>",
                    location.display()
                )),
                "{system}"
            );
            assert!(system.contains("<name>from-home</name>"), "{system}");
            assert!(
                !system.contains("quiet"),
                "no description, not listed: {system}"
            );
            assert!(
                !system.contains("hidden-one"),
                "denied, not listed: {system}"
            );
            // The tool's description names no skill.
            let description = skill_description(&requests[0]);
            assert!(!description.contains("deploy"), "{description}");
            let results: Vec<(String, String)> = server.sent()[1]
                .messages
                .iter()
                .flat_map(|m| &m.items)
                .filter_map(|item| match item {
                    SentItem::Result {
                        call_id, output, ..
                    } => Some((call_id.clone(), output.clone())),
                    _ => None,
                })
                .collect();
            assert_eq!(results.len(), 1, "{results:?}");
            assert_eq!(results[0].0, "c1");
            assert!(
                results[0].1.starts_with("<skill_content name=\"deploy\">"),
                "{}",
                results[0].1
            );
            assert!(results[0].1.contains("Run make release."));
        })
        .await;
}

#[tokio::test]
async fn without_skills_or_with_the_tool_hidden_there_is_no_listing() {
    TestInstance::builder()
        .run(|t| async move {
            let server = ModelServer::start(vec![Turn::text("Hi.")]);
            run(&t, &runner(&t, &server, MODEL, options()), "hello").await;
            let system = system_text(&server.requests()[0]);
            assert!(!system.contains("<available_skills>"), "{system}");
        })
        .await;
    TestInstance::builder()
        .config(json!({"permission": {"skill": "deny"}}))
        .file(".strata/skills/a/SKILL.md", skill_md("a", Some("d"), ""))
        .run(|t| async move {
            let server = ModelServer::start(vec![Turn::text("Hi.")]);
            run(&t, &runner(&t, &server, MODEL, options()), "hello").await;
            let request = &server.requests()[0];
            let system = system_text(request);
            assert!(!system.contains("<available_skills>"), "{system}");
            let tools: Vec<_> = request["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                .collect();
            assert!(!tools.contains(&"skill".to_string()), "{tools:?}");
        })
        .await;
}
