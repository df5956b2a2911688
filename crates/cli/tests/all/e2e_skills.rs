//! Skills end to end with the built binary: `strata skills` (what was found, from where, the
//! warnings), `strata tool skill`, and `strata run` loading a skill the system prompt listed.
use crate::common::Project;
use crate::e2e_run_support::*;
use serde_json::json;
use strata_testkit::model_server::{ModelServer, Turn, call};

fn skill_md(name: &str, description: Option<&str>, body: &str) -> String {
    let description = description.map_or(String::new(), |d| format!("description: {d}\n"));
    format!("---\nname: {name}\n{description}---\n{body}")
}

/// Writes a file under the fake home directory.
fn home_file(p: &Project, rel: &str, content: &str) {
    let path = p.home.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// A project with a user skill, a project skill overriding another user skill, a skill with no
/// description, and a malformed one.
fn project_with_skills() -> Project {
    let p = Project::new();
    home_file(
        &p,
        ".claude/skills/review/SKILL.md",
        &skill_md("review", Some("Review a change"), "Read the diff first."),
    );
    home_file(
        &p,
        ".agents/skills/deploy/SKILL.md",
        &skill_md("deploy", Some("Old deploy steps"), "old"),
    );
    p.file(
        ".strata/skills/deploy/SKILL.md",
        skill_md("deploy", Some("Ship a release"), "Run `make release`."),
    );
    p.file(".strata/skills/deploy/Makefile", "release:\n\ttrue\n");
    p.file(
        ".claude/skills/quiet/SKILL.md",
        skill_md("quiet", None, "No description here."),
    );
    p.file(
        ".agents/skills/broken/SKILL.md",
        "---\nname: broken\ndescription: [oops\n---\n",
    );
    p
}

fn redact(p: &Project, text: &str) -> String {
    text.replace(&p.dir.display().to_string(), "[DIR]")
        .replace(&p.home.display().to_string(), "[HOME]")
        .replace(&p.config.display().to_string(), "[CONFIG]")
}

#[test]
fn strata_skills_lists_what_was_found_and_from_where() {
    let p = project_with_skills();
    let run = p.strata(&["skills"]);
    run.expect_code(0);
    insta::assert_snapshot!("skills_listing", redact(&p, &run.stdout));
}

#[test]
fn strata_skills_as_json_marks_listed_and_denied_skills() {
    let p = project_with_skills();
    p.file(
        "strata.json",
        json!({"permission": {"skill": {"review": "deny"}}}).to_string(),
    );
    let run = p.strata(&["skills", "--format", "json"]);
    run.expect_code(0);
    let out = run.json();
    let skills = out["skills"].as_array().unwrap();
    let names: Vec<_> = skills.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["deploy", "quiet", "review"]);
    assert_eq!(skills[0]["source"], "project");
    assert_eq!(skills[0]["listed"], true);
    assert_eq!(skills[1]["listed"], false, "no description");
    assert_eq!(skills[2]["source"], "user");
    assert_eq!(skills[2]["denied"], true);
    assert_eq!(skills[2]["listed"], false);
    let warnings = out["warnings"].to_string();
    assert!(warnings.contains("broken/SKILL.md"), "{warnings}");
    assert!(warnings.contains("replaces"), "{warnings}");
    assert!(!out["sources"].as_array().unwrap().is_empty());
}

#[test]
fn strata_tool_skill_loads_by_name_and_lists_names_for_an_unknown_one() {
    let p = project_with_skills();
    let run = p.strata(&["tool", "skill", r#"{"name":"deploy"}"#]);
    run.expect_code(0);
    insta::assert_snapshot!("tool_skill_deploy", redact(&p, &run.stdout));
    let run = p.strata(&["tool", "skill", r#"{"name":"nope"}"#]);
    run.expect_code(1);
    assert!(
        run.stderr
            .contains("Available skills: deploy, quiet, review."),
        "{run:#?}"
    );
    let run = p.strata(&["tool", "skill", r#"{"name":"broken"}"#]);
    run.expect_code(1);
    assert!(run.stderr.contains("broken/SKILL.md"), "{run:#?}");
}

#[test]
fn strata_run_lists_skills_in_the_system_prompt_and_loads_one() {
    let p = project_with_skills();
    let server = ModelServer::start(vec![
        Turn::TextAndToolCalls(
            "Loading the deploy skill.".into(),
            vec![call("c1", "skill", r#"{"name":"deploy"}"#)],
        ),
        Turn::text("Deployed."),
    ]);
    let run = run(&p, &server, &["--format", "json", "--yes", "deploy it"]);
    run.expect_code(0);
    let events = json_lines(&run);
    let tool = events.iter().find(|e| e["type"] == "tool_use").unwrap();
    let state = &tool["part"]["state"];
    assert_eq!(state["status"], "completed", "{state}");
    assert_eq!(state["title"], "Loaded skill: deploy");
    assert_eq!(
        state["metadata"]["dir"],
        p.dir.join(".strata/skills/deploy").display().to_string()
    );
    let output = state["output"].as_str().unwrap();
    assert!(
        output.starts_with("<skill_content name=\"deploy\">"),
        "{output}"
    );
    assert!(output.contains("Run `make release`."), "{output}");
    assert!(
        output.contains("/.strata/skills/deploy/Makefile</file>"),
        "{output}"
    );

    let requests = server.requests();
    let system = requests[0]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("<available_skills>"), "{system}");
    assert!(system.contains("<name>deploy</name>"), "{system}");
    assert!(
        system.contains("<description>Ship a release</description>"),
        "{system}"
    );
    assert!(system.contains("<name>review</name>"), "{system}");
    assert!(!system.contains("<name>quiet</name>"), "{system}");
    assert!(!system.contains("<name>broken</name>"), "{system}");
    // The tool result reaches the model in the next request.
    let second = requests[1]["messages"].to_string();
    assert!(second.contains("skill_content"), "{second}");
}

#[test]
fn a_bad_skills_paths_config_is_refused_naming_the_key() {
    let p = Project::new();
    p.file("strata.json", r#"{"skills": {"paths": "not-a-list"}}"#);
    let run = p.strata(&["skills"]);
    run.expect_code(1);
    assert!(run.stderr.contains("`skills.paths`"), "{run:#?}");
    assert!(
        run.stderr.contains("an array of directory paths"),
        "{run:#?}"
    );
}
