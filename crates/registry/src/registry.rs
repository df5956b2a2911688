//! `ToolRegistry`: every registered tool, initialised for one instance.

use std::sync::Arc;

use strata_graph::{
    BoxError, Context, Graph, Missing, Node, Part, Requirement, Scope, Service, Tier,
};
use strata_services::config::{Config, ConfigData, ToolSurfaceConfig};
use strata_services::flags::RuntimeFlags;
use strata_services::mcp::{MCP_RESOURCES, Mcp};
use strata_services::truncate::Truncate;
use strata_tools::{ErasedTool, ToolDef};

use crate::deferred::{Deferral, Layout};
use crate::mcp::McpTools;
use crate::surface::{SurfaceSpec, configured_backends, surface};

/// The instance's tools behind their wrappers: the built-in tools in registration order, then
/// the tools of the connected MCP servers as they are now (they change on `list_changed`).
#[derive(Debug, Clone)]
pub struct ToolRegistry {
    tools: Arc<Vec<ErasedTool>>,
    mcp: Option<McpTools>,
    /// `tool_surface`: deferral and `execute`.
    surface_config: ToolSurfaceConfig,
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
        let surface_config = cx
            .get::<Config>()
            .map(|c| c.data().tool_surface.clone())
            .unwrap_or_default();
        Ok(ToolRegistry {
            tools: Arc::new(tools),
            mcp: mcp_tools(cx),
            surface_config,
        })
    }

    /// An instance-tier node made of one part per tool, whose requirements are the tools'
    /// (and their wrapper's): the graph validation is the completeness check for tools, and
    /// it names the tool that needs a missing service.
    pub fn node(defs: Vec<ToolDef>) -> Node {
        let mut parts: Vec<Part> = defs
            .iter()
            .map(|d| Part::new("tool", d.id, d.requires()))
            .collect();
        let mcp = vec![
            Requirement::of::<Mcp>(),
            Requirement::of::<Truncate>(),
            Requirement::of::<Config>(),
        ];
        parts.push(Part::new("tools of", "MCP servers", mcp));
        let defs = Arc::new(defs);
        Node::with_parts(Tier::Instance, parts, move |cx: Context, _s: Scope| {
            let defs = defs.clone();
            async move { ToolRegistry::from_context(&cx, &defs).map_err(|e| Box::new(e) as BoxError) }
        })
    }

    /// Every tool: the built-in ones, then the MCP tools of the moment.
    pub fn all(&self) -> Vec<ErasedTool> {
        let mut all: Vec<ErasedTool> = self.tools.to_vec();
        if let Some(mcp) = &self.mcp {
            let taken: Vec<&str> = self.tools.iter().map(|t| t.id).collect();
            all.extend(mcp.wrapped(&taken));
        }
        all
    }

    pub fn get(&self, id: &str) -> Option<ErasedTool> {
        match self.tools.iter().find(|t| t.id == id) {
            Some(t) => Some(t.clone()),
            None => self.all().into_iter().find(|t| t.id == id),
        }
    }

    pub fn ids(&self) -> Vec<&'static str> {
        self.all().iter().map(|t| t.id).collect()
    }

    /// The tools advertised to a model (spec §0.7), described for the spec's rules; with
    /// `execute` offered (spec §17), `execute` over the callable tools of the surface, before
    /// the MCP tools.
    pub fn surface(&self, spec: &SurfaceSpec) -> Vec<ErasedTool> {
        let mut tools: Vec<ErasedTool> = surface(&self.all(), spec)
            .into_iter()
            .map(|t| t.for_rules(&spec.ruleset))
            .collect();
        if let Some(mcp) = &self.mcp
            && let Some((at, execute)) =
                crate::execute::surfaced(mcp, &self.surface_config, &self.tools, &tools, spec)
        {
            tools.insert(at, execute);
        }
        tools
    }

    /// The tools of one step (spec §24): [`surface`](Self::surface) split into the loaded
    /// ones, with `tool_search` when anything is deferred and the tools the session loaded
    /// appended, and the deferred ones.
    pub fn layout(&self, spec: &SurfaceSpec, deferral: &Deferral) -> Layout {
        let surface = self.surface(spec);
        match &self.mcp {
            Some(mcp) => crate::deferred::layout(surface, mcp, deferral, &spec.ruleset),
            None => Layout {
                tools: surface,
                deferred: Vec::new(),
            },
        }
    }

    /// The backends these tools need that `config` or the environment (`flags`) configures
    /// (for [`SurfaceSpec::backends`]), and `mcp_resources` while a connected MCP server
    /// offers resources (the resource tools are shown then).
    pub fn configured_backends(
        &self,
        config: &ConfigData,
        flags: &RuntimeFlags,
    ) -> Vec<&'static str> {
        let mut backends = configured_backends(&self.tools, config, flags);
        backends.retain(|b| *b != MCP_RESOURCES);
        if let Some(mcp) = &self.mcp
            && !mcp.mcp.resource_servers().is_empty()
        {
            backends.push(MCP_RESOURCES);
        }
        backends
    }
}

/// The MCP side of the registry, when the context has the Mcp service (the production graph
/// does; a bare context built for a registry test may not).
fn mcp_tools(cx: &Context) -> Option<McpTools> {
    let (mcp, truncate, config) = (cx.get::<Mcp>(), cx.get::<Truncate>(), cx.get::<Config>());
    let config = config.ok()?;
    Some(McpTools {
        mcp: mcp.ok()?,
        truncate: truncate.ok()?,
        limits: config.data().tool_output.clone(),
        hooks: cx.get::<strata_services::hooks::Hooks>().ok(),
        defer_threshold: config.data().tool_surface.defer_threshold,
    })
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

/// The production graph with the tool registry and the agents: what the CLI and the testkit build.
pub fn production() -> Graph {
    strata_services::production()
        .with(ToolRegistry::node(strata_tools::builtin()))
        .with(crate::agents::Agents::node())
        .with(crate::runtime::InstanceBuilder::node())
}
