//! What the hooks of one tool need: the tool's names as matchers see them and the service
//! that holds the hooks.

use strata_services::hooks::Hooks;

/// Which tool the hooks run around, and the service that holds them.
#[derive(Debug, Clone)]
pub struct HookBinding {
    pub hooks: Hooks,
    pub tool: &'static str,
    /// The permission key a forced ask is made under.
    pub permission: &'static str,
    /// `(server, tool)` for an MCP tool, so `mcp__server__tool` matchers fire.
    pub mcp: Option<(String, String)>,
}

impl HookBinding {
    pub fn mcp(&self) -> Option<(&str, &str)> {
        self.mcp.as_ref().map(|(s, t)| (s.as_str(), t.as_str()))
    }
}
