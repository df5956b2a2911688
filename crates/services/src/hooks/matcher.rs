//! Which tool calls a hook group fires on. A matcher is a regular expression that must match a
//! whole tool name; empty or `*` matches every tool. Claude Code's tool names match Strata's
//! tools too (`Bash` fires on `bash`, `Edit|MultiEdit` on `edit`, `mcp__srv__tool` on the MCP
//! tool `srv_tool`), so a hook written for Claude Code fires on the same calls.

use regex::Regex;

/// A compiled `matcher`, with the pattern as written.
#[derive(Debug, Clone)]
pub struct Matcher(Option<Regex>, String);

impl Matcher {
    /// Matches every tool.
    pub fn any() -> Matcher {
        Matcher(None, "*".into())
    }

    /// The pattern as written in config (`*` for every tool).
    pub fn pattern(&self) -> &str {
        &self.1
    }

    /// Compiles a matcher as written in config.
    pub fn parse(pattern: &str) -> Result<Matcher, regex::Error> {
        let pattern = pattern.trim();
        if pattern.is_empty() || pattern == "*" {
            return Ok(Matcher::any());
        }
        Regex::new(&format!("^(?:{pattern})$")).map(|r| Matcher(Some(r), pattern.to_string()))
    }

    /// Whether the group fires on `tool`; `mcp` is `(server, tool)` for an MCP tool.
    pub fn matches(&self, tool: &str, mcp: Option<(&str, &str)>) -> bool {
        let Matcher(Some(regex), _) = self else {
            return true;
        };
        regex.is_match(tool) || names_of(tool, mcp).iter().any(|n| regex.is_match(n))
    }
}

/// Claude Code's names for a Strata tool (none for a tool Claude Code has no twin of).
pub fn names_of(tool: &str, mcp: Option<(&str, &str)>) -> Vec<String> {
    if let Some((server, name)) = mcp {
        return vec![format!("mcp__{server}__{name}")];
    }
    let names: &[&str] = match tool {
        "bash" => &["Bash"],
        "edit" => &["Edit", "MultiEdit"],
        "write" => &["Write"],
        // A patch edits, creates and deletes files: hooks on any of those see it.
        "apply_patch" => &["Edit", "Write", "MultiEdit"],
        "read" => &["Read"],
        "glob" => &["Glob"],
        "grep" => &["Grep"],
        "list" => &["LS"],
        "webfetch" => &["WebFetch"],
        "websearch" => &["WebSearch"],
        "task" => &["Task"],
        "todowrite" => &["TodoWrite"],
        "todoread" => &["TodoRead"],
        _ => &[],
    };
    names.iter().map(|n| (*n).to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str) -> Matcher {
        Matcher::parse(pattern).unwrap()
    }

    #[test]
    fn claude_code_names_fire_on_strata_tools() {
        assert!(m("Bash").matches("bash", None));
        assert!(m("Edit|MultiEdit").matches("edit", None));
        assert!(m("Edit|Write").matches("apply_patch", None));
        assert!(m("Write").matches("write", None));
        assert!(m("Task").matches("task", None));
        assert!(m("TodoWrite").matches("todowrite", None));
        assert!(m("WebFetch|WebSearch").matches("websearch", None));
        assert!(
            m("mcp__github__.*").matches("github_create_issue", Some(("github", "create_issue")))
        );
        assert!(
            !m("mcp__gitlab__.*").matches("github_create_issue", Some(("github", "create_issue")))
        );
    }

    #[test]
    fn strata_names_match_and_the_whole_name_must_match() {
        assert!(m("bash").matches("bash", None));
        assert!(m("read|grep").matches("grep", None));
        assert!(!m("Edit").matches("write", None));
        assert!(!m("Bas").matches("bash", None), "a prefix is not a match");
        assert!(!m("Read").matches("todoread", None));
    }

    #[test]
    fn empty_and_star_match_everything() {
        for pattern in ["", "*", "  "] {
            assert!(m(pattern).matches("anything", None));
        }
        assert!(Matcher::parse("(").is_err());
    }
}
