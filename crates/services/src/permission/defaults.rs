//! The built-in rules every agent starts from, and which tools a ruleset hides.

use std::path::{Path, PathBuf};

use super::rules::{Action, Rule, Ruleset};
use super::wildcard::wildcard_match;

/// The permission a `bash` command asks for to run outside the sandbox; its pattern is the
/// command. Asked by default, never auto-allowed by the sandbox.
pub const SANDBOX_ESCAPE: &str = "sandbox_escape";

/// The `‹dir›/*` glob that covers everything under `dir` (backslashes turned into `/`).
pub fn dir_glob(dir: &Path) -> String {
    let dir = dir.to_string_lossy().replace('\\', "/");
    format!("{}/*", dir.trim_end_matches('/'))
}

/// The rules every agent starts from (spec §0.5 "Default agent rules" and §0.4): everything
/// allowed, except a doom loop, a command that asks to run outside the sandbox
/// (`sandbox_escape`, see `docs/sandbox.md`) and paths outside the project (asked, but the truncation dir,
/// `temp_strata_dir` and each skill dir are allowed), questions and plan switches (denied), and
/// reading `.env` files (asked, but `*.env.example` allowed).
pub fn default_rules(
    truncation_dir: &Path,
    temp_strata_dir: &Path,
    skill_dirs: &[PathBuf],
) -> Ruleset {
    let mut rules = vec![
        Rule::new("*", "*", Action::Allow),
        Rule::new("doom_loop", "*", Action::Ask),
        Rule::new(SANDBOX_ESCAPE, "*", Action::Ask),
        Rule::new("external_directory", "*", Action::Ask),
        Rule::new(
            "external_directory",
            dir_glob(truncation_dir),
            Action::Allow,
        ),
        Rule::new(
            "external_directory",
            dir_glob(temp_strata_dir),
            Action::Allow,
        ),
    ];
    rules.extend(
        skill_dirs
            .iter()
            .map(|dir| Rule::new("external_directory", dir_glob(dir), Action::Allow)),
    );
    rules.extend([
        Rule::new("question", "*", Action::Deny),
        Rule::new("plan_enter", "*", Action::Deny),
        Rule::new("plan_exit", "*", Action::Deny),
        Rule::new("read", "*", Action::Allow),
        Rule::new("read", "*.env", Action::Ask),
        Rule::new("read", "*.env.*", Action::Ask),
        Rule::new("read", "*.env.example", Action::Allow),
    ]);
    rules
}

/// The `build` agent's rules: `defaults`, then its own allows for `question` and `plan_enter`,
/// then `user` (from config), then the truncation-dir allow (see [`ensure_truncation_allow`]).
pub fn build_agent_rules(defaults: &[Rule], user: &[Rule], truncation_dir: &Path) -> Ruleset {
    let mut rules: Ruleset = defaults.to_vec();
    rules.push(Rule::new("question", "*", Action::Allow));
    rules.push(Rule::new("plan_enter", "*", Action::Allow));
    rules.extend_from_slice(user);
    ensure_truncation_allow(rules, truncation_dir)
}

/// Appends an allow of `‹truncation dir›/*` for `external_directory`, so that saved tool output
/// can always be read back, unless `rules` deny exactly that glob.
pub fn ensure_truncation_allow(mut rules: Ruleset, truncation_dir: &Path) -> Ruleset {
    let glob = dir_glob(truncation_dir);
    let denied = rules.iter().any(|r| {
        r.permission == "external_directory" && r.action == Action::Deny && r.pattern == glob
    });
    if !denied {
        rules.push(Rule::new("external_directory", glob, Action::Allow));
    }
    rules
}

/// The tools to leave out of the model's list, from `tools` (pairs of a tool id and the
/// permission it is checked under, as the tool declares it), in that order: those whose
/// permission's last matching rule is a `deny` of pattern `*`. A later allow, a narrower
/// pattern or an `ask` keeps a tool visible (its calls are then decided one by one).
pub fn hidden_tools<S: AsRef<str>>(tools: &[(S, S)], rules: &[Rule]) -> Vec<String> {
    tools
        .iter()
        .filter(|(_, permission)| {
            rules
                .iter()
                .rev()
                .find(|r| wildcard_match(&r.permission, permission.as_ref()))
                .is_some_and(|r| r.pattern == "*" && r.action == Action::Deny)
        })
        .map(|(tool, _)| tool.as_ref().to_string())
        .collect()
}
