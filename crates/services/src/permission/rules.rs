//! Rules and rulesets: the data, evaluation (last match wins) and reading the config map.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::wildcard::wildcard_match;

/// What a rule decides for a matching call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Allow,
    Ask,
    Deny,
}

impl Action {
    /// Parses `allow`, `ask` or `deny`.
    pub fn parse(s: &str) -> Option<Action> {
        match s {
            "allow" => Some(Action::Allow),
            "ask" => Some(Action::Ask),
            "deny" => Some(Action::Deny),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Action::Allow => "allow",
            Action::Ask => "ask",
            Action::Deny => "deny",
        }
    }
}

/// The decision for one pattern of a call, in this order: a `deny` rule denies; then a
/// PreToolUse hook's decision (`hook`: its `deny` denies, its `allow` allows, its `ask` asks
/// even where a rule allows); then, for a call the sandbox holds, `sandbox.auto_allow` turns
/// an `ask` into an allow; what is left is asked.
pub fn decide(rule: Action, hook: Option<Action>, sandbox_auto_allow: bool) -> Action {
    match (rule, hook) {
        (Action::Deny, _) => Action::Deny,
        (_, Some(decided)) => decided,
        (Action::Allow, None) => Action::Allow,
        (Action::Ask, None) if sandbox_auto_allow => Action::Allow,
        (Action::Ask, None) => Action::Ask,
    }
}

/// One rule: for calls whose permission name matches `permission` and whose pattern matches
/// `pattern` (both wildcards), take `action`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rule {
    pub permission: String,
    pub pattern: String,
    pub action: Action,
}

impl Rule {
    pub fn new(permission: impl Into<String>, pattern: impl Into<String>, action: Action) -> Rule {
        Rule {
            permission: permission.into(),
            pattern: pattern.into(),
            action,
        }
    }
}

/// An ordered list of rules; later rules win.
pub type Ruleset = Vec<Rule>;

/// The rule that decides `permission` on `pattern`: the last one, across `rulesets` taken in
/// order, whose permission and pattern both match. With no match the answer is `ask` (returned
/// as a rule `{permission, "*", ask}`). No specificity sorting: order alone decides.
pub fn evaluate(permission: &str, pattern: &str, rulesets: &[&[Rule]]) -> Rule {
    rulesets
        .iter()
        .rev()
        .flat_map(|set| set.iter().rev())
        .find(|rule| {
            wildcard_match(&rule.permission, permission) && wildcard_match(&rule.pattern, pattern)
        })
        .cloned()
        .unwrap_or_else(|| Rule::new(permission, "*", Action::Ask))
}

/// Rulesets joined in order; later ones (e.g. user config after defaults) override by coming
/// later.
pub fn merge(rulesets: &[&[Rule]]) -> Ruleset {
    rulesets
        .iter()
        .flat_map(|set| set.iter().cloned())
        .collect()
}

/// A `permission` config entry that is not an action or a map of patterns to actions.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "config field `{field}` is {found}; expected \"allow\", \"ask\" or \"deny\"{hint}; fix it in strata.json"
)]
pub struct RuleConfigError {
    /// The dotted path of the field, e.g. `permission.bash.git *`.
    pub field: String,
    /// The offending value, as JSON.
    pub found: String,
    hint: &'static str,
}

/// Rules from the config's `permission` map, in key and entry order: `"tool": "allow"` gives
/// one rule with pattern `*`; `"tool": {"pattern": "deny", ...}` one rule per entry. Patterns
/// beginning with `~/`, `~`, `$HOME/` or `$HOME` have that part replaced by `home`.
pub fn from_config(map: &Map<String, Value>, home: &Path) -> Result<Ruleset, RuleConfigError> {
    let mut rules = Ruleset::new();
    for (permission, value) in map {
        match value {
            Value::String(s) => {
                let action = action_of(value, s, || format!("permission.{permission}"), true)?;
                rules.push(Rule::new(permission, "*", action));
            }
            Value::Object(entries) => {
                for (pattern, v) in entries {
                    let field = || format!("permission.{permission}.{pattern}");
                    let Value::String(s) = v else {
                        return Err(bad(field(), v, false));
                    };
                    let action = action_of(v, s, field, false)?;
                    rules.push(Rule::new(permission, expand_home(pattern, home), action));
                }
            }
            other => return Err(bad(format!("permission.{permission}"), other, true)),
        }
    }
    Ok(rules)
}

fn action_of(
    value: &Value,
    s: &str,
    field: impl Fn() -> String,
    top_level: bool,
) -> Result<Action, RuleConfigError> {
    Action::parse(s).ok_or_else(|| bad(field(), value, top_level))
}

fn bad(field: String, value: &Value, top_level: bool) -> RuleConfigError {
    RuleConfigError {
        field,
        found: value.to_string(),
        hint: if top_level {
            " or an object mapping patterns to one of those"
        } else {
            ""
        },
    }
}

/// Replaces a leading `~`/`~/`/`$HOME`/`$HOME/` with `home`; the same text mid-pattern stays.
pub fn expand_home(pattern: &str, home: &Path) -> String {
    let home = home.to_string_lossy().replace('\\', "/");
    let home = home.trim_end_matches('/');
    if pattern == "~" || pattern == "$HOME" {
        return if home.is_empty() {
            "/".into()
        } else {
            home.into()
        };
    }
    for prefix in ["~/", "$HOME/"] {
        if let Some(rest) = pattern.strip_prefix(prefix) {
            return format!("{home}/{rest}");
        }
    }
    pattern.to_string()
}
