//! The top-level keys a config file may hold: Strata's own and opencode's. Any other key is
//! most likely a typo; it is reported as a warning naming the key and the file, never an
//! error, so a config written for a newer opencode still loads. opencode's keys that Strata
//! does not use are accepted silently.

/// opencode's top-level keys.
const OPENCODE: [&str; 32] = [
    "$schema",
    "theme",
    "keybinds",
    "logLevel",
    "tui",
    "server",
    "command",
    "watcher",
    "plugin",
    "snapshot",
    "share",
    "autoshare",
    "autoupdate",
    "disabled_providers",
    "enabled_providers",
    "model",
    "small_model",
    "default_agent",
    "username",
    "mode",
    "agent",
    "provider",
    "mcp",
    "formatter",
    "lsp",
    "instructions",
    "layout",
    "permission",
    "tools",
    "enterprise",
    "compaction",
    "experimental",
];

/// Strata's own keys that opencode does not have (see `parse.rs` and the readers of `raw`).
const STRATA: [&str; 11] = [
    "shell",
    "tool_output",
    "mcp_trust",
    "websearch",
    "skills",
    "limits",
    "subagent_depth",
    "sandbox",
    "hooks",
    "claude_compat",
    "tool_surface",
];

/// Whether `key` is a top-level key Strata or opencode knows.
pub(super) fn is_known(key: &str) -> bool {
    OPENCODE.contains(&key) || STRATA.contains(&key)
}

/// The warning for an unknown key `key` in the source labelled `file`.
pub(super) fn unknown_key_warning(key: &str, file: &str) -> String {
    format!(
        "the config {file} has the top-level key `{key}`, which neither Strata nor opencode \
         knows; it is ignored (check its spelling, or remove it)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_vocabularies_are_known_and_typos_are_not() {
        for key in [
            "model",
            "$schema",
            "keybinds",
            "tool_output",
            "websearch",
            "limits",
        ] {
            assert!(is_known(key), "{key}");
        }
        for key in ["modle", "Model", "providers", ""] {
            assert!(!is_known(key), "{key}");
        }
        let w = unknown_key_warning("modle", "/p/opencode.json");
        assert!(
            w.contains("`modle`") && w.contains("/p/opencode.json"),
            "{w}"
        );
    }
}
