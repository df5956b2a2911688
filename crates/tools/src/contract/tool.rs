//! The `Tool` trait and the typed service that runs one.

use std::future::Future;
use std::sync::Arc;
use std::task::{Context as TaskCx, Poll};

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use strata_graph::Deps;

use super::cx::ToolCx;
use super::effects::Effects;
use super::error::ToolError;
use super::result::ToolResult;
use super::visibility::Visibility;

/// A built-in tool: an id, how it is asked for and shown, typed parameters, the services it
/// needs, and the work.
///
/// `init` receives exactly the services named in `Deps` (resolved from the graph) and returns
/// the value whose `execute` does the work. Nothing else reaches a tool.
pub trait Tool: Send + Sync + Sized + 'static {
    /// The wire name (spec §0.7).
    const ID: &'static str;
    /// The permission the tool asks under and permission rules match: its id unless it shares
    /// one (the file-changing tools all ask `edit`).
    const PERMISSION: &'static str = Self::ID;
    /// When the model is shown the tool.
    const VISIBILITY: Visibility = Visibility::Always;
    const EFFECTS: Effects;
    type Params: DeserializeOwned + JsonSchema + Send + 'static;
    type Deps: Deps;

    fn init(deps: Self::Deps) -> Self;

    /// The effects of one call with these parameters; by default the tool's [`EFFECTS`]. A
    /// tool whose effects depend on its input (`bash` running a read-only command) narrows
    /// them here; the loop and the snapshot layer ask this, the surface reads `EFFECTS`.
    ///
    /// [`EFFECTS`]: Self::EFFECTS
    fn effects_for(_params: &Self::Params) -> Effects {
        Self::EFFECTS
    }

    /// The model-facing description (may depend on the resolved services, e.g. the shell).
    fn description(&self) -> String;

    /// The description for a caller bound by `rules`, when it depends on them (`task` lists
    /// only the subagents the caller may start); `None` keeps [`description`](Self::description).
    fn description_for(&self, _rules: &[strata_services::permission::Rule]) -> Option<String> {
        None
    }

    fn execute(
        &self,
        params: Self::Params,
        cx: ToolCx,
    ) -> impl Future<Output = Result<ToolResult, ToolError>> + Send;
}

/// Decoded parameters with their call context: what the inner layers see.
#[derive(Debug)]
pub struct Decoded<P> {
    pub params: P,
    pub cx: ToolCx,
}

/// A `tower::Service` running one initialised tool.
#[derive(Debug)]
pub struct ToolService<T> {
    tool: Arc<T>,
}

impl<T> Clone for ToolService<T> {
    fn clone(&self) -> Self {
        Self {
            tool: self.tool.clone(),
        }
    }
}

impl<T: Tool> ToolService<T> {
    pub fn new(tool: Arc<T>) -> Self {
        Self { tool }
    }
}

impl<T: Tool> tower_service::Service<Decoded<T::Params>> for ToolService<T> {
    type Response = ToolResult;
    type Error = ToolError;
    type Future = BoxFuture<'static, Result<ToolResult, ToolError>>;

    fn poll_ready(&mut self, _: &mut TaskCx<'_>) -> Poll<Result<(), ToolError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Decoded<T::Params>) -> Self::Future {
        let tool = self.tool.clone();
        Box::pin(async move { tool.execute(req.params, req.cx).await })
    }
}
