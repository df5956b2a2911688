//! Reading hooks as Claude Code writes them: `{"<Event>": [{"matcher": "Edit|Write", "hooks":
//! [{"type": "command", "command": "…", "timeout": 30}]}]}`. An event Strata does not know is
//! a warning (Claude Code has more), a malformed entry an error naming its place in the file.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use super::{DEFAULT_TIMEOUT, HookCommand, HookEvent, Matcher};

/// The hook groups of one file, by event, in the file's order.
#[derive(Debug, Clone, Default)]
pub struct HookSet {
    pub events: BTreeMap<HookEvent, Vec<HookGroup>>,
    /// Events skipped because Strata does not have them, for a warning.
    pub unknown_events: Vec<String>,
}

/// One `{matcher, hooks}` entry.
#[derive(Debug, Clone)]
pub struct HookGroup {
    pub matcher: Matcher,
    pub hooks: Vec<HookCommand>,
}

impl HookSet {
    /// Whether the set holds no command at all.
    pub fn is_empty(&self) -> bool {
        self.events.values().all(|groups| groups.is_empty())
    }
}

/// A malformed hooks entry: where it is and what it should be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("in {file}, `{field}` {problem}; fix or remove that entry")]
pub struct HookConfigError {
    pub file: String,
    pub field: String,
    pub problem: String,
}

/// Reads the value of a `hooks` key from `file`.
pub fn parse_hooks(value: &Value, file: &str) -> Result<HookSet, HookConfigError> {
    let err = |field: String, problem: &str| HookConfigError {
        file: file.to_string(),
        field,
        problem: problem.to_string(),
    };
    let Value::Object(events) = value else {
        return Err(err("hooks".into(), "must be an object of event names"));
    };
    let mut set = HookSet::default();
    for (name, groups) in events {
        let Some(event) = HookEvent::parse(name) else {
            set.unknown_events.push(name.clone());
            continue;
        };
        let Value::Array(groups) = groups else {
            return Err(err(
                format!("hooks.{name}"),
                "must be a list of hook groups",
            ));
        };
        let parsed = groups
            .iter()
            .enumerate()
            .map(|(i, g)| group(g, &format!("hooks.{name}[{i}]")).map_err(|(f, p)| err(f, &p)))
            .collect::<Result<Vec<_>, _>>()?;
        set.events.entry(event).or_default().extend(parsed);
    }
    Ok(set)
}

fn group(value: &Value, at: &str) -> Result<HookGroup, (String, String)> {
    let Value::Object(fields) = value else {
        return Err((at.into(), "must be an object with `hooks`".into()));
    };
    let matcher = match fields.get("matcher") {
        None | Some(Value::Null) => Matcher::any(),
        Some(Value::String(m)) => Matcher::parse(m).map_err(|e| {
            (
                format!("{at}.matcher"),
                format!("is not a valid regular expression ({e})"),
            )
        })?,
        Some(_) => return Err((format!("{at}.matcher"), "must be a string".into())),
    };
    let Some(Value::Array(hooks)) = fields.get("hooks") else {
        return Err((format!("{at}.hooks"), "must be a list of commands".into()));
    };
    let hooks = hooks
        .iter()
        .enumerate()
        .map(|(i, h)| command(h, &format!("{at}.hooks[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(HookGroup { matcher, hooks })
}

fn command(value: &Value, at: &str) -> Result<HookCommand, (String, String)> {
    let Value::Object(fields) = value else {
        return Err((
            at.into(),
            "must be an object with `type` and `command`".into(),
        ));
    };
    match fields.get("type").and_then(Value::as_str) {
        Some("command") | None => {}
        Some(other) => {
            return Err((
                format!("{at}.type"),
                format!("is {other:?}; only \"command\" hooks are supported"),
            ));
        }
    }
    let command = match fields.get("command").and_then(Value::as_str).map(str::trim) {
        Some(c) if !c.is_empty() => c.to_string(),
        _ => return Err((format!("{at}.command"), "must be a non-empty string".into())),
    };
    let timeout = match fields.get("timeout") {
        None | Some(Value::Null) => DEFAULT_TIMEOUT,
        // Claude Code gives the timeout in seconds.
        Some(v) => match v.as_f64() {
            Some(secs) if secs > 0.0 && secs <= 86_400.0 => Duration::from_secs_f64(secs),
            _ => {
                return Err((
                    format!("{at}.timeout"),
                    "must be a number of seconds between 0 and 86400".into(),
                ));
            }
        },
    };
    Ok(HookCommand { command, timeout })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_claude_code_settings_block_reads() {
        let hooks = json!({
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 5}]},
                {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "fmt.sh"}]},
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}],
            "PermissionRequest": [],
        });
        let set = parse_hooks(&hooks, ".claude/settings.json").unwrap();
        let pre = &set.events[&HookEvent::PreToolUse];
        assert_eq!(pre.len(), 2);
        assert_eq!(pre[0].hooks[0].timeout, Duration::from_secs(5));
        assert_eq!(pre[1].hooks[0].timeout, DEFAULT_TIMEOUT);
        assert!(pre[0].matcher.matches("bash", None));
        assert!(!pre[0].matcher.matches("edit", None));
        assert!(
            set.events[&HookEvent::Stop][0]
                .matcher
                .matches("anything", None)
        );
        assert_eq!(set.unknown_events, vec!["PermissionRequest".to_string()]);
        assert!(!set.is_empty());
    }

    #[test]
    fn malformed_entries_name_their_place() {
        let cases = [
            (json!([]), "`hooks` must be an object"),
            (json!({"Stop": {}}), "`hooks.Stop` must be a list"),
            (json!({"Stop": [3]}), "`hooks.Stop[0]` must be an object"),
            (
                json!({"Stop": [{}]}),
                "`hooks.Stop[0].hooks` must be a list",
            ),
            (
                json!({"Stop": [{"hooks": [{"command": ""}]}]}),
                "`hooks.Stop[0].hooks[0].command`",
            ),
            (
                json!({"Stop": [{"hooks": [{"type": "prompt", "command": "x"}]}]}),
                "only \"command\"",
            ),
            (
                json!({"Stop": [{"hooks": [{"command": "x", "timeout": -1}]}]}),
                ".timeout`",
            ),
            (
                json!({"PreToolUse": [{"matcher": "(", "hooks": []}]}),
                "not a valid regular expression",
            ),
            (
                json!({"PreToolUse": [{"matcher": 1, "hooks": []}]}),
                ".matcher` must be a string",
            ),
        ];
        for (value, expected) in cases {
            let e = parse_hooks(&value, "strata.json").unwrap_err().to_string();
            assert!(
                e.contains(expected) && e.starts_with("in strata.json"),
                "{value}: {e}"
            );
        }
    }
}
