//! The pure rule functions: from config, merge, evaluate, defaults, hidden tools.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::*;
use Action::{Allow, Ask, Deny};

fn r(permission: &str, pattern: &str, action: Action) -> Rule {
    Rule::new(permission, pattern, action)
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

const HOME: &str = "/home/tester";

fn cfg(v: Value) -> Ruleset {
    from_config(&obj(v), Path::new(HOME)).unwrap()
}

// ---- From config ----

#[test]
fn config_string_gives_one_star_rule() {
    assert_eq!(cfg(json!({"bash": "allow"})), vec![r("bash", "*", Allow)]);
}

#[test]
fn config_object_gives_one_rule_per_entry_in_order() {
    assert_eq!(
        cfg(json!({"bash": {"*": "ask", "git *": "allow", "rm *": "deny"}})),
        vec![
            r("bash", "*", Ask),
            r("bash", "git *", Allow),
            r("bash", "rm *", Deny)
        ]
    );
}

#[test]
fn config_mixed_keeps_key_order() {
    assert_eq!(
        cfg(json!({"read": "allow", "bash": {"ls *": "allow"}, "edit": "deny", "*": "ask"})),
        vec![
            r("read", "*", Allow),
            r("bash", "ls *", Allow),
            r("edit", "*", Deny),
            r("*", "*", Ask),
        ]
    );
}

#[test]
fn config_empty_gives_no_rules() {
    assert_eq!(cfg(json!({})), vec![]);
    assert_eq!(cfg(json!({"bash": {}})), vec![]);
}

#[test]
fn config_no_specificity_sorting_leading_star_is_a_fallback() {
    let rules = cfg(json!({"bash": {"*": "deny", "git status": "allow"}}));
    assert_eq!(evaluate("bash", "git status", &[&rules]).action, Allow);
    assert_eq!(evaluate("bash", "rm -rf /", &[&rules]).action, Deny);
    // Reversed order: the later `*` wins over the specific rule.
    let rules = cfg(json!({"bash": {"git status": "allow", "*": "deny"}}));
    assert_eq!(evaluate("bash", "git status", &[&rules]).action, Deny);
}

#[test]
fn config_home_expansion_at_the_start_only() {
    let rules = cfg(json!({"external_directory": {
        "~/projects/*": "allow",
        "~": "allow",
        "$HOME/docs/*": "allow",
        "$HOME": "allow",
        "/data/~/x": "deny",
        "/data/$HOME/x": "deny",
        "~other/*": "deny",
    }}));
    let patterns: Vec<_> = rules.iter().map(|r| r.pattern.as_str()).collect();
    assert_eq!(
        patterns,
        vec![
            "/home/tester/projects/*",
            "/home/tester",
            "/home/tester/docs/*",
            "/home/tester",
            "/data/~/x",
            "/data/$HOME/x",
            "~other/*",
        ]
    );
}

#[test]
fn config_string_value_is_not_expanded_as_pattern() {
    // A plain action always yields pattern `*`.
    assert_eq!(cfg(json!({"read": "deny"}))[0].pattern, "*");
}

#[test]
fn config_errors_name_the_field() {
    let home = Path::new(HOME);
    let err = from_config(&obj(json!({"bash": "maybe"})), home).unwrap_err();
    assert_eq!(err.field, "permission.bash");
    assert!(err.to_string().contains("\"maybe\""), "{err}");
    let err = from_config(&obj(json!({"bash": {"git *": 3}})), home).unwrap_err();
    assert_eq!(err.field, "permission.bash.git *");
    let err = from_config(&obj(json!({"bash": ["allow"]})), home).unwrap_err();
    assert_eq!(err.field, "permission.bash");
    assert!(err.to_string().contains("strata.json"), "{err}");
}

#[test]
fn action_serde_is_lowercase() {
    let rule: Rule =
        serde_json::from_value(json!({"permission": "bash", "pattern": "*", "action": "deny"}))
            .unwrap();
    assert_eq!(rule, r("bash", "*", Deny));
    assert_eq!(serde_json::to_value(Ask).unwrap(), json!("ask"));
}

// ---- Merge ----

#[test]
fn merge_is_plain_concatenation_and_later_overrides() {
    let defaults = vec![r("*", "*", Allow), r("bash", "*", Ask)];
    let config = vec![r("bash", "*", Deny)];
    let merged = merge(&[&defaults, &config]);
    assert_eq!(
        merged,
        vec![
            r("*", "*", Allow),
            r("bash", "*", Ask),
            r("bash", "*", Deny)
        ]
    );
    assert_eq!(evaluate("bash", "ls", &[&merged]).action, Deny);
    assert_eq!(merge(&[]), vec![]);
}

// ---- Evaluate ----

#[test]
fn evaluate_exact_wildcard_and_glob() {
    let rules = vec![
        r("bash", "git status", Allow),
        r("bash", "npm *", Deny),
        r("read", "*.env", Ask),
        r("edit", "src/*.rs", Allow),
    ];
    assert_eq!(evaluate("bash", "git status", &[&rules]).action, Allow);
    assert_eq!(evaluate("bash", "git statusx", &[&rules]).action, Ask);
    assert_eq!(evaluate("bash", "npm install", &[&rules]).action, Deny);
    assert_eq!(evaluate("bash", "npm", &[&rules]).action, Deny);
    assert_eq!(evaluate("read", "conf/.env", &[&rules]).action, Ask);
    assert_eq!(evaluate("edit", "src/a/b.rs", &[&rules]).action, Allow);
}

#[test]
fn evaluate_last_match_wins_in_every_order() {
    let a = r("bash", "*", Allow);
    let d = r("bash", "rm *", Deny);
    let k = r("bash", "rm -rf *", Ask);
    let cases = [
        (vec![a.clone(), d.clone()], Deny),
        (vec![d.clone(), a.clone()], Allow),
        (vec![a.clone(), d.clone(), k.clone()], Ask),
        (vec![k.clone(), a.clone(), d.clone()], Deny),
        (vec![d.clone(), k.clone(), a.clone()], Allow),
    ];
    for (rules, want) in cases {
        let got = evaluate("bash", "rm -rf /tmp/x", &[&rules]);
        assert_eq!(got.action, want, "{rules:?}");
        assert_eq!(&got, rules.iter().rev().find(|r| r.action == want).unwrap());
    }
}

#[test]
fn evaluate_unknown_or_empty_is_ask() {
    let rules = vec![r("bash", "*", Allow)];
    assert_eq!(
        evaluate("webfetch", "https://x", &[&rules]),
        r("webfetch", "*", Ask)
    );
    assert_eq!(evaluate("bash", "ls", &[]).action, Ask);
    assert_eq!(evaluate("bash", "ls", &[&[]]).action, Ask);
}

#[test]
fn evaluate_star_permission_matches_every_tool() {
    let rules = vec![r("*", "*", Deny)];
    for tool in [
        "bash",
        "read",
        "edit",
        "mcp_server_tool",
        "external_directory",
    ] {
        assert_eq!(evaluate(tool, "anything", &[&rules]).action, Deny, "{tool}");
    }
    let rules = vec![r("mcp_*", "*", Deny)];
    assert_eq!(evaluate("mcp_github_issue", "x", &[&rules]).action, Deny);
    assert_eq!(evaluate("bash", "x", &[&rules]).action, Ask);
}

#[test]
fn evaluate_several_rulesets_in_order() {
    let agent = vec![r("bash", "*", Allow)];
    let session = vec![r("bash", "rm *", Deny)];
    assert_eq!(evaluate("bash", "rm x", &[&agent, &session]).action, Deny);
    assert_eq!(evaluate("bash", "rm x", &[&session, &agent]).action, Allow);
    assert_eq!(evaluate("bash", "ls", &[&agent, &session]).action, Allow);
}

// ---- Defaults ----

fn defaults() -> Ruleset {
    default_rules(
        Path::new("/data/tool-output"),
        Path::new("/tmp/strata"),
        &[PathBuf::from("/skills/a"), PathBuf::from("/skills/b/")],
    )
}

#[test]
fn default_rules_decide_as_specified() {
    let d = defaults();
    let e = |perm: &str, pat: &str| evaluate(perm, pat, &[&d]).action;
    assert_eq!(e("bash", "rm -rf /"), Allow);
    assert_eq!(e("doom_loop", "bash"), Ask);
    assert_eq!(e("sandbox_escape", "git push"), Ask);
    assert_eq!(e("external_directory", "/etc/*"), Ask);
    assert_eq!(e("external_directory", "/data/tool-output/*"), Allow);
    assert_eq!(e("external_directory", "/tmp/strata/x/*"), Allow);
    assert_eq!(e("external_directory", "/tmp/other/*"), Ask);
    assert_eq!(e("external_directory", "/skills/a/*"), Allow);
    assert_eq!(e("external_directory", "/skills/b/refs/*"), Allow);
    assert_eq!(e("question", "*"), Deny);
    assert_eq!(e("plan_enter", "*"), Deny);
    assert_eq!(e("plan_exit", "*"), Deny);
    assert_eq!(e("read", "src/main.rs"), Allow);
    assert_eq!(e("read", ".env"), Ask);
    assert_eq!(e("read", "conf/.env.local"), Ask);
    assert_eq!(e("read", "conf/.env.example"), Allow);
}

#[test]
fn build_agent_allows_question_and_plan_enter_and_config_comes_last() {
    let user = vec![r("bash", "*", Deny), r("plan_enter", "*", Deny)];
    let b = build_agent_rules(&defaults(), &user, Path::new("/data/tool-output"));
    let e = |perm: &str| evaluate(perm, "*", &[&b]).action;
    assert_eq!(e("question"), Allow);
    assert_eq!(e("plan_exit"), Deny);
    assert_eq!(e("bash"), Deny);
    assert_eq!(e("plan_enter"), Deny);
    let without_user = build_agent_rules(&defaults(), &[], Path::new("/data/tool-output"));
    assert_eq!(evaluate("plan_enter", "*", &[&without_user]).action, Allow);
}

#[test]
fn truncation_dir_stays_readable_unless_denied_exactly() {
    let trunc = Path::new("/data/tool-output");
    // The user denies every outside dir; saved output must still be readable.
    let user = vec![r("external_directory", "*", Deny)];
    let b = build_agent_rules(&defaults(), &user, trunc);
    let e = |pat: &str| evaluate("external_directory", pat, &[&b]).action;
    assert_eq!(e("/data/tool-output/*"), Allow);
    assert_eq!(e("/skills/a/*"), Deny);
    // Denying exactly that glob is respected.
    let user = vec![r("external_directory", "/data/tool-output/*", Deny)];
    let b = build_agent_rules(&defaults(), &user, trunc);
    assert_eq!(
        evaluate("external_directory", "/data/tool-output/*", &[&b]).action,
        Deny
    );
}

#[test]
fn dir_glob_normalises_separators() {
    assert_eq!(dir_glob(Path::new("/a/b")), "/a/b/*");
    assert_eq!(dir_glob(Path::new("/a/b/")), "/a/b/*");
    assert_eq!(dir_glob(Path::new("/")), "/*");
    assert_eq!(dir_glob(Path::new("C:\\Users\\me")), "C:/Users/me/*");
}

// ---- Hidden tools ----

/// Tool ids with the permission each declares (the file-changing tools share `edit`).
const TOOLS: [(&str, &str); 6] = [
    ("bash", "bash"),
    ("read", "read"),
    ("edit", "edit"),
    ("write", "edit"),
    ("apply_patch", "edit"),
    ("glob", "glob"),
];

#[test]
fn hidden_none_when_all_allowed() {
    assert!(hidden_tools(&TOOLS, &[r("*", "*", Allow)]).is_empty());
    assert!(hidden_tools(&TOOLS, &[]).is_empty());
}

#[test]
fn hidden_denied_tool() {
    assert_eq!(
        hidden_tools(&TOOLS, &[r("*", "*", Allow), r("bash", "*", Deny)]),
        vec!["bash"]
    );
}

#[test]
fn hidden_edit_deny_hides_all_file_changers() {
    assert_eq!(
        hidden_tools(&TOOLS, &[r("edit", "*", Deny)]),
        vec!["edit", "write", "apply_patch"]
    );
    // `write` as a permission name is not what hides `write`.
    assert!(hidden_tools(&TOOLS, &[r("write", "*", Deny)]).is_empty());
}

#[test]
fn hidden_kept_for_narrow_pattern_ask_or_later_allow() {
    assert!(hidden_tools(&TOOLS, &[r("bash", "rm *", Deny)]).is_empty());
    assert!(hidden_tools(&TOOLS, &[r("bash", "*", Ask)]).is_empty());
    assert!(hidden_tools(&TOOLS, &[r("bash", "*", Deny), r("bash", "*", Allow)]).is_empty());
    assert!(hidden_tools(&TOOLS, &[r("bash", "*", Deny), r("bash", "git *", Allow)]).is_empty());
}

#[test]
fn hidden_star_permission_deny_hides_all() {
    assert_eq!(
        hidden_tools(&TOOLS, &[r("*", "*", Deny)]),
        TOOLS.map(|(id, _)| id).to_vec()
    );
}

#[test]
fn hidden_specific_allow_after_wildcard_deny_shows_again() {
    let rules = vec![
        r("*", "*", Deny),
        r("read", "*", Allow),
        r("edit", "*", Allow),
    ];
    assert_eq!(hidden_tools(&TOOLS, &rules), vec!["bash", "glob"]);
}

#[test]
fn hidden_with_owned_names() {
    let names: Vec<(String, String)> = ["bash", "webfetch"]
        .map(|n| (n.to_string(), n.to_string()))
        .to_vec();
    assert_eq!(
        hidden_tools(&names, &[r("webfetch", "*", Deny)]),
        vec!["webfetch"]
    );
}

#[test]
fn decide_puts_deny_before_auto_allow_before_ask() {
    use super::decide;
    assert_eq!(decide(Action::Deny, None, true), Action::Deny);
    assert_eq!(decide(Action::Ask, None, true), Action::Allow);
    assert_eq!(decide(Action::Ask, None, false), Action::Ask);
    assert_eq!(decide(Action::Allow, None, false), Action::Allow);
    // A PreToolUse hook's decision sits after deny rules, before auto_allow and any ask.
    assert_eq!(
        decide(Action::Deny, Some(Action::Allow), false),
        Action::Deny
    );
    assert_eq!(
        decide(Action::Ask, Some(Action::Allow), false),
        Action::Allow
    );
    assert_eq!(decide(Action::Ask, Some(Action::Deny), true), Action::Deny);
    assert_eq!(decide(Action::Allow, Some(Action::Ask), true), Action::Ask);
}
