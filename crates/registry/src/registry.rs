//! `ToolRegistry`: every registered tool, initialised for one instance.

use std::sync::Arc;

use strata_graph::{BoxError, Context, Graph, Missing, Node, Part, Scope, Service, Tier};
use strata_services::config::ConfigData;
use strata_services::flags::RuntimeFlags;
use strata_tools::{ErasedTool, ToolDef};

use crate::surface::{SurfaceSpec, configured_backends, surface};

/// The instance's tools behind their wrappers, in registration order.
#[derive(Debug, Clone)]
pub struct ToolRegistry {
    tools: Arc<Vec<ErasedTool>>,
}

impl Service for ToolRegistry {
    const KEY: &'static str = "ToolRegistry";
}

/// Why the tool registry could not be built.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error(
        "two tools have the id `{id}`: {first} and {second}. A tool id is its wire name and \
         must be unique: change one `Tool::ID`, or drop one definition from the list."
    )]
    DuplicateId {
        id: &'static str,
        first: &'static str,
        second: &'static str,
    },
    #[error(transparent)]
    Missing(#[from] Missing),
}

impl ToolRegistry {
    /// Initialises every tool from `cx`. Two definitions with the same id are refused, naming
    /// both; a missing service names the tool that needed it.
    pub fn from_context(cx: &Context, defs: &[ToolDef]) -> Result<Self, RegistryError> {
        check_unique(defs)?;
        let tools = defs
            .iter()
            .map(|d| d.init(cx))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ToolRegistry {
            tools: Arc::new(tools),
        })
    }

    /// An instance-tier node made of one part per tool, whose requirements are the tools'
    /// (and their wrapper's): the graph validation is the completeness check for tools, and
    /// it names the tool that needs a missing service.
    pub fn node(defs: Vec<ToolDef>) -> Node {
        let parts = defs
            .iter()
            .map(|d| Part::new("tool", d.id, d.requires()))
            .collect();
        let defs = Arc::new(defs);
        Node::with_parts(Tier::Instance, parts, move |cx: Context, _s: Scope| {
            let defs = defs.clone();
            async move { ToolRegistry::from_context(&cx, &defs).map_err(|e| Box::new(e) as BoxError) }
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

    /// The tools advertised to a model (spec §0.7).
    pub fn surface(&self, spec: &SurfaceSpec) -> Vec<&ErasedTool> {
        surface(&self.tools, spec)
    }

    /// The backends these tools need that `config` or the environment (`flags`) configures
    /// (for [`SurfaceSpec::backends`]).
    pub fn configured_backends(
        &self,
        config: &ConfigData,
        flags: &RuntimeFlags,
    ) -> Vec<&'static str> {
        configured_backends(&self.tools, config, flags)
    }
}

/// Refuses a second definition of an id, naming both definitions.
fn check_unique(defs: &[ToolDef]) -> Result<(), RegistryError> {
    for (i, d) in defs.iter().enumerate() {
        if let Some(first) = defs[..i].iter().find(|f| f.id == d.id) {
            return Err(RegistryError::DuplicateId {
                id: d.id,
                first: first.type_name,
                second: d.type_name,
            });
        }
    }
    Ok(())
}

/// The production graph with the tool registry: what the CLI and the testkit build.
pub fn production() -> Graph {
    strata_services::production().with(ToolRegistry::node(strata_tools::builtin()))
}
