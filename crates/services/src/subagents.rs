//! Subagents: child sessions that the `task` tool (floor 3) starts, run by the agent loop
//! (floor 5). The trait lives here so the tool can hold it in its `Deps` without knowing the
//! loop; the agent implements [`SubagentHost`] and replaces the default node in its graph.
//!
//! Graphs without the loop (`strata tool`, tool tests) get [`Subagents::unavailable`]: it lists
//! no agents and every start fails with a message saying why.
//!
//! A start has two phases, so the tool can announce the child's session before it runs:
//! [`Subagents::prepare`] checks the agent and the nesting depth and makes (or finds) the child
//! session; [`Subagents::run`] sends the prompt and waits for the child's last text.

use std::sync::Arc;

use futures::future::BoxFuture;
use strata_graph::{BoxError, Node, Scope, Tier};
use tokio_util::sync::CancellationToken;

/// One agent `task` may start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubagentInfo {
    pub name: String,
    pub description: Option<String>,
}

/// What the caller asks for.
#[derive(Debug, Clone)]
pub struct SubagentRequest {
    /// The calling session: the child's parent.
    pub parent_session_id: String,
    /// The agent the caller runs as.
    pub caller_agent: String,
    /// The 3–5 word label; the child's title is made from it.
    pub description: String,
    pub subagent_type: String,
    /// An earlier child to continue instead of starting a new one.
    pub task_id: Option<String>,
}

/// A child session ready to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildSession {
    pub session_id: String,
    pub parent_session_id: String,
    pub agent: String,
    /// `provider/model` the child runs with.
    pub model: String,
}

/// Why a child could not start or did not finish.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubagentError {
    #[error(
        "Unknown agent type: `{name}` is not an agent that can run as a subagent. Use one of: {available}."
    )]
    UnknownAgent { name: String, available: String },
    #[error(
        "Subagent depth limit reached ({limit}): this session is already {limit} level(s) below \
         the top. Do the work here, or raise \"subagent_depth\" in strata.json to allow deeper \
         nesting."
    )]
    DepthLimit { limit: u32 },
    /// The child ran and failed; `message` is its error.
    #[error("{message}")]
    Failed { session_id: String, message: String },
    #[error("the subagent's run was cancelled before it finished")]
    Cancelled { session_id: String },
    /// Nothing here can run a child (no agent loop, or the caller's run is not known).
    #[error("{0}")]
    Unavailable(String),
}

/// What runs children: implemented by the agent loop.
pub trait SubagentHost: Send + Sync + 'static {
    /// The agents whose mode is not `primary`, sorted by name.
    fn agents(&self) -> Vec<SubagentInfo>;
    /// Checks the agent and the depth, then makes or finds the child session.
    fn prepare(&self, request: SubagentRequest) -> Result<ChildSession, SubagentError>;
    /// Sends `prompt` to the child and waits for its last text; `cancel` stops the child.
    fn run(
        &self,
        child: ChildSession,
        prompt: String,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<String, SubagentError>>;
}

/// Handle to the subagent runner. Cheap to clone.
#[derive(Clone)]
pub struct Subagents(Arc<dyn SubagentHost>);

impl strata_graph::Service for Subagents {
    const KEY: &'static str = "Subagents";
}

impl std::fmt::Debug for Subagents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Subagents")
    }
}

impl Subagents {
    pub fn new(host: impl SubagentHost) -> Self {
        Subagents(Arc::new(host))
    }

    /// No agent loop: no agents, and every start fails saying so.
    pub fn unavailable() -> Self {
        Self::new(Unavailable)
    }

    /// The instance-tier node of graphs without the agent loop ([`Subagents::unavailable`]);
    /// the agent's graph replaces it (with the instance's agents).
    pub fn node() -> Node {
        Node::new(Tier::Instance, |(): (), _scope: Scope| async move {
            Ok::<_, BoxError>(Subagents::unavailable())
        })
    }

    pub fn agents(&self) -> Vec<SubagentInfo> {
        self.0.agents()
    }

    pub fn prepare(&self, request: SubagentRequest) -> Result<ChildSession, SubagentError> {
        self.0.prepare(request)
    }

    pub fn run(
        &self,
        child: ChildSession,
        prompt: String,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<String, SubagentError>> {
        self.0.run(child, prompt, cancel)
    }
}

struct Unavailable;

const NO_LOOP: &str = "subagents need the agent loop and its session store, which this command \
    does not run; call `task` from `strata run` instead";

impl SubagentHost for Unavailable {
    fn agents(&self) -> Vec<SubagentInfo> {
        Vec::new()
    }

    fn prepare(&self, _request: SubagentRequest) -> Result<ChildSession, SubagentError> {
        Err(SubagentError::Unavailable(NO_LOOP.into()))
    }

    fn run(
        &self,
        _child: ChildSession,
        _prompt: String,
        _cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<String, SubagentError>> {
        Box::pin(async { Err(SubagentError::Unavailable(NO_LOOP.into())) })
    }
}
