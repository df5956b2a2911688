//! Agents loaded by a real instance: markdown files in every folder (through FsUtil), the
//! config's `agent` map, a broken file that does not stop the others, and the surface each
//! agent's rules give.

use serde_json::json;
use strata_registry::rules::ruleset_of;
use strata_registry::{AgentMode, Agents, SurfaceSpec, ToolRegistry};
use strata_services::config::Config;
use strata_services::flags::RuntimeFlags;
use strata_services::skills::Skills;
use strata_testkit::TestInstance;

const REVIEW: &str = "---\ndescription: Reviews changes\nmode: subagent\nmodel: openai/gpt-5\n\
temperature: 0.1\nsteps: 4\npermission:\n  edit: deny\n---\nYou review code. Be brief.\n";

#[tokio::test]
async fn markdown_and_config_agents_load_and_a_broken_file_names_its_key() {
    TestInstance::builder()
        .file(".strata/agents/review.md", REVIEW)
        .file(
            ".opencode/agent/docs.md",
            "---\ndescription: Writes docs\n---\nWrite docs.\n",
        )
        .file(
            ".opencode/agents/bare.md",
            "Just a prompt, no frontmatter.\n",
        )
        .file(
            ".strata/agents/broken.md",
            "---\ntemperature: hot\n---\nbody\n",
        )
        .file(".strata/agents/notes.txt", "not an agent")
        .outside_file(
            "home/.config/strata/agents/mine.md",
            "---\nmode: primary\n---\nMine.\n",
        )
        .outside_file(
            "config/agents/cfg.md",
            "---\ndescription: from the config dir\n---\n",
        )
        .config(json!({"agent": {
            "build": {"model": "anthropic/claude-sonnet-4", "steps": 9},
            "quick": {"description": "Quick one", "mode": "primary", "prompt": "Be quick."},
            "general": {"disable": true},
            "bad": {"mode": 3},
        }}))
        .run(|t| async move {
            let agents = t.get::<Agents>();
            assert_eq!(
                agents.names(),
                [
                    "bare", "build", "cfg", "docs", "explore", "mine", "plan", "quick", "review"
                ]
            );
            let review = agents.get("review").unwrap();
            assert_eq!(review.mode, AgentMode::Subagent);
            assert_eq!(review.description.as_deref(), Some("Reviews changes"));
            assert_eq!(review.model.as_deref(), Some("openai/gpt-5"));
            assert_eq!(review.temperature, Some(0.1));
            assert_eq!(review.steps, Some(4));
            assert_eq!(review.prompt.as_deref(), Some("You review code. Be brief."));
            assert!(!review.builtin);
            let bare = agents.get("bare").unwrap();
            assert_eq!(bare.mode, AgentMode::All);
            assert_eq!(
                bare.prompt.as_deref(),
                Some("Just a prompt, no frontmatter.")
            );
            assert_eq!(agents.get("mine").unwrap().mode, AgentMode::Primary);
            let build = agents.get("build").unwrap();
            assert!(build.builtin);
            assert_eq!(build.model.as_deref(), Some("anthropic/claude-sonnet-4"));
            assert_eq!(build.steps, Some(9));
            assert_eq!(
                agents.get("quick").unwrap().prompt.as_deref(),
                Some("Be quick.")
            );

            let errors: Vec<String> = agents.errors().iter().map(|e| e.to_string()).collect();
            assert_eq!(errors.len(), 2, "{errors:#?}");
            assert!(
                errors[0].contains("broken.md has a bad `temperature`")
                    && errors[0].contains("but it is \"hot\""),
                "{}",
                errors[0]
            );
            assert!(
                errors[1].contains("`agent.bad` has a bad `mode`"),
                "{}",
                errors[1]
            );
        })
        .await;
}

#[tokio::test]
async fn an_agent_whose_rules_deny_edit_has_no_edit_tools() {
    TestInstance::builder()
        .file(".strata/agents/review.md", REVIEW)
        .run(|t| async move {
            let agents = t.get::<Agents>();
            let registry = t.get::<ToolRegistry>();
            let surface = |name: &str| -> Vec<&'static str> {
                let rules = ruleset_of(
                    agents.get(name).unwrap(),
                    &t.get::<Config>(),
                    &t.get::<RuntimeFlags>(),
                    &t.get::<Skills>(),
                )
                .unwrap();
                let spec = SurfaceSpec {
                    model: "openai/gpt-5".into(),
                    ruleset: rules,
                    ..SurfaceSpec::default()
                };
                registry.surface(&spec).iter().map(|x| x.id).collect()
            };
            let build = surface("build");
            assert!(build.contains(&"apply_patch"), "{build:?}");
            let review = surface("review");
            assert!(!review.contains(&"apply_patch"), "{review:?}");
            assert!(
                review.contains(&"read") && review.contains(&"bash"),
                "{review:?}"
            );
            let explore = surface("explore");
            assert!(!explore.contains(&"apply_patch") && !explore.contains(&"todowrite"));
            assert!(explore.contains(&"grep"), "{explore:?}");
        })
        .await;
}
