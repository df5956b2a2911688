//! `--agent` end to end: an unknown agent is a usage error listing the agents, `strata tools
//! --agent` shows that agent's surface (a custom markdown agent denying `edit` loses the
//! editing tools), a malformed agent file is reported by name and key while the others load,
//! and `strata run --agent plan` refuses edits and hands over to `build` after `plan_exit`.

use crate::common::Project;
use crate::e2e_run_support::*;
use serde_json::{Value, json};
use strata_testkit::model_server::{ModelServer, Turn};

const REVIEW: &str =
    "---\ndescription: Reviews changes\nmode: subagent\npermission:\n  edit: deny\n---\nReview.\n";

fn tool_ids(p: &Project, args: &[&str]) -> Vec<String> {
    let mut all = vec!["tools", "--format", "json"];
    all.extend_from_slice(args);
    let run = p.strata(&all);
    run.expect_code(0);
    let doc: Value = serde_json::from_str(&run.stdout).expect("JSON");
    doc["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn an_unknown_agent_is_a_usage_error_listing_the_agents() {
    let p = Project::new();
    p.file(".strata/agents/review.md", REVIEW);
    let server = ModelServer::start(vec![Turn::text("unreachable")]);
    let run = run(&p, &server, &["--agent", "nope", "hello"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains(
            "there is no agent named `nope`; the available agents are: build, explore, \
             general, plan, review"
        ),
        "{run:#?}"
    );
    assert!(server.requests().is_empty(), "no model request");
    let tools = p.strata(&["tools", "--agent", "nope"]);
    tools.expect_code(2);
    assert!(tools.stderr.contains("no agent named `nope`"), "{tools:#?}");
}

#[test]
fn tools_for_an_agent_leave_out_what_its_rules_deny() {
    let p = Project::new();
    p.file(".strata/agents/review.md", REVIEW);
    let build = tool_ids(&p, &[]);
    assert_eq!(build, tool_ids(&p, &["--agent", "build"]));
    assert!(build.contains(&"edit".into()) && build.contains(&"write".into()));
    assert!(!build.contains(&"plan_exit".into()), "{build:?}");
    let review = tool_ids(&p, &["--agent", "review"]);
    for gone in ["edit", "write", "apply_patch"] {
        assert!(!review.contains(&gone.to_string()), "{review:?}");
    }
    assert!(review.contains(&"read".into()) && review.contains(&"bash".into()));
    let patch_model = tool_ids(&p, &["--agent", "review", "--model", "openai/gpt-5"]);
    assert!(
        !patch_model.contains(&"apply_patch".into()),
        "{patch_model:?}"
    );
    let explore = tool_ids(&p, &["--agent", "explore"]);
    assert!(!explore.contains(&"edit".into()) && !explore.contains(&"todowrite".into()));
    // The plan agent keeps its editing tools (for the plan file) and, with a person to
    // answer, gets `plan_exit`, whose schema takes nothing.
    let run = p.strata(&[
        "tools",
        "--agent",
        "plan",
        "--interactive",
        "--format",
        "json",
    ]);
    run.expect_code(0);
    let doc: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let plan_exit = doc["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "plan_exit")
        .unwrap_or_else(|| panic!("plan_exit offered: {doc}"));
    assert_eq!(plan_exit["parameters"]["properties"], json!({}));
    let plan = tool_ids(&p, &["--agent", "plan"]);
    assert!(plan.contains(&"edit".into()), "{plan:?}");
    assert!(
        !plan.contains(&"plan_exit".into()),
        "no one to answer: {plan:?}"
    );
}

#[test]
fn a_malformed_agent_file_is_named_with_its_key_and_the_others_still_load() {
    let p = Project::new();
    p.file(".strata/agents/review.md", REVIEW);
    p.file(
        ".strata/agents/broken.md",
        "---\nmode: sometimes\n---\nBody.\n",
    );
    let run = p.strata(&["tools", "--agent", "review"]);
    run.expect_code(0);
    assert!(
        run.stderr.contains("broken.md has a bad `mode`")
            && run.stderr.contains("\"primary\", \"subagent\" or \"all\""),
        "{run:#?}"
    );
    let broken = p.strata(&["tools", "--agent", "broken"]);
    broken.expect_code(2);
    assert!(
        broken
            .stderr
            .contains("no agent named `broken` (the agent file")
            && broken.stderr.contains("review"),
        "{broken:#?}"
    );
}

#[test]
fn run_as_plan_refuses_an_edit_outside_the_plan_file() {
    let p = Project::new();
    p.file("a.txt", "one\n");
    let write = json!({"filePath": "b.txt", "content": "new"});
    let server = ModelServer::start(vec![
        Turn::tool_call("c1", "write", &write.to_string()),
        Turn::text("unreachable"),
    ]);
    let run = run(&p, &server, &["--agent", "plan", "--yes", "change a"]);
    run.expect_code(1);
    assert_eq!(
        std::fs::read_to_string(p.dir.join("a.txt")).unwrap(),
        "one\n"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "{run:#?}");
    let body = requests[0].to_string();
    assert!(body.contains("Plan mode is on"), "{body}");
}

#[test]
fn plan_exit_on_a_terminal_hands_over_to_build() {
    // The pseudo-terminal comes from `script` (Debian package bsdutils).
    strata_testkit::require_external!("script", "apt-get install bsdutils");
    let p = Project::new();
    let server = ModelServer::start(vec![
        Turn::tool_call("c1", "plan_exit", "{}"),
        Turn::text("Building it now."),
    ]);
    let args = ["run", "--model", MODEL, "--agent", "plan", "plan it"];
    let run = on_tty(&p, &server, &args, "1\n");
    run.expect_code(0);
    let shown = run.stdout.replace("\r\n", "\n");
    assert!(shown.contains("Build agent"), "{run:#?}");
    assert!(shown.contains("Building it now."), "{run:#?}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let second = requests[1].to_string();
    assert!(second.contains("is approved"), "{second}");
    assert!(second.contains("Plan mode is over"), "{second}");
}

#[test]
fn an_agents_temperature_is_sent_to_the_model_and_none_is_sent_without_one() {
    let p = Project::new();
    p.file(
        ".strata/agents/careful.md",
        "---\ndescription: Careful\nmode: primary\ntemperature: 0.2\n---\nBe careful.\n",
    );
    let server = ModelServer::start(vec![Turn::text("ok"), Turn::text("ok")]);
    run(&p, &server, &["--agent", "careful", "hi"]).expect_code(0);
    run(&p, &server, &["hi"]).expect_code(0);
    // The agents' own requests offer tools (a title request does not): the custom agent's
    // carry its temperature, the default agent's none.
    let requests = server.requests();
    let agents: Vec<&Value> = requests
        .iter()
        .filter(|r| r["tools"].as_array().is_some_and(|t| !t.is_empty()))
        .collect();
    assert_eq!(agents.len(), 2, "{requests:#?}");
    let careful = agents
        .iter()
        .filter(|r| r.to_string().contains("Be careful."));
    assert_eq!(careful.count(), 1, "one request is the custom agent's");
    for r in agents {
        let want = r.to_string().contains("Be careful.").then_some(0.2);
        assert_eq!(r.get("temperature").and_then(Value::as_f64), want, "{r:#}");
    }
}
