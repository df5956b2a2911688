//! `ToolRegistry`: every registered tool, initialised for one instance.

use std::sync::Arc;

use strata_graph::{BoxError, Context, Graph, Missing, Node, Requirement, Scope, Service, Tier};
use strata_services::config::Config;
use strata_services::flags::RuntimeFlags;
use strata_tools::{ErasedTool, ToolDef};

use crate::surface::{SurfaceSpec, surface};

/// The instance's tools behind their wrappers, in registration order.
#[derive(Clone)]
pub struct ToolRegistry {
    tools: Arc<Vec<ErasedTool>>,
    /// Tools shown only when their backend is configured, and whether it is.
    // TODO(issue 8): becomes `Visibility::Backend("websearch")` on the tool once that lands.
    backends: Arc<Vec<(&'static str, bool)>>,
}

impl Service for ToolRegistry {
    const KEY: &'static str = "ToolRegistry";
}

impl ToolRegistry {
    /// Initialises every tool from `cx`; a missing service names the tool that needed it.
    pub fn from_context(cx: &Context, defs: &[ToolDef]) -> Result<Self, Missing> {
        let tools = defs
            .iter()
            .map(|d| d.init(cx))
            .collect::<Result<Vec<_>, _>>()?;
        // Without a Config in the context no backend counts as configured.
        let websearch = match (cx.get::<Config>(), cx.get::<RuntimeFlags>()) {
            (Ok(config), Ok(flags)) => config.websearch.is_configured(&flags),
            _ => false,
        };
        Ok(ToolRegistry {
            tools: Arc::new(tools),
            backends: Arc::new(vec![("websearch", websearch)]),
        })
    }

    /// An instance-tier node whose requirements are the union of the tools' (and their
    /// wrapper's): the graph validation is the completeness check for tools.
    pub fn node(defs: Vec<ToolDef>) -> Node {
        let mut requires: Vec<Requirement> = Vec::new();
        for r in defs.iter().flat_map(ToolDef::requires) {
            if !requires.contains(&r) {
                requires.push(r);
            }
        }
        let defs = Arc::new(defs);
        Node::with_requirements(Tier::Instance, requires, move |cx: Context, _s: Scope| {
            let defs = defs.clone();
            async move { ToolRegistry::from_context(&cx, &defs).map_err(|m| Box::new(m) as BoxError) }
        })
    }

    pub fn all(&self) -> &[ErasedTool] {
        &self.tools
    }

    pub fn get(&self, id: &str) -> Option<&ErasedTool> {
        self.tools.iter().find(|t| t.id == id)
    }

    pub fn ids(&self) -> Vec<&'static str> {
        self.tools.iter().map(|t| t.id).collect()
    }

    /// The tools advertised to a model (spec §0.7). A tool that needs a backend (`websearch`)
    /// is shown only when one is configured.
    pub fn surface(&self, spec: &SurfaceSpec) -> Vec<&ErasedTool> {
        surface(&self.tools, spec)
            .into_iter()
            .filter(|t| {
                self.backends
                    .iter()
                    .all(|(id, configured)| t.id != *id || *configured)
            })
            .collect()
    }
}

/// The production graph with the tool registry: what the CLI and the testkit build.
pub fn production() -> Graph {
    strata_services::production().with(ToolRegistry::node(strata_tools::builtin()))
}
