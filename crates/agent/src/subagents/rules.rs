//! A child session's own rules (spec §14 step 4): the parent session's `external_directory`
//! rules and its `deny` rules; `todowrite` and `task` denied unless the subagent's rules name
//! them; and each tool of `experimental.primary_tools` denied.

use serde_json::Value;
use strata_services::permission::{Action, Rule, Ruleset};
use strata_tools::Tool as _;
use strata_tools::task::TaskTool;
use strata_tools::todowrite::TodoWrite;

/// The session rules of a child whose agent has `agent_rules`, started from a session with
/// `parent_session_rules`, under the merged config document `raw`.
pub fn child_rules(parent_session_rules: &[Rule], agent_rules: &[Rule], raw: &Value) -> Ruleset {
    let mut rules: Ruleset = parent_session_rules
        .iter()
        .filter(|r| r.permission == "external_directory" || r.action == Action::Deny)
        .cloned()
        .collect();
    for tool in [TodoWrite::PERMISSION, TaskTool::PERMISSION] {
        if !agent_rules.iter().any(|r| r.permission == tool) {
            rules.push(Rule::new(tool, "*", Action::Deny));
        }
    }
    let primary = raw
        .pointer("/experimental/primary_tools")
        .and_then(Value::as_array);
    let mut seen: Vec<&str> = Vec::new();
    for tool in primary.into_iter().flatten().filter_map(Value::as_str) {
        if !seen.contains(&tool) {
            seen.push(tool);
            rules.push(Rule::new(tool, "*", Action::Deny));
        }
    }
    rules
}

/// `subagent_depth` from the merged config document: how many levels of subagents may nest
/// (default 1: a top-level session may start subagents, they may not start their own).
pub fn depth_limit(raw: &Value) -> u32 {
    raw.get("subagent_depth")
        .and_then(Value::as_u64)
        .map_or(1, |d| u32::try_from(d).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_child_keeps_denies_and_directories_and_loses_todowrite_and_task() {
        let parent = vec![
            Rule::new("question", "*", Action::Deny),
            Rule::new("bash", "*", Action::Allow),
            Rule::new("external_directory", "/tmp/*", Action::Allow),
        ];
        let agent = vec![Rule::new("task", "explore", Action::Allow)];
        let raw = json!({"experimental": {"primary_tools": ["edit", "edit", "bash"]}});
        let got = child_rules(&parent, &agent, &raw);
        let want = vec![
            Rule::new("question", "*", Action::Deny),
            Rule::new("external_directory", "/tmp/*", Action::Allow),
            Rule::new("todowrite", "*", Action::Deny),
            Rule::new("edit", "*", Action::Deny),
            Rule::new("bash", "*", Action::Deny),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn depth_defaults_to_one() {
        assert_eq!(depth_limit(&json!({})), 1);
        assert_eq!(depth_limit(&json!({"subagent_depth": 3})), 3);
    }
}
