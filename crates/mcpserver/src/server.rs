//! [`StrataMcp`]: the MCP server handler of one project instance and agent. It lists the tools
//! that agent would see in a run without a terminal (the same surface rules as `strata tools`)
//! and runs each call through the tool's full wrapper, bound to the agent's permission rules.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use strata_graph::Context;
use strata_registry::rules::{non_interactive_rules, ruleset_of};
use strata_registry::{Agents, Instance, SurfaceSpec, ToolRegistry};
use strata_services::config::Config;
use strata_services::flags::RuntimeFlags;
use strata_services::permission::{Permission, PermissionError, Ruleset};
use strata_services::skills::Skills;
use strata_tools::{ErasedTool, ToolCx, ToolError};

use crate::asks::{Responder, SESSION_PREFIX, refusal};
use crate::convert;
use strata_tools::Tool;
use strata_tools::task::TaskTool;

/// The model whose surface is served when none is named: not a patch model, so the server
/// offers `edit` and `write`, which any client can drive.
pub const DEFAULT_MODEL: &str = "anthropic/claude-sonnet-4";

/// How the server runs.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The agent whose rules and surface are served.
    pub agent: String,
    /// Allow every ask that no rule denies, instead of refusing it.
    pub yes: bool,
    /// The model the surface is computed for (patch models get `apply_patch`).
    pub model: String,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            agent: "build".into(),
            yes: false,
            model: DEFAULT_MODEL.into(),
        }
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("the MCP server needs the instance's `{0}`: {1}")]
    Service(&'static str, String),
    /// An unknown agent, or rules that do not parse.
    #[error("{0}")]
    Rules(String),
    #[error("the MCP transport failed: {0}")]
    Transport(String),
    #[error("could not listen on {addr} for MCP over HTTP ({why}); pick another --http address")]
    Bind { addr: String, why: String },
}

/// The MCP server handler. Clones share the instance's services; each clone made by
/// [`StrataMcp::for_session`] is one MCP session with its own Strata session id, so
/// read-before-edit holds within a session as it does in a run.
#[derive(Debug, Clone)]
pub struct StrataMcp {
    shared: Arc<Shared>,
    session: String,
}

#[derive(Debug)]
struct Shared {
    registry: ToolRegistry,
    permission: Permission,
    flags: RuntimeFlags,
    config: Config,
    ruleset: Ruleset,
    /// The plan agent sees nothing destructive.
    plan_mode: bool,
    options: ServeOptions,
    responder: Responder,
    counter: AtomicU64,
}

/// What the MCP server resolves from an instance, declared for graph validation.
pub type Needs = (
    ToolRegistry,
    Permission,
    Config,
    RuntimeFlags,
    Skills,
    Agents,
);

/// How validation and errors name the MCP server as a consumer of an instance.
pub const CONSUMER: &str = "strata mcp (the MCP server)";

impl StrataMcp {
    /// A server for `instance` with `options`, under the agent's rules plus those of a run
    /// without a terminal (no `question`). Must be called inside the Tokio runtime (it starts
    /// the permission responder).
    pub fn new(instance: &Instance, options: ServeOptions) -> Result<Self, ServeError> {
        Self::from_context(instance.context(), options)
    }

    /// Like [`StrataMcp::new`], from an instance's service context.
    pub fn from_context(instance: &Context, options: ServeOptions) -> Result<Self, ServeError> {
        let (registry, permission, config, flags, skills, agents) =
            strata_graph::resolve::<Needs>(instance, CONSUMER)
                .map_err(|e| ServeError::Service(e.key, e.to_string()))?;
        let agent = agents
            .lookup(&options.agent)
            .map_err(|e| ServeError::Rules(e.to_string()))?;
        let plan_mode = agent.is_plan();
        let mut ruleset = ruleset_of(agent, &config, &flags, &skills)
            .map_err(|e| ServeError::Rules(e.to_string()))?;
        ruleset.extend(non_interactive_rules());
        // Subagents start from a running agent loop, which an MCP client does not have.
        ruleset.push(strata_services::permission::Rule::new(
            <TaskTool as Tool>::PERMISSION,
            "*",
            strata_services::permission::Action::Deny,
        ));
        let responder = Responder::spawn(permission.clone(), options.yes);
        let shared = Shared {
            registry,
            permission,
            flags,
            config,
            ruleset,
            plan_mode,
            options,
            responder,
            counter: AtomicU64::new(0),
        };
        let shared = Arc::new(shared);
        let session = next_session(&shared);
        Ok(StrataMcp { shared, session })
    }

    /// Another MCP session on the same instance (the HTTP transport makes one per client).
    pub fn for_session(&self) -> Self {
        StrataMcp {
            shared: self.shared.clone(),
            session: next_session(&self.shared),
        }
    }

    /// The Strata session id this MCP session's calls run under.
    pub fn session_id(&self) -> &str {
        &self.session
    }

    /// The tools served now, in registration order (MCP tools change on `list_changed`).
    pub fn surface(&self) -> Vec<ErasedTool> {
        let s = &self.shared;
        let config = s.config.data();
        let spec = SurfaceSpec {
            model: s.options.model.clone(),
            plan_mode: s.plan_mode,
            ruleset: s.ruleset.clone(),
            flags: s.flags.enabled(),
            backends: s.registry.configured_backends(config, &s.flags),
        };
        s.registry.surface(&spec)
    }

    /// Runs one call through the tool's wrapper: the result, or an `isError` result whose text
    /// is what a model would have read.
    async fn run(
        &self,
        tool: &ErasedTool,
        input: String,
        cx: &RequestContext<RoleServer>,
        may_task: bool,
    ) -> rmcp::model::CallToolResult {
        let s = &self.shared;
        let call_id = format!("call_mcp_{}", s.counter.fetch_add(1, Ordering::Relaxed));
        let tcx = ToolCx::builder(self.session.clone())
            .agent(s.options.agent.clone())
            .call(call_id.clone())
            .abort(cx.ct.clone())
            .model(s.options.model.clone())
            .agent_may_task(may_task)
            .permission(s.permission.clone(), s.ruleset.clone())
            .build();
        let outcome = tool.call(input, tcx).await;
        let refused = s.responder.take_refused(&call_id);
        match (outcome, refused) {
            (Ok(r), _) => convert::success(&r),
            (Err(ToolError::Permission(PermissionError::Rejected { .. })), Some(req)) => {
                convert::failure(refusal(&req))
            }
            (Err(e), _) => convert::failure(e.to_string()),
        }
    }
}

fn next_session(shared: &Shared) -> String {
    let n = shared.counter.fetch_add(1, Ordering::Relaxed);
    format!("{SESSION_PREFIX}{}_{n}", std::process::id())
}

impl ServerHandler for StrataMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("strata", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Strata's coding tools for one project directory: read, search and edit files, \
                 run commands. Paths are relative to the project; permission rules of the \
                 project apply.",
            )
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self.surface().iter().map(convert::tool).collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        req: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let surface = self.surface();
        let Some(tool) = surface.iter().find(|t| t.id == req.name.as_ref()) else {
            let ids: Vec<&str> = surface.iter().map(|t| t.id).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "Strata serves no tool named `{}` here. Available: {}",
                    req.name,
                    ids.join(", ")
                ),
                None,
            ));
        };
        let may_task = surface.iter().any(|t| t.id == <TaskTool as Tool>::ID);
        let input = serde_json::Value::Object(req.arguments.unwrap_or_default()).to_string();
        Ok(self.run(tool, input, &cx, may_task).await.into())
    }
}
