use std::sync::Arc;

use strata_services::hooks::Hooks;
use tower_layer::Layer;

use super::service::RunHooks;

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

/// See the [module docs](super). Without a binding calls pass straight through.
#[derive(Debug, Clone, Default)]
pub struct HooksLayer {
    binding: Option<Arc<HookBinding>>,
}

impl HooksLayer {
    pub fn new(binding: HookBinding) -> Self {
        Self {
            binding: Some(Arc::new(binding)),
        }
    }

    /// No hooks (tools built outside an instance).
    pub fn off() -> Self {
        Self::default()
    }
}

impl<S> Layer<S> for HooksLayer {
    type Service = RunHooks<S>;

    fn layer(&self, inner: S) -> RunHooks<S> {
        RunHooks::new(inner, self.binding.clone())
    }
}
