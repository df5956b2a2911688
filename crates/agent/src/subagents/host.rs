//! [`StoredSubagents`]: starts children as real sessions in the store and runs them with the
//! agent loop, under the parent run's model and front-end.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use strata_graph::{BoxError, Node, Scope, Tier};
use strata_registry::rules::ruleset_of;
use strata_registry::{AgentInfo, Agents, InstanceBuilder};
use strata_services::config::Config;
use strata_services::permission::Permission;
use strata_services::question::Question;
use strata_services::subagents::{
    ChildSession, SubagentError, SubagentHost, SubagentInfo, SubagentRequest, Subagents,
};
use strata_services::worktree::Worktrees;
use tokio_util::sync::CancellationToken;

use super::isolate::Isolation;
use super::rules::{child_rules, depth_limit};
use super::runs::{RunContext, SubagentRuns};
use crate::session::{LoopServices, Model, RunOptions, RunOutcome, Runner};
use crate::store::Store;

/// A child between `prepare` and `run`.
struct Pending {
    parent: Arc<RunContext>,
    model: Model,
    options: RunOptions,
    /// `isolation: worktree`: the child's directory so far (moved into its worktree).
    worktree: Option<std::path::PathBuf>,
}

/// The agent loop's [`SubagentHost`].
pub struct StoredSubagents {
    runs: SubagentRuns,
    store: Store,
    agents: Agents,
    isolation: Isolation,
    pending: Mutex<HashMap<String, Pending>>,
}

impl std::fmt::Debug for StoredSubagents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredSubagents")
            .field("agents", &self.agents.names())
            .finish_non_exhaustive()
    }
}

impl StoredSubagents {
    pub fn new(runs: SubagentRuns, store: Store, agents: Agents, isolation: Isolation) -> Self {
        StoredSubagents {
            runs,
            store,
            agents,
            isolation,
            pending: Mutex::default(),
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<String, Pending>> {
        // Each statement leaves the map whole, so a poisoned lock is still usable.
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Subagent levels above `session_id`: 0 for a top-level session.
    fn depth(&self, session_id: &str) -> Result<u32, SubagentError> {
        let mut depth = 0;
        let mut current = self.store.session(session_id).map_err(store_error)?;
        while let Some(parent) = current.parent_id.clone() {
            depth += 1;
            current = self.store.session(&parent).map_err(store_error)?;
        }
        Ok(depth)
    }

    /// The model of a child of `spec` started from `parent`: its own, else the parent's.
    fn model(&self, spec: &AgentInfo, parent: &RunContext) -> Result<Model, SubagentError> {
        let Some(id) = &spec.model else {
            return Ok(parent.model.clone());
        };
        let resolved = parent.services.resolver().resolve(id).map_err(|e| {
            SubagentError::Unavailable(format!(
                "the subagent `{}` is set to the model `{id}`, which cannot be used: {e}",
                spec.name
            ))
        })?;
        for warning in &resolved.warnings {
            tracing::warn!(subagent = %spec.name, "{warning}");
        }
        Ok(Model::resolved(id.clone(), resolved))
    }
}

fn store_error(e: crate::store::StoreError) -> SubagentError {
    SubagentError::Unavailable(format!("the session store failed: {e}"))
}

impl SubagentHost for StoredSubagents {
    fn agents(&self) -> Vec<SubagentInfo> {
        self.agents
            .subagents()
            .map(|a| SubagentInfo {
                name: a.name.clone(),
                description: a.description.clone(),
            })
            .collect()
    }

    fn prepare(&self, req: SubagentRequest) -> Result<ChildSession, SubagentError> {
        let Some(parent) = self.runs.get(&req.parent_session_id) else {
            return Err(SubagentError::Unavailable(format!(
                "session `{}` has no run in this process to start a subagent from; subagents \
                 start from a running agent loop (`strata run`)",
                req.parent_session_id
            )));
        };
        let found = self.agents.get(&req.subagent_type);
        let Some(spec) = found.filter(|a| a.mode.is_subagent()) else {
            let names: Vec<&str> = self.agents.subagents().map(|a| a.name.as_str()).collect();
            return Err(SubagentError::UnknownAgent {
                name: req.subagent_type,
                available: names.join(", "),
            });
        };
        let s = &parent.services;
        let raw = &s.config.data().raw;
        let limit = depth_limit(raw);
        if self.depth(&req.parent_session_id)? >= limit {
            return Err(SubagentError::DepthLimit { limit });
        }
        let agent_rules = ruleset_of(spec, &s.config, &s.flags, &s.skills)
            .map_err(|e| SubagentError::Unavailable(e.to_string()))?;
        let session_rules = child_rules(&parent.options.session_rules, &agent_rules, raw);
        let model = self.model(spec, &parent)?;
        let resumed = req
            .task_id
            .as_deref()
            .and_then(|id| self.store.session(id).ok());
        let session = match resumed {
            Some(session) => session,
            None => {
                let session = self
                    .store
                    .create_session(&s.info.directory, Some(&req.parent_session_id))
                    .map_err(store_error)?;
                let title = format!("{} (@{} subagent)", req.description, spec.name);
                self.store
                    .update_session_title(&session.id, &title)
                    .map_err(store_error)?
            }
        };
        let options = RunOptions {
            agent: spec.name.clone(),
            max_steps: spec.steps.unwrap_or(parent.options.max_steps),
            session_rules,
            ..parent.options.clone()
        };
        let worktree = spec.worktree.then(|| session.directory.clone());
        let child = ChildSession {
            session_id: session.id.clone(),
            parent_session_id: req.parent_session_id,
            agent: spec.name.clone(),
            model: model.id.clone(),
        };
        self.pending().insert(
            session.id,
            Pending {
                parent,
                model,
                options,
                worktree,
            },
        );
        Ok(child)
    }

    fn run(
        &self,
        child: ChildSession,
        prompt: String,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<String, SubagentError>> {
        let pending = self.pending().remove(&child.session_id);
        let isolation = self.isolation.clone();
        let store = self.store.clone();
        Box::pin(async move {
            let Some(pending) = pending else {
                return Err(SubagentError::Unavailable(format!(
                    "the child session `{}` was not prepared; call prepare before run",
                    child.session_id
                )));
            };
            let Some(previous) = pending.worktree.clone() else {
                return run_child(&child, pending, None, prompt, cancel).await;
            };
            let sid = child.session_id.clone();
            let name = worktree_name(&sid);
            let parent_dir = pending.parent.services.info.directory.clone();
            let isolated = isolation.enter(&parent_dir, &previous, &name).await?;
            let services = store
                .move_session(&sid, &isolated.directory)
                .map_err(store_error)
                .and_then(|_| {
                    LoopServices::from_context(isolated.instance.context())
                        .map_err(|e| SubagentError::Unavailable(e.to_string()))
                });
            let ran = match services {
                Ok(services) => run_child(&child, pending, Some(services), prompt, cancel).await,
                Err(e) => Err(e),
            };
            let Some(note) = isolation.leave(isolated).await else {
                return ran;
            };
            match ran {
                Ok(text) => Ok(format!("{text}\n\n{note}")),
                Err(SubagentError::Failed {
                    session_id,
                    message,
                }) => Err(SubagentError::Failed {
                    session_id,
                    message: format!("{message}\n\n{note}"),
                }),
                Err(e) => Err(e),
            }
        })
    }
}

/// `task-` and the end of the child's session id: one worktree per child, easy to match.
fn worktree_name(session_id: &str) -> String {
    let tail: String = session_id
        .chars()
        .rev()
        .filter(char::is_ascii_alphanumeric)
        .take(10)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("task-{}", tail.to_ascii_lowercase())
}

/// Runs the child with `services` (its own instance's), else its parent's.
async fn run_child(
    child: &ChildSession,
    pending: Pending,
    services: Option<LoopServices>,
    prompt: String,
    cancel: CancellationToken,
) -> Result<String, SubagentError> {
    let Pending {
        parent,
        model,
        options,
        worktree: _,
    } = pending;
    let services = services.unwrap_or_else(|| parent.services.clone());
    let runner = Runner::new(services, model, options);
    let sid = child.session_id.clone();
    let report = runner
        .run(&sid, &prompt, cancel, parent.sink.clone())
        .await
        .map_err(|e| SubagentError::Failed {
            session_id: sid.clone(),
            message: e.to_string(),
        })?;
    match report.outcome {
        RunOutcome::Completed | RunOutcome::StepLimit { .. } => Ok(report.text),
        RunOutcome::Cancelled => Err(SubagentError::Cancelled { session_id: sid }),
        RunOutcome::Stopped { reason: message } | RunOutcome::Failed { error: message } => {
            Err(SubagentError::Failed {
                session_id: sid,
                message,
            })
        }
    }
}

/// The instance-tier node giving [`Subagents`] run by the agent loop; it takes the place of
/// the tools-only graph's unavailable one.
pub fn subagents_node() -> Node {
    Node::new(
        Tier::Instance,
        |(runs, store, agents, worktrees, builder, permission, question, config): (
            SubagentRuns,
            Store,
            Agents,
            Worktrees,
            InstanceBuilder,
            Permission,
            Question,
            Config,
        ),
         _scope: Scope| async move {
            let shared = (permission, question, config, agents.clone());
            let isolation = Isolation::new(worktrees, builder, shared);
            Ok::<_, BoxError>(Subagents::new(StoredSubagents::new(
                runs, store, agents, isolation,
            )))
        },
    )
}
