//! The built-in agents and their rules (spec §0.5 "Default agent rules").

use strata_services::permission::{Action, Rule, Ruleset};

use super::{AgentInfo, AgentMode, AgentSource};

/// Where the plan agent keeps its plans, relative to the worktree (edit patterns are
/// worktree-relative).
pub const PLANS_DIR: &str = ".strata/plans";

/// Bash commands the plan agent may run without asking: commands that only read. Each is a
/// wildcard over one command of the tree-sitter scan (every command of a pipeline, list or
/// substitution is checked on its own).
pub const PLAN_BASH_ALLOW: &[&str] = &[
    "git status *",
    "git log *",
    "git diff *",
    "git show *",
    "git blame *",
    "git grep *",
    "git ls-files *",
    "git rev-parse *",
    "ls *",
    "cat *",
    "head *",
    "tail *",
    "wc *",
    "rg *",
    "grep *",
    "find *",
    "pwd",
    "tree *",
    "file *",
    "stat *",
    "du *",
    "which *",
    "echo *",
    "diff *",
];

/// Forms of the allowed commands that write or run something, asked again: any output
/// redirection, `find` actions, `git --output`, `rg --pre`.
const PLAN_BASH_ASK_AGAIN: &[&str] = &[
    "*>*",
    "find *-exec*",
    "find *-ok*",
    "find *-delete*",
    "find *-fprint*",
    "find *-fls*",
    "git *--output*",
    "rg *--pre*",
];

/// The plan agent's bash rules: ask, except the read-only allow-list.
pub fn plan_bash_rules() -> Ruleset {
    let mut rules = vec![Rule::new("bash", "*", Action::Ask)];
    rules.extend(
        PLAN_BASH_ALLOW
            .iter()
            .map(|p| Rule::new("bash", *p, Action::Allow)),
    );
    rules.extend(
        PLAN_BASH_ASK_AGAIN
            .iter()
            .map(|p| Rule::new("bash", *p, Action::Ask)),
    );
    rules
}

fn builtin(name: &str, mode: AgentMode, description: &str, rules: Ruleset) -> AgentInfo {
    AgentInfo {
        description: Some(description.to_string()),
        rules,
        builtin: true,
        source: AgentSource::Builtin,
        ..AgentInfo::new(name, mode)
    }
}

/// `build`, `plan`, `general` and `explore`.
pub fn builtin_agents() -> Vec<AgentInfo> {
    let allow = |p: &str| Rule::new(p, "*", Action::Allow);
    let deny = |p: &str| Rule::new(p, "*", Action::Deny);
    let build = builtin(
        "build",
        AgentMode::Primary,
        "The default agent: reads, edits and runs commands to get the task done.",
        vec![allow("question"), allow("plan_enter")],
    );
    let mut plan_rules = vec![
        allow("question"),
        allow("plan_exit"),
        Rule::new("task", "general", Action::Deny),
        deny("edit"),
        Rule::new("edit", format!("{PLANS_DIR}/*.md"), Action::Allow),
    ];
    plan_rules.extend(plan_bash_rules());
    let plan = builtin(
        "plan",
        AgentMode::Primary,
        "Plans without changing the project: reads, searches and asks, and writes only its \
         plan file.",
        plan_rules,
    );
    let general = builtin(
        "general",
        AgentMode::Subagent,
        "A general-purpose agent for multi-step tasks and open-ended research; it may change \
         files. Give it several units of work to do in parallel.",
        vec![deny("todowrite")],
    );
    let mut explore_rules = vec![deny("*")];
    explore_rules.extend(
        [
            "grep",
            "glob",
            "list",
            "bash",
            "webfetch",
            "websearch",
            "read",
        ]
        .map(allow),
    );
    let explore = AgentInfo {
        prompt: Some(EXPLORE_PROMPT.to_string()),
        ..builtin(
            "explore",
            AgentMode::Subagent,
            "A fast, read-only agent for finding things in the code: files by pattern, code by \
             keyword, answers to questions about the codebase. Say how thorough it should be: \
             quick, medium or very thorough.",
            explore_rules,
        )
    };
    vec![build, plan, general, explore]
}

const EXPLORE_PROMPT: &str = "You are a search specialist. Find what was asked for in the \
project quickly and report it precisely: file paths (absolute), line numbers and the relevant \
snippets. Use glob to find files by name, grep to find code by content, and read to look at \
what you found. Do not change anything: you have no tools that edit, and you run shell commands \
only to look. Stop as soon as you can answer, and answer in a short, plain list.";
