//! `ToolDef`: a tool erased into one `tower::Service<ToolCall>` with the standard layers.

use std::sync::Arc;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use strata_graph::{Context, Deps, Missing, Requirement};
use strata_services::config::{Config, ToolOutput};
use strata_services::diff_budget::DiffBudget;
use strata_services::fs::FsUtil;
use strata_services::hooks::Hooks;
use strata_services::instance::InstanceInfo;
use strata_services::permission::Rule;
use strata_services::snapshot::Snapshots;
use strata_services::truncate::Truncate;
use tower::ServiceBuilder;
use tower::ServiceExt;
use tower::util::BoxCloneSyncService;

use super::cx::ToolCx;
use super::effects::Effects;
use super::error::ToolError;
use super::result::ToolResult;
use super::schema::wire_schema;
use super::tool::{Decoded, Tool, ToolService};
use super::visibility::Visibility;
use crate::layers::cancel::{CancelLayer, GRACE};
use crate::layers::decode::DecodeLayer;
use crate::layers::diff_budget::DiffBudgetLayer;
use crate::layers::hooks::{HookBinding, HooksLayer};
use crate::layers::snapshot::{Marker, SnapshotLayer, Undoable};
use crate::layers::trace::TraceLayer;
use crate::layers::truncate::TruncateLayer;

/// One call as it enters the wrapper: raw JSON arguments and the call context.
#[derive(Debug)]
pub struct ToolCall {
    pub input: String,
    pub cx: ToolCx,
}

/// A tool known by type but not yet initialised: what the registry lists.
#[derive(Clone, Copy)]
pub struct ToolDef {
    pub id: &'static str,
    /// The permission key the tool asks under ([`Tool::PERMISSION`]).
    pub permission: &'static str,
    pub visibility: Visibility,
    pub effects: Effects,
    /// The Rust type that defines the tool, to tell two definitions apart in errors.
    pub type_name: &'static str,
    requires: fn() -> Vec<Requirement>,
    schema: fn() -> Value,
    init: fn(&Context) -> Result<ErasedTool, Missing>,
}

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolDef")
            .field("id", &self.id)
            .field("type", &self.type_name)
            .finish()
    }
}

/// The services the wrapper itself needs around every tool.
type LayerDeps = (
    Truncate,
    Config,
    Snapshots,
    InstanceInfo,
    DiffBudget,
    FsUtil,
    Hooks,
);

impl ToolDef {
    pub fn of<T: Tool>() -> Self {
        ToolDef {
            id: T::ID,
            permission: T::PERMISSION,
            visibility: T::VISIBILITY,
            effects: T::EFFECTS,
            type_name: std::any::type_name::<T>(),
            requires: || {
                let mut r = T::Deps::requires();
                for l in LayerDeps::requires() {
                    if !r.contains(&l) {
                        r.push(l);
                    }
                }
                r
            },
            schema: wire_schema::<T::Params>,
            init: init_erased::<T>,
        }
    }

    /// Every service this tool and its wrapper need: checked against the graph before use.
    pub fn requires(&self) -> Vec<Requirement> {
        (self.requires)()
    }

    pub fn schema(&self) -> Value {
        (self.schema)()
    }

    /// Resolves the tool's services from `cx` and wraps it in the standard layers.
    pub fn init(&self, cx: &Context) -> Result<ErasedTool, Missing> {
        (self.init)(cx)
    }
}

fn init_erased<T: Tool>(cx: &Context) -> Result<ErasedTool, Missing> {
    let deps = T::Deps::resolve(cx).map_err(|m| m.for_tool(T::ID))?;
    let (truncate, config, snapshots, info, budget, fs, hooks) =
        LayerDeps::resolve(cx).map_err(|m| m.for_tool(T::ID))?;
    // Only tools that may change files need an undo point before they run, and only for the
    // calls that may (a read-only `bash` command needs none).
    let marker = (!T::EFFECTS.read_only).then(|| {
        let marker = Marker {
            snapshots,
            worktree: info.worktree.clone(),
            max_bytes: config.snapshot.max_bytes(),
        };
        (marker, changes_files::<T> as fn(&T::Params) -> bool)
    });
    let tool = Arc::new(T::init(deps));
    let description = tool.description();
    let limits = &config.data().tool_output;
    let budget = DiffBudgetLayer::new(budget, fs, T::PERMISSION);
    let for_rules: DescribeFor = {
        let tool = tool.clone();
        Arc::new(move |rules: &[Rule]| tool.description_for(rules))
    };
    let hooks = HooksLayer::new(HookBinding {
        hooks,
        tool: T::ID,
        permission: T::PERMISSION,
        mcp: None,
    });
    let service = layered::<T::Params, _>(
        T::ID,
        truncate,
        limits,
        (hooks, marker, budget),
        ToolService::new(tool),
    );
    Ok(ErasedTool {
        id: T::ID,
        permission: T::PERMISSION,
        visibility: T::VISIBILITY,
        description,
        schema: Arc::new(wire_schema::<T::Params>()),
        effects: T::EFFECTS,
        effects_of: Some(effects_of::<T>),
        for_rules: Some(for_rules),
        service,
    })
}

/// Whether a call with `params` may change files (so it needs an undo point).
fn changes_files<T: Tool>(params: &T::Params) -> bool {
    !T::effects_for(params).read_only
}

/// The effects of a call given its raw arguments: [`Tool::effects_for`] of the decoded
/// parameters, or the tool's declared effects when they do not decode (the call will fail).
fn effects_of<T: Tool>(input: &Value) -> Effects {
    match T::Params::deserialize(input) {
        Ok(params) => T::effects_for(&params),
        Err(_) => T::EFFECTS,
    }
}

/// The standard wrapper, outermost first: span, the tool hooks, decoding into `P`, the undo point (when a
/// marker is given and the call may change files), cancellation, truncation, the diff budget.
pub(super) fn layered<P, S>(
    id: &'static str,
    truncate: Truncate,
    limits: &ToolOutput,
    (hooks, marker, budget): (HooksLayer, Undoable<P>, DiffBudgetLayer),
    inner: S,
) -> BoxCloneSyncService<ToolCall, ToolResult, ToolError>
where
    P: DeserializeOwned + Send + 'static,
    S: tower_service::Service<Decoded<P>, Response = ToolResult, Error = ToolError>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
    let service = ServiceBuilder::new()
        .layer(TraceLayer::new(id))
        .layer(hooks)
        .layer(DecodeLayer::<P>::new(id))
        .layer(SnapshotLayer::<P>::new(marker))
        .layer(CancelLayer::new(GRACE))
        .layer(TruncateLayer::new(
            truncate,
            limits.max_lines,
            limits.max_bytes,
        ))
        .layer(budget)
        .service(inner);
    BoxCloneSyncService::new(service)
}

/// A tool's description for given rules, when it depends on them.
pub(super) type DescribeFor = Arc<dyn Fn(&[Rule]) -> Option<String> + Send + Sync>;

/// An initialised tool behind the full wrapper.
#[derive(Clone)]
pub struct ErasedTool {
    pub id: &'static str,
    pub permission: &'static str,
    pub visibility: Visibility,
    pub description: String,
    pub schema: Arc<Value>,
    /// The declared effects ([`Tool::EFFECTS`]); a call's own are [`Self::effects_for`].
    pub effects: Effects,
    /// The per-call effects of a built-in tool; `None` for run-time tools.
    pub(super) effects_of: Option<fn(&Value) -> Effects>,
    pub(super) for_rules: Option<DescribeFor>,
    pub(super) service: BoxCloneSyncService<ToolCall, ToolResult, ToolError>,
}

impl std::fmt::Debug for ErasedTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ErasedTool").field("id", &self.id).finish()
    }
}

impl ErasedTool {
    /// This tool as a caller bound by `rules` sees it: the description may list only what
    /// those rules allow (see [`Tool::description_for`]).
    pub fn for_rules(&self, rules: &[Rule]) -> ErasedTool {
        let mut tool = self.clone();
        if let Some(text) = self.for_rules.as_ref().and_then(|f| f(rules)) {
            tool.description = text;
        }
        tool
    }

    /// The effects of a call with arguments `input` ([`Tool::effects_for`]): what the loop
    /// decides parallelism from.
    pub fn effects_for(&self, input: &Value) -> Effects {
        match self.effects_of {
            Some(of) => of(input),
            None => self.effects,
        }
    }

    /// Runs one call through tracing, decoding, the tool and truncation.
    pub async fn call(
        &self,
        input: impl Into<String>,
        cx: ToolCx,
    ) -> Result<ToolResult, ToolError> {
        self.service
            .clone()
            .oneshot(ToolCall {
                input: input.into(),
                cx,
            })
            .await
    }
}
