//! Turns: a prompt becomes a turn with its own id, queued per session. One session runs one
//! turn at a time (a fair lock, so prompts run in arrival order); different sessions run
//! concurrently. A shell request is a turn too, refused while another runs or waits. A turn
//! runs on its own task, so it goes on when the client that asked for it disconnects; its
//! events are in the store either way.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use strata_agent::session::{Model, RunOptions, RunOutcome, Runner};
use strata_protocol::part::FilePart;
use strata_protocol::wire::{ModelChoice, PromptBody};
use strata_services::permission::Rule;
use strata_services::process::ProcessIdentity;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::hub::EventFilter;
use super::sessions::MessageEntry;
use super::{CoreError, ServerCore};

/// What a caller gets for a prompt: the turn's id and its end.
#[derive(Debug)]
pub struct TurnHandle {
    pub id: String,
    pub session_id: String,
    /// A user's shell command, not a prompt.
    shell: bool,
    done: oneshot::Receiver<Result<TurnEnd, CoreError>>,
}

/// How a turn ended.
#[derive(Debug, Clone)]
pub struct TurnEnd {
    pub outcome: RunOutcome,
    /// The cursor of the last stored event when the turn ended.
    pub cursor: i64,
}

impl TurnHandle {
    /// Waits for the turn to end.
    pub async fn finished(self) -> Result<TurnEnd, CoreError> {
        self.done
            .await
            .map_err(|_| CoreError::Internal("the turn's task ended without a result".into()))?
    }
}

#[derive(Debug, Default)]
pub(super) struct Slot {
    /// Held by the running turn; waiting turns queue on it in order.
    queue: tokio::sync::Mutex<()>,
    /// Turns queued or running.
    pub(super) waiting: std::sync::atomic::AtomicUsize,
    running: Mutex<Option<Running>>,
    /// Told when a turn's task has let go of the slot.
    released: tokio::sync::Notify,
}

#[derive(Debug, Clone)]
struct Running {
    cancel: CancellationToken,
    /// The store's last cursor when the turn started.
    start: i64,
    directory: String,
}

/// How long a finished blocking request waits for its events to be taken by every open stream.
const DELIVERY_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// How long a request waits for a turn that has stored its end to let go of its session.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(5);

#[derive(Debug, Default)]
pub(crate) struct Turns {
    slots: Mutex<HashMap<String, Arc<Slot>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Turns {
    pub(super) fn slot(&self, session_id: &str) -> Arc<Slot> {
        lock(&self.slots)
            .entry(session_id.to_string())
            .or_default()
            .clone()
    }

    pub(crate) fn abort(&self, session_id: &str) -> bool {
        let slot = lock(&self.slots).get(session_id).cloned();
        match slot.and_then(|s| lock(&s.running).clone()) {
            Some(r) => {
                r.cancel.cancel();
                true
            }
            None => false,
        }
    }

    pub(crate) fn abort_all(&self) {
        for slot in lock(&self.slots).values() {
            if let Some(r) = lock(&slot.running).as_ref() {
                r.cancel.cancel();
            }
        }
    }

    pub(crate) fn busy(&self) -> Vec<String> {
        let mut ids: Vec<String> = lock(&self.slots)
            .iter()
            .filter(|(_, s)| s.waiting.load(Ordering::SeqCst) > 0)
            .map(|(id, _)| id.clone())
            .collect();
        ids.sort();
        ids
    }

    pub(crate) fn is_busy(&self, session_id: &str) -> bool {
        lock(&self.slots)
            .get(session_id)
            .is_some_and(|s| s.waiting.load(Ordering::SeqCst) > 0)
    }

    /// Waits for the session's one turn to let go of its slot when `ended` says it has
    /// already stored its end; false when a turn still runs or waits (or does not let go
    /// within [`SETTLE`]).
    async fn settle(&self, session_id: &str, ended: impl Fn() -> bool) -> bool {
        let Some(slot) = lock(&self.slots).get(session_id).cloned() else {
            return true;
        };
        let wait = async {
            loop {
                let released = slot.released.notified();
                tokio::pin!(released);
                released.as_mut().enable();
                match slot.waiting.load(Ordering::SeqCst) {
                    0 => return true,
                    1 if ended() => released.await,
                    _ => return false,
                }
            }
        };
        tokio::time::timeout(SETTLE, wait).await.unwrap_or(false)
    }

    pub(crate) fn earliest_running_start(&self, filter: &EventFilter) -> Option<i64> {
        lock(&self.slots)
            .values()
            .filter_map(|s| lock(&s.running).clone())
            .filter(|r| match filter {
                EventFilter::All => true,
                EventFilter::Directory(d) => *d == r.directory,
            })
            .map(|r| r.start)
            .min()
    }
}

/// What a turn does.
#[derive(Debug)]
pub(super) enum Work {
    /// A prompt for the model, with the files the user attached.
    Prompt(String, Vec<FilePart>),
    /// A command the user runs.
    Shell(String),
    /// A summary the user asked for, with their instructions for it.
    Compact(String),
}

/// `trn_` + a process-wide counter + the time: unique in the process.
/// A prompt without text.
const NO_TEXT: &str = r#"parts: the prompt has no text part with text in it; send {"parts":[{"type":"text","text":"…"}]}"#;
/// A shell request without a command.
const NO_COMMAND: &str = r#"command: the command is empty; send {"command":"…"}"#;
/// A prompt that names no model where the config has none either.
const NO_MODEL: &str = r#"model: the prompt names no model and the project's config has no "model"; send {"model":{"providerID","modelID"}}"#;

pub(super) fn turn_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let ms = strata_agent::store::now_ms();
    format!("trn_{ms:012x}{:06x}", NEXT.fetch_add(1, Ordering::Relaxed))
}

impl ServerCore {
    /// Queues a turn on the session and returns at once; the turn runs on its own task.
    pub async fn prompt(
        &self,
        session_id: &str,
        body: PromptBody,
    ) -> Result<TurnHandle, CoreError> {
        let text = body.text();
        if text.trim().is_empty() {
            return Err(CoreError::BadRequest(NO_TEXT.into()));
        }
        let (runner, directory) = self
            .runner_for(session_id, body.agent.clone(), body.model.as_ref())
            .await?;
        let id = turn_id();
        // Kept until the turn begins, so a successor can report it if this server dies first.
        if let Some(me) = ProcessIdentity::current() {
            let request = serde_json::to_value(&body).unwrap_or_default();
            self.store()
                .queue_prompt(&id, session_id, &text, &request, &me)?;
        }
        let slot = self.inner.turns.slot(session_id);
        slot.waiting.fetch_add(1, Ordering::SeqCst);
        let work = Work::Prompt(text, body.files());
        Ok(self.spawn_turn(id, slot, session_id, directory, runner, work))
    }

    /// Runs `command` in the session as the user's own `bash` call, on its own task like a
    /// turn; refused with [`CoreError::Busy`] while a turn runs or waits.
    pub async fn shell(
        &self,
        session_id: &str,
        command: &str,
        agent: Option<String>,
        model: Option<&ModelChoice>,
    ) -> Result<TurnHandle, CoreError> {
        if command.trim().is_empty() {
            return Err(CoreError::BadRequest(NO_COMMAND.into()));
        }
        let (runner, directory) = self.runner_for(session_id, agent, model).await?;
        self.ensure_idle(session_id).await?;
        let slot = self.inner.turns.slot(session_id);
        // Claimed only when nothing runs or waits, so a prompt cannot slip in before it.
        if slot
            .waiting
            .compare_exchange(0, 1, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            return Err(CoreError::Busy(session_id.to_string()));
        }
        let work = Work::Shell(command.to_string());
        Ok(self.spawn_turn(turn_id(), slot, session_id, directory, runner, work))
    }

    /// The runner of a turn in the session: its instance's services, the model named (else
    /// the config's), the agent named (else `build`) and the session's own rules.
    pub(super) async fn runner_for(
        &self,
        session_id: &str,
        agent: Option<String>,
        model: Option<&ModelChoice>,
    ) -> Result<(Runner, String), CoreError> {
        let entry = self.session_instance(session_id).await?;
        let services = entry.services.clone();
        let model_id = match model {
            Some(m) => format!("{}/{}", m.provider_id, m.model_id),
            None => (services.config.model.clone())
                .ok_or_else(|| CoreError::BadRequest(NO_MODEL.into()))?,
        };
        let resolved = services
            .resolver()
            .resolve(&model_id)
            .map_err(|e| CoreError::BadRequest(format!("model: {e}")))?;
        for warning in &resolved.warnings {
            tracing::warn!(session = session_id, "{warning}");
        }
        let rules: Vec<Rule> = self
            .store()
            .session_rules(session_id)?
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default();
        let agent = agent.unwrap_or_else(|| "build".into());
        // Checked here, so a name no agent has is the client's error, not a failed turn.
        services
            .agents
            .lookup(&agent)
            .map_err(|e| CoreError::BadRequest(format!("agent: {e}")))?;
        let options = RunOptions {
            agent,
            session_rules: rules,
            small_model: strata_agent::session::small_model::resolve(
                &services.config,
                &services.resolver(),
            ),
            ..RunOptions::default()
        };
        let model = Model::resolved(model_id, resolved);
        Ok((
            Runner::new(services, model, options),
            entry.directory.clone(),
        ))
    }

    /// Runs `work` on its own task once the session's earlier turns are done; the caller has
    /// counted it in `slot.waiting`.
    pub(super) fn spawn_turn(
        &self,
        id: String,
        slot: Arc<Slot>,
        session_id: &str,
        directory: String,
        runner: Runner,
        work: Work,
    ) -> TurnHandle {
        let (done_tx, done) = oneshot::channel();
        let shell = matches!(work, Work::Shell(_));
        let core = self.clone();
        let sid = session_id.to_string();
        let turn = id.clone();
        tokio::spawn(async move {
            let result = core
                .run_turn(&turn, &slot, &sid, &directory, &runner, &work)
                .await;
            slot.waiting.fetch_sub(1, Ordering::SeqCst);
            slot.released.notify_waiters();
            let _ = done_tx.send(result);
        });
        TurnHandle {
            id,
            session_id: session_id.to_string(),
            shell,
            done,
        }
    }

    async fn run_turn(
        &self,
        id: &str,
        slot: &Slot,
        session_id: &str,
        directory: &str,
        runner: &Runner,
        work: &Work,
    ) -> Result<TurnEnd, CoreError> {
        let _turn = slot.queue.lock().await;
        if matches!(work, Work::Prompt(..)) {
            self.store().unqueue_prompt(id)?;
            // From its first prompt here, the session ends (`SessionEnd`) with this process.
            self.inner.active.add(session_id);
        }
        let cancel = CancellationToken::new();
        let start = self.store().global_last()?;
        *lock(&slot.running) = Some(Running {
            cancel: cancel.clone(),
            start: start + 1,
            directory: directory.to_string(),
        });
        // No sink: the fan-out takes stored events and text deltas from the store's live
        // channel, in the order they happened.
        let result = match work {
            Work::Prompt(text, files) => {
                runner.run_with(session_id, text, files, cancel, None).await
            }
            Work::Shell(command) => runner.shell(session_id, command, cancel, None).await,
            Work::Compact(instructions) => {
                runner
                    .summarize(session_id, instructions, cancel, None)
                    .await
            }
        };
        *lock(&slot.running) = None;
        let report = result.map_err(|e| CoreError::Internal(e.to_string()))?;
        Ok(TurnEnd {
            outcome: report.outcome,
            cursor: self.store().global_last()?,
        })
    }

    /// Refuses with [`CoreError::Busy`] while a turn runs or waits in the session. A turn
    /// that has stored its `idle` status, which is what a client waits for before it undoes
    /// or runs a shell command, has only its task's last steps left: those are waited for.
    pub(crate) async fn ensure_idle(&self, session_id: &str) -> Result<(), CoreError> {
        let store = self.store();
        let ended = || matches!(store.session_idle(session_id), Ok(true));
        if self.inner.turns.settle(session_id, ended).await {
            Ok(())
        } else {
            Err(CoreError::Busy(session_id.to_string()))
        }
    }

    /// Whether the session has a turn running or queued.
    pub fn is_busy(&self, session_id: &str) -> bool {
        self.inner.turns.is_busy(session_id)
    }

    /// What a blocking prompt or shell request answers: waits for `turn` to end and for its
    /// events to reach every open stream (opencode's `run` stops reading them once it has its
    /// answer), then gives the session's last assistant message. A shell command that could not
    /// run is a bad request; a prompt's failure is in the message it answers with.
    pub async fn answer(&self, turn: TurnHandle) -> Result<MessageEntry, CoreError> {
        let (session_id, shell) = (turn.session_id.clone(), turn.shell);
        let end = turn.finished().await?;
        if let (true, RunOutcome::Failed { error }) = (shell, &end.outcome) {
            return Err(CoreError::BadRequest(format!("command: {error}")));
        }
        self.hub().delivered(end.cursor, DELIVERY_WAIT).await;
        let what = if shell { "command" } else { "turn" };
        self.last_assistant(&session_id)?.ok_or_else(|| {
            CoreError::Internal(format!(
                "the {what} in session {session_id} ended without an assistant message"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turns_with(session: &str, waiting: usize) -> (Turns, Arc<Slot>) {
        let turns = Turns::default();
        let slot = turns.slot(session);
        slot.waiting.store(waiting, Ordering::SeqCst);
        (turns, slot)
    }

    #[tokio::test]
    async fn a_turn_that_stored_its_end_is_waited_for_until_it_lets_go() {
        let (turns, slot) = turns_with("ses_a", 1);
        let settle = turns.settle("ses_a", || true);
        tokio::pin!(settle);
        // Still held: the settle waits rather than answering.
        assert!(futures::poll!(settle.as_mut()).is_pending());
        slot.waiting.fetch_sub(1, Ordering::SeqCst);
        slot.released.notify_waiters();
        assert!(settle.await);
    }

    #[tokio::test]
    async fn a_running_or_queued_turn_is_refused_at_once() {
        let (turns, _slot) = turns_with("ses_b", 1);
        assert!(!turns.settle("ses_b", || false).await, "still running");
        let (turns, _slot) = turns_with("ses_c", 2);
        assert!(!turns.settle("ses_c", || true).await, "another turn queued");
        assert!(Turns::default().settle("ses_none", || false).await);
    }
}
