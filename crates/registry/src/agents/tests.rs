use std::path::Path;

use serde_json::{Value, json};
use strata_services::permission::{Action, Rule, evaluate};

use super::parse::{apply, patch, tools_rules_over};
use super::*;

fn map(v: Value) -> serde_json::Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("tests pass objects"),
    }
}

#[test]
fn the_builtins_are_build_plan_general_and_explore() {
    let agents = Agents::default();
    assert_eq!(agents.names(), ["build", "explore", "general", "plan"]);
    let modes: Vec<_> = agents.list().map(|a| (a.name.as_str(), a.mode)).collect();
    assert_eq!(
        modes,
        [
            ("build", AgentMode::Primary),
            ("explore", AgentMode::Subagent),
            ("general", AgentMode::Subagent),
            ("plan", AgentMode::Primary),
        ]
    );
    assert_eq!(
        agents.default_agent().map(|a| a.name.as_str()),
        Some("build")
    );
    let subs: Vec<_> = agents.subagents().map(|a| a.name.as_str()).collect();
    assert_eq!(subs, ["explore", "general"]);
    assert!(agents.list().all(|a| a.builtin && a.description.is_some()));
}

#[test]
fn an_unknown_name_lists_the_agents_there_are() {
    let err = Agents::default().lookup("nope").unwrap_err();
    assert_eq!(
        err.to_string(),
        "there is no agent named `nope`; the available agents are: build, explore, general, plan"
    );
}

#[test]
fn plan_denies_edits_except_plan_files_and_asks_for_unknown_bash() {
    let agents = Agents::default();
    let plan = agents.get("plan").unwrap();
    let rules: &[Rule] = &plan.rules;
    let act = |perm: &str, pattern: &str| evaluate(perm, pattern, &[rules]).action;
    assert_eq!(act("edit", "src/main.rs"), Action::Deny);
    assert_eq!(act("edit", ".strata/plans/17-x.md"), Action::Allow);
    assert_eq!(act("edit", ".strata/plans/17-x.txt"), Action::Deny);
    assert_eq!(act("plan_exit", "*"), Action::Allow);
    assert_eq!(act("task", "general"), Action::Deny);
    for allowed in [
        "git status",
        "git log --oneline -5",
        "git diff HEAD~1",
        "ls -la",
        "cat src/main.rs",
        "rg foo",
        "find . -name '*.rs'",
        "pwd",
    ] {
        assert_eq!(act("bash", allowed), Action::Allow, "{allowed}");
    }
    for asked in [
        "rm -rf target",
        "cargo build",
        "ls > listing.txt",
        "cat a 2>/dev/null",
        "find . -name x -exec rm {} ;",
        "find . -delete",
        "git diff --output=patch.diff",
        "rg --pre sh foo",
        "git push",
        "lsblk",
    ] {
        assert_eq!(act("bash", asked), Action::Ask, "{asked}");
    }
}

#[test]
fn explore_may_only_read_and_search() {
    let agents = Agents::default();
    let rules: &[Rule] = &agents.get("explore").unwrap().rules;
    let act = |perm: &str| evaluate(perm, "*", &[rules]).action;
    for tool in ["read", "grep", "glob", "bash", "webfetch", "websearch"] {
        assert_eq!(act(tool), Action::Allow, "{tool}");
    }
    for tool in ["edit", "todowrite", "task", "question"] {
        assert_eq!(act(tool), Action::Deny, "{tool}");
    }
}

#[test]
fn a_definition_is_read_key_by_key() {
    let home = Path::new("/home/u");
    let p = patch(
        &map(json!({
            "description": "Reviews code",
            "mode": "subagent",
            "model": "openai/gpt-5",
            "temperature": 0.2,
            "steps": 7,
            "tools": {"write": false, "bash": true},
            "permission": {"edit": "deny", "read": {"~/secret/*": "deny"}},
            "color": "#fff",
        })),
        home,
    )
    .unwrap();
    assert_eq!(p.description.as_deref(), Some("Reviews code"));
    assert_eq!(p.mode, Some(AgentMode::Subagent));
    assert_eq!(p.model.as_deref(), Some("openai/gpt-5"));
    assert_eq!(p.temperature, Some(0.2));
    assert_eq!(p.steps, Some(7));
    assert_eq!(
        p.rules,
        vec![
            Rule::new("edit", "*", Action::Deny),
            Rule::new("bash", "*", Action::Allow),
            Rule::new("edit", "*", Action::Deny),
            Rule::new("read", "/home/u/secret/*", Action::Deny),
        ]
    );
    let all = patch(&map(json!({"permission": "deny", "maxSteps": 3})), home).unwrap();
    assert_eq!(all.rules, vec![Rule::new("*", "*", Action::Deny)]);
    assert_eq!(all.steps, Some(3));
}

#[test]
fn a_bad_value_names_its_key() {
    let home = Path::new("/h");
    let key = |v: Value| patch(&map(v), home).unwrap_err();
    assert_eq!(key(json!({"mode": "sometimes"})).key, "mode");
    let e = key(json!({"temperature": "hot"}));
    assert_eq!(e.key, "temperature");
    assert!(e.message.contains("a number from 0 to 2"), "{}", e.message);
    assert_eq!(key(json!({"temperature": 9})).key, "temperature");
    assert_eq!(key(json!({"steps": 0})).key, "steps");
    assert_eq!(key(json!({"maxSteps": "x"})).key, "maxSteps");
    assert_eq!(key(json!({"description": 3})).key, "description");
    assert_eq!(
        key(json!({"permission": {"bash": "maybe"}})).key,
        "permission.bash"
    );
    assert_eq!(
        key(json!({"permission": {"bash": {"rm *": 1}}})).key,
        "permission.bash.rm *"
    );
    assert_eq!(key(json!({"tools": {"edit": "no"}})).key, "tools.edit");
    assert_eq!(key(json!({"disable": 1})).key, "disable");
    let e = key(json!({"isolation": "container"}));
    assert_eq!(e.key, "isolation");
    assert!(e.message.contains("\"worktree\""), "{}", e.message);
}

#[test]
fn isolation_worktree_marks_the_agent_and_none_clears_it() {
    let home = Path::new("/h");
    let on = patch(&map(json!({"isolation": "worktree"})), home).unwrap();
    let mut agent = AgentInfo::new("worker", AgentMode::Subagent);
    apply(&mut agent, on);
    assert!(agent.worktree);
    // A later source without the key leaves it; `none` turns it off.
    apply(&mut agent, patch(&map(json!({"steps": 2})), home).unwrap());
    assert!(agent.worktree);
    apply(
        &mut agent,
        patch(&map(json!({"isolation": "none"})), home).unwrap(),
    );
    assert!(!agent.worktree);
}

#[test]
fn errors_name_the_file_and_the_key() {
    let e = AgentError {
        name: "review".into(),
        file: Some("/p/.strata/agents/review.md".into()),
        key: "temperature".into(),
        message: "it must be a number from 0 to 2, but it is \"hot\"".into(),
    };
    assert_eq!(
        e.to_string(),
        "the agent file /p/.strata/agents/review.md has a bad `temperature`: it must be a \
         number from 0 to 2, but it is \"hot\"; the agent `review` was not loaded"
    );
    let agents = Agents::from_parts(builtin_agents(), vec![e]);
    let unknown = agents.lookup("review").unwrap_err().to_string();
    assert!(
        unknown.contains("review.md has a bad `temperature`"),
        "{unknown}"
    );
    assert!(
        unknown.ends_with("build, explore, general, plan"),
        "{unknown}"
    );
}

/// A tool that asks under `read`'s permission, as `docs/migration.md`'s `wc` walk-through does.
struct Wc;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoParams {}

impl strata_tools::Tool for Wc {
    const ID: &'static str = "wc";
    const PERMISSION: &'static str = "read";
    const EFFECTS: strata_tools::Effects = strata_tools::Effects::READ_ONLY;
    type Params = NoParams;
    type Deps = ();

    fn init((): ()) -> Self {
        Wc
    }

    fn description(&self) -> String {
        "Counts nothing.".into()
    }

    async fn execute(
        &self,
        _: NoParams,
        _cx: strata_tools::ToolCx,
    ) -> Result<strata_tools::ToolResult, strata_tools::ToolError> {
        Ok(strata_tools::ToolResult::new("nothing", ""))
    }
}

#[test]
fn a_tool_switch_denies_the_permission_the_tool_declares() {
    let mut defs = strata_tools::builtin();
    defs.push(strata_tools::ToolDef::of::<Wc>());
    let switches = map(json!({"tools": {"wc": false, "apply_patch": false, "my_mcp_tool": false}}));
    assert_eq!(
        tools_rules_over(&switches, &defs).unwrap(),
        vec![
            Rule::new("read", "*", Action::Deny),
            Rule::new("edit", "*", Action::Deny),
            Rule::new("my_mcp_tool", "*", Action::Deny),
        ]
    );
}
