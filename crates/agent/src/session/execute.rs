//! Running one tool call: repair the name (unknown tools go to `invalid` with the list of
//! available ones), guard against doom loops, run the tool through its wrapper with a
//! cancellation token and a metadata sink, and record each state of the call's part.

use std::sync::Mutex;

use serde_json::{Map, Value, json};
use strata_protocol::tool::{ToolPart, ToolState};
use strata_services::permission::{Permission, Ruleset};
use strata_tools::contract::MetadataUpdate;
use strata_tools::invalid::Invalid;
use strata_tools::{Ask, ErasedTool, ToolCx, ToolError};
use tokio_util::sync::CancellationToken;

use strata_registry::deferred::LOADED_KEY;

use super::parts;
use super::record::Recorder;
use crate::doom::DoomGuard;
use crate::provider::ToolCall;
use crate::store::{StoreError, now_ms};

/// The tool an unknown or malformed call goes to.
const INVALID: &str = <Invalid as strata_tools::Tool>::ID;

/// What every call of a run shares.
#[derive(Debug)]
pub struct CallEnv<'a> {
    pub recorder: &'a Recorder,
    /// The tools advertised to the model this step, with their schemas.
    pub surface: &'a [ErasedTool],
    /// The deferred tools (spec §24): named to the model, not described; a call of one loads it.
    pub deferred: &'a [ErasedTool],
    /// The never-advertised `invalid` tool, target of call repair.
    pub invalid: Option<&'a ErasedTool>,
    pub permission: &'a Permission,
    /// The agent's rules, computed once per run.
    pub ruleset: &'a Ruleset,
    pub agent: &'a str,
    pub model: &'a str,
    /// The session's plan file, for `plan_exit`.
    pub plan_file: Option<&'a std::path::Path>,
    /// `experimental.continue_loop_on_deny`: a refusal does not stop the turn.
    pub continue_on_deny: bool,
    pub doom: &'a Mutex<DoomGuard>,
    /// Concurrency-safe calls may start while the response still streams.
    pub early_calls: bool,
    pub cancel: &'a CancellationToken,
    /// The loop-event hooks (`PreCompact`); the tool hooks live in the tool wrapper.
    pub hooks: Option<&'a strata_services::hooks::Hooks>,
}

/// A ready call matched to the tool that will answer it.
#[derive(Debug)]
pub struct Prepared {
    pub message_id: String,
    pub part_id: String,
    /// The tool that runs (`invalid` after a repair), `None` if even that is missing.
    pub tool: Option<ErasedTool>,
    /// The arguments as recorded and sent to the tool.
    pub arguments: String,
    pub input: Value,
    /// The call's stored part (`callID`, the tool name as recorded, the state): the one record
    /// of where the call is, written on every change.
    pub part: ToolPart,
    /// The tool was deferred and never loaded: this call loads it (the result says so).
    pub loads: bool,
}

impl Prepared {
    /// Whether this call may run beside other safe calls: judged from its own arguments
    /// (`bash` running `ls` is safe, `bash` running `rm` is not).
    pub fn concurrency_safe(&self) -> bool {
        self.tool
            .as_ref()
            .is_some_and(|t| t.effects_for(&self.input).concurrency_safe)
    }

    pub fn call_id(&self) -> &str {
        &self.part.call_id
    }

    /// The tool name as recorded (`invalid` after a repair).
    pub fn name(&self) -> &str {
        &self.part.tool
    }

    /// Moves the call to `state` and stores it.
    fn record(&mut self, env: &CallEnv<'_>, state: ToolState) -> Result<(), StoreError> {
        self.part.state = state;
        env.recorder.part(
            &self.message_id,
            Some(&self.part_id),
            &self.part.clone().into(),
        )?;
        Ok(())
    }
}

/// How a call ended, as the loop sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallEnd {
    /// The tool answered.
    Completed,
    /// The call failed; the model is told why and the turn goes on.
    Failed,
    /// The call failed in a way that ends the turn (a refusal, a fatal error).
    Halted,
    /// The user cancelled the run before the call finished.
    Cancelled,
}

impl CallEnd {
    /// Whether the calls after this one must not run.
    pub fn stops_turn(self) -> bool {
        matches!(self, CallEnd::Halted | CallEnd::Cancelled)
    }
}

/// How a call ended and what the model is told.
#[derive(Debug, Clone)]
pub struct CallOutcome {
    pub call_id: String,
    pub name: String,
    pub output: String,
    pub end: CallEnd,
}

/// Matches `call` to a tool of the surface: by name, else by its lower-cased name, else it
/// becomes a call of `invalid` naming the tools that exist.
pub fn prepare(env: &CallEnv<'_>, message_id: &str, part_id: &str, call: &ToolCall) -> Prepared {
    let find = |name: &str| env.surface.iter().find(|t| t.id == name).cloned();
    let found = find(&call.name).or_else(|| find(&call.name.to_lowercase()));
    // A deferred tool called by name runs as if it had been loaded first.
    let deferred = || env.deferred.iter().find(|t| t.id == call.name).cloned();
    let loads = found.is_none() && deferred().is_some();
    let (tool, name, arguments) = match found.or_else(deferred) {
        Some(tool) => (
            Some(tool.clone()),
            tool.id.to_string(),
            call.arguments.clone(),
        ),
        None => {
            let available: Vec<&str> = env
                .surface
                .iter()
                .chain(env.deferred)
                .map(|t| t.id)
                .collect();
            let error = format!(
                "there is no tool named `{}` here. The tools you can call are: {}.",
                call.name,
                available.join(", ")
            );
            let args = json!({"tool": call.name, "error": error}).to_string();
            (env.invalid.cloned(), INVALID.to_string(), args)
        }
    };
    let input = serde_json::from_str(&arguments).unwrap_or(Value::String(arguments.clone()));
    Prepared {
        message_id: message_id.to_string(),
        part_id: part_id.to_string(),
        tool,
        part: ToolPart::pending(&call.id, &name, &arguments).with_provider_meta(call.meta.as_ref()),
        arguments,
        input,
        loads,
    }
}

/// Records `p` as failed with `error` without running it.
pub fn refuse(env: &CallEnv<'_>, mut p: Prepared, error: &str) -> Result<CallOutcome, StoreError> {
    let now = now_ms();
    p.record(env, parts::failed(&p.input, (now, now), error, None))?;
    Ok(outcome(&p, error.to_string(), CallEnd::Failed))
}

fn outcome(p: &Prepared, output: String, end: CallEnd) -> CallOutcome {
    CallOutcome {
        call_id: p.call_id().to_string(),
        name: p.name().to_string(),
        output,
        end,
    }
}

/// The message recorded for a call the user cancelled.
pub const CANCELLED: &str = "The user cancelled the run before this tool call finished.";

/// Runs one prepared call and records its states. The doom-loop guard sees the call right
/// away, before the returned future is first polled, so it sees calls in the order they were
/// started (the model's order) however the futures are polled.
pub fn execute<'e>(
    env: &'e CallEnv<'e>,
    p: Prepared,
) -> impl Future<Output = Result<CallOutcome, StoreError>> + Send + 'e {
    let repeated = env
        .doom
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .observe(p.name(), &p.arguments);
    run(env, p, repeated)
}

async fn run(
    env: &CallEnv<'_>,
    mut p: Prepared,
    repeated: bool,
) -> Result<CallOutcome, StoreError> {
    if env.cancel.is_cancelled() {
        return cancelled(env, p, now_ms());
    }
    let Some(tool) = p.tool.clone() else {
        return refuse(
            env,
            p,
            "No tool can answer this call: `invalid` is not registered.",
        );
    };
    let start = now_ms();
    p.record(env, parts::running(&p.input, start, None, None))?;
    let (meta_tx, mut meta_rx) = tokio::sync::mpsc::unbounded_channel();
    let (hook_tx, mut hook_rx) = tokio::sync::mpsc::unbounded_channel();
    let cx = tool_cx(env, &p, meta_tx).hook_sink(hook_tx).build();
    // The same ask a tool makes, under `doom_loop`: the user sees it like any other.
    if repeated && let Err(e) = cx.ask(doom_ask(&p)).await {
        return finish(env, p, start, Err(e));
    }
    // Cancellation reaches the tool through `abort`; the wrapper's cancel layer ends the call
    // (with the tool's own result when it stops in time, as `bash` does).
    let call = tool.call(p.arguments.clone(), cx);
    tokio::pin!(call);
    let result = loop {
        tokio::select! {
            result = &mut call => break result,
            Some(update) = meta_rx.recv() => {
                let state = parts::running(
                    &p.input, start, update.title.as_deref(), Some(&update.metadata),
                );
                p.record(env, state)?;
            }
            Some(run) = hook_rx.recv() => {
                super::hooks::record(env.recorder, &run, Some((p.call_id(), p.name())))?;
            }
        }
    };
    // The tool hooks that ran last (PostToolUse) are recorded before the call's end.
    while let Ok(run) = hook_rx.try_recv() {
        super::hooks::record(env.recorder, &run, Some((p.call_id(), p.name())))?;
    }
    finish(env, p, start, result)
}

/// The context a call's tool runs with: this session, message, call and agent, the run's
/// cancellation, the metadata sink and the permission rules.
fn tool_cx(
    env: &CallEnv<'_>,
    p: &Prepared,
    meta_tx: tokio::sync::mpsc::UnboundedSender<MetadataUpdate>,
) -> strata_tools::contract::ToolCxBuilder {
    let cx = ToolCx::builder(env.recorder.session_id())
        .message(&p.message_id)
        .call(p.call_id())
        .agent(env.agent)
        .model(env.model)
        .abort(env.cancel.child_token())
        .metadata_sink(meta_tx)
        .permission(env.permission.clone(), env.ruleset.clone());
    match env.plan_file {
        Some(path) => cx.plan_file(path),
        None => cx,
    }
}

/// What the user is asked when the model repeats the same call.
fn doom_ask(p: &Prepared) -> Ask {
    let name = p.name().to_string();
    Ask::new("doom_loop", vec![name.clone()], vec![name])
        .metadata(json!({"tool": p.name(), "input": p.input}))
}

fn cancelled(env: &CallEnv<'_>, mut p: Prepared, start: i64) -> Result<CallOutcome, StoreError> {
    let mut meta = Map::new();
    meta.insert("cancelled".into(), json!(true));
    let state = parts::failed(&p.input, (start, now_ms()), CANCELLED, Some(meta));
    p.record(env, state)?;
    Ok(outcome(&p, CANCELLED.to_string(), CallEnd::Cancelled))
}

fn finish(
    env: &CallEnv<'_>,
    mut p: Prepared,
    start: i64,
    result: Result<strata_tools::ToolResult, ToolError>,
) -> Result<CallOutcome, StoreError> {
    let end = now_ms();
    let result = if p.loads {
        loaded_on_call(p.name(), result)
    } else {
        result
    };
    match result {
        Ok(r) => {
            p.record(env, parts::completed(&p.input, (start, end), &r))?;
            Ok(outcome(&p, r.output, CallEnd::Completed))
        }
        Err(_) if env.cancel.is_cancelled() => cancelled(env, p, start),
        Err(e) => {
            let halts = match &e {
                ToolError::Permission(pe) => pe.is_stop_turn() && !env.continue_on_deny,
                ToolError::Dismissed(_) => !env.continue_on_deny,
                other => other.stops_turn(),
            };
            let message = e.to_string();
            let meta = p.loads.then(|| loaded_meta(p.name()));
            p.record(env, parts::failed(&p.input, (start, end), &message, meta))?;
            let end = if halts {
                CallEnd::Halted
            } else {
                CallEnd::Failed
            };
            Ok(outcome(&p, message, end))
        }
    }
}

/// The note and the record of a deferred tool loaded by calling it (spec §24).
fn loaded_on_call(
    name: &str,
    result: Result<strata_tools::ToolResult, ToolError>,
) -> Result<strata_tools::ToolResult, ToolError> {
    let mut r = result?;
    r.output.push_str(&format!(
        "\n\n(`{name}` was a deferred tool; this call loaded it, and it is offered with its \
         schema from the next step on.)"
    ));
    r.metadata.extend(loaded_meta(name));
    Ok(r)
}

fn loaded_meta(name: &str) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(LOADED_KEY.into(), json!([name]));
    meta
}
