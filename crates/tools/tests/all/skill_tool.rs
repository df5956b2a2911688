//! `skill` through the real wrapper on skills discovered from real files: loading, the ask,
//! the file sample, unknown and denied names, malformed files, and the skill directories'
//! external-directory allow (spec §13, §0.4, §19 skill).

use crate::wrapper_support::root;
use serde_json::json;
use strata_services::skills::Skills;
use strata_testkit::{ReplyMode, TestInstance, redacted};
use strata_tools::ToolError;

fn skill_md(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n{body}")
}

fn message(e: &ToolError) -> String {
    e.to_string()
}

#[tokio::test]
async fn loads_a_project_skill_with_its_directory_and_files() {
    TestInstance::builder()
        // Asked, so the request is seen (the default rules allow `skill`).
        .config(json!({"permission": {"skill": "ask"}}))
        .file(
            ".strata/skills/tool-skill/SKILL.md",
            skill_md(
                "tool-skill",
                "Use this skill for tool tests.",
                "\n# Tool skill\n\nRun `scripts/check.sh` first.\n\n",
            ),
        )
        .file(".strata/skills/tool-skill/scripts/check.sh", "#!/bin/sh\n")
        .file(".strata/skills/tool-skill/reference.md", "ref\n")
        .run(|t| async move {
            let r = t
                .call("skill", json!({"name": "tool-skill"}))
                .await
                .unwrap();
            let dir = t.path(".strata/skills/tool-skill");
            assert_eq!(r.title, "Loaded skill: tool-skill");
            assert_eq!(r.metadata["name"], "tool-skill");
            assert_eq!(r.metadata["dir"], dir.display().to_string());
            assert_eq!(r.metadata["truncated"], false);
            assert!(r.output.contains(&format!(
                "<file>{}</file>",
                dir.join("scripts/check.sh").display()
            )));
            assert!(!r.output.contains("SKILL.md</file>"), "{}", r.output);
            redacted(&t).bind(|| insta::assert_snapshot!("skill_loaded", r.output));
            let asks = t.asked_for("skill");
            assert_eq!(asks.len(), 1);
            assert_eq!(asks[0].patterns, ["tool-skill"]);
            assert_eq!(asks[0].always, ["tool-skill"]);
            assert_eq!(asks[0].metadata, json!({}));
        })
        .await;
}

#[tokio::test]
async fn an_unknown_name_lists_the_available_names() {
    TestInstance::builder()
        .file(".claude/skills/b/SKILL.md", skill_md("beta", "b", ""))
        .file(".claude/skills/a/SKILL.md", skill_md("alpha", "a", ""))
        // Loadable by name even without a description, so it is named too.
        .file(".agents/skills/q/SKILL.md", "---\nname: quiet\n---\nq")
        .run(|t| async move {
            let e = t
                .call("skill", json!({"name": "missing-skill"}))
                .await
                .unwrap_err();
            assert!(matches!(e, ToolError::Model(_)), "{e:?}");
            assert!(message(&e).contains("\"missing-skill\""), "{e}");
            assert!(message(&e).contains("alpha, beta, quiet"), "{e}");
            insta::assert_snapshot!("skill_unknown", message(&e));
            assert!(t.asked_for("skill").is_empty());
        })
        .await;
}

#[tokio::test]
async fn with_no_skills_the_error_says_there_are_none() {
    TestInstance::builder()
        .run(|t| async move {
            let e = t.call("skill", json!({"name": "x"})).await.unwrap_err();
            insta::assert_snapshot!("skill_none", message(&e));
        })
        .await;
}

#[tokio::test]
async fn a_denied_skill_is_neither_loadable_nor_named() {
    TestInstance::builder()
        .config(json!({"permission": {"skill": {"*": "allow", "secret-*": "deny"}}}))
        .file(
            ".strata/skills/s/SKILL.md",
            skill_md("secret-plan", "s", "hidden"),
        )
        .file(
            ".strata/skills/o/SKILL.md",
            skill_md("open", "o", "visible"),
        )
        .run(|t| async move {
            let e = t
                .call("skill", json!({"name": "secret-plan"}))
                .await
                .unwrap_err();
            assert!(matches!(e, ToolError::Model(_)), "{e:?}");
            assert!(message(&e).contains("Available skills: open."), "{e}");
            assert!(t.asked_for("skill").is_empty());
            let r = t.call("skill", json!({"name": "open"})).await.unwrap();
            assert!(r.output.contains("visible"));
        })
        .await;
}

#[tokio::test]
async fn a_malformed_skill_file_is_named_and_the_others_still_load() {
    TestInstance::builder()
        .file(
            ".strata/skills/broken/SKILL.md",
            "---\nname: broken\ndescription: [never closed\n---\nbody\n",
        )
        .file(".strata/skills/fine/SKILL.md", skill_md("fine", "f", "ok"))
        .run(|t| async move {
            let e = t
                .call("skill", json!({"name": "broken"}))
                .await
                .unwrap_err();
            assert!(matches!(e, ToolError::Model(_)), "{e:?}");
            let text = message(&e);
            let file = t.path(".strata/skills/broken/SKILL.md");
            assert!(text.contains(&file.display().to_string()), "{text}");
            assert!(text.contains("not valid YAML"), "{text}");
            redacted(&t).bind(|| insta::assert_snapshot!("skill_malformed", text));
            let r = t.call("skill", json!({"name": "fine"})).await.unwrap();
            assert!(r.output.contains("ok"));
        })
        .await;
}

#[tokio::test]
async fn a_rejected_ask_stops_the_turn() {
    TestInstance::builder()
        .config(json!({"permission": {"skill": "ask"}}))
        .file(".strata/skills/a/SKILL.md", skill_md("a", "d", "x"))
        .run(|t| async move {
            t.reply_mode(ReplyMode::Reject(None));
            let e = t.call("skill", json!({"name": "a"})).await.unwrap_err();
            assert!(matches!(e, ToolError::Permission(_)), "{e:?}");
            assert!(e.stops_turn());
        })
        .await;
}

#[tokio::test]
async fn a_missing_name_is_invalid_arguments() {
    TestInstance::builder()
        .run(|t| async move {
            let e = t.call("skill", json!({})).await.unwrap_err();
            let ToolError::InvalidArguments { tool, detail } = &e else {
                panic!("expected InvalidArguments, got {e:?}");
            };
            assert_eq!(tool, "skill");
            assert!(detail.contains("name"), "{detail}");
            let e = t.call("skill", json!({"name": 3})).await.unwrap_err();
            assert!(matches!(e, ToolError::InvalidArguments { .. }), "{e:?}");
        })
        .await;
}

#[tokio::test]
async fn home_skill_dirs_are_allowed_for_external_reads_and_other_outside_dirs_are_asked() {
    TestInstance::builder()
        .outside_file(
            "home/.claude/skills/u/SKILL.md",
            skill_md("user-skill", "from home", "see notes.md"),
        )
        .outside_file("home/.claude/skills/u/notes.md", "the notes\n")
        .outside_file("elsewhere/other.md", "other\n")
        .run(|t| async move {
            let skills = t.get::<Skills>();
            let skill = skills.get("user-skill").unwrap();
            let notes = skill.dir.join("notes.md");
            let r = t
                .call("read", json!({"filePath": notes.display().to_string()}))
                .await
                .unwrap();
            assert!(r.output.contains("the notes"));
            assert!(t.asked_for("external_directory").is_empty());
            let other = root(&t).join("elsewhere/other.md");
            t.call("read", json!({"filePath": other.display().to_string()}))
                .await
                .unwrap();
            assert_eq!(t.asked_for("external_directory").len(), 1);
        })
        .await;
}

#[tokio::test]
async fn the_description_is_stable_and_names_no_skill() {
    TestInstance::builder()
        .file(
            ".strata/skills/x/SKILL.md",
            skill_md("zebra-skill", "z", ""),
        )
        .run(|t| async move {
            let registry = t.get::<strata_registry::ToolRegistry>();
            let d = &registry.get("skill").unwrap().description;
            assert!(!d.contains("zebra-skill"), "{d}");
            assert!(d.contains("<available_skills>"), "{d}");
        })
        .await;
}
