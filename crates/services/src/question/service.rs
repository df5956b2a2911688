//! The Question service: pending questions and the answers front-ends give them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use strata_graph::{BoxError, Node, Scope, Tier};
use tokio::sync::{broadcast, oneshot};
use tokio_util::sync::CancellationToken;

use crate::bus::Bus;

use super::error::QuestionError;
use super::events::{Answer, AskQuestions, QuestionEvent, QuestionRequest};

/// How many events a slow subscriber may fall behind before it starts missing them.
const EVENT_CAPACITY: usize = 256;

type Outcome = Result<Vec<Answer>, QuestionError>;

/// Handle to one instance's pending questions. Clones share the state; two
/// `Question::new()` values are independent.
#[derive(Clone)]
pub struct Question {
    inner: Arc<Inner>,
}

impl strata_graph::Service for Question {
    const KEY: &'static str = "Question";
}

struct Inner {
    state: Mutex<State>,
    events: broadcast::Sender<QuestionEvent>,
}

#[derive(Default)]
struct State {
    /// In the order they were asked.
    pending: Vec<Pending>,
    disposed: bool,
}

struct Pending {
    request: QuestionRequest,
    tx: oneshot::Sender<Outcome>,
}

impl Default for Question {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Question {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let st = self.lock();
        f.debug_struct("Question")
            .field("pending", &st.pending.len())
            .field("disposed", &st.disposed)
            .finish()
    }
}

impl Question {
    pub fn new() -> Self {
        Question {
            inner: Arc::new(Inner {
                state: Mutex::new(State::default()),
                events: broadcast::channel(EVENT_CAPACITY).0,
            }),
        }
    }

    /// The instance-tier node; closing the instance rejects every pending question.
    pub fn node() -> Node {
        Node::new(Tier::Instance, |(bus,): (Bus,), scope: Scope| async move {
            let question = Question::new();
            // Every event also goes on the Bus, for front-ends that listen there.
            let mut events = question.subscribe();
            scope.spawn(async move {
                while let Ok(event) = events.recv().await {
                    bus.publish(event);
                }
            });
            let handle = question.clone();
            scope.add_finalizer("Question: reject pending questions", move || async move {
                handle.dispose()
            });
            Ok::<_, BoxError>(question)
        })
    }

    /// Every event published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<QuestionEvent> {
        self.inner.events.subscribe()
    }

    /// The requests waiting for an answer, oldest first.
    pub fn pending(&self) -> Vec<QuestionRequest> {
        self.lock()
            .pending
            .iter()
            .map(|p| p.request.clone())
            .collect()
    }

    /// Puts `ask` to whoever answers questions and waits for the answers (one per question,
    /// in order). Cancelling `cancel` (or dropping the future) withdraws the request.
    pub async fn ask(&self, ask: AskQuestions, cancel: CancellationToken) -> Outcome {
        let (id, rx) = {
            let mut st = self.lock();
            if st.disposed {
                return Err(QuestionError::Disposed);
            }
            let request = QuestionRequest {
                id: new_id(),
                session_id: ask.session_id,
                questions: ask.questions,
                tool: ask.tool,
            };
            let (tx, rx) = oneshot::channel();
            let id = request.id.clone();
            self.publish(QuestionEvent::Asked(request.clone()));
            st.pending.push(Pending { request, tx });
            (id, rx)
        };
        let _withdraw = Withdraw { owner: self, id };
        tokio::select! {
            // An answer that raced the cancellation wins.
            biased;
            outcome = rx => outcome.unwrap_or(Err(QuestionError::Disposed)),
            () = cancel.cancelled() => Err(QuestionError::Cancelled),
        }
    }

    /// Answers the pending request `request_id`: one list of chosen labels (or typed text) per
    /// question, in order.
    pub fn reply(&self, request_id: &str, answers: Vec<Answer>) -> Result<(), QuestionError> {
        let p = self.take(request_id)?;
        self.publish(QuestionEvent::Replied {
            session_id: p.request.session_id.clone(),
            request_id: p.request.id.clone(),
            answers: answers.clone(),
        });
        let _ = p.tx.send(Ok(answers));
        Ok(())
    }

    /// Dismisses the pending request `request_id`: its asker fails with
    /// [`QuestionError::Rejected`].
    pub fn reject(&self, request_id: &str) -> Result<(), QuestionError> {
        let p = self.take(request_id)?;
        self.publish(rejected(&p.request));
        let _ = p.tx.send(Err(QuestionError::Rejected));
        Ok(())
    }

    /// Rejects every pending request with [`QuestionError::Disposed`] and refuses new ones.
    /// Called when the instance closes.
    pub fn dispose(&self) {
        let mut st = self.lock();
        st.disposed = true;
        for p in std::mem::take(&mut st.pending) {
            self.publish(rejected(&p.request));
            let _ = p.tx.send(Err(QuestionError::Disposed));
        }
    }

    fn take(&self, request_id: &str) -> Result<Pending, QuestionError> {
        let mut st = self.lock();
        match st.pending.iter().position(|p| p.request.id == request_id) {
            Some(index) => Ok(st.pending.remove(index)),
            None => Err(QuestionError::NotFound {
                id: request_id.to_string(),
            }),
        }
    }

    fn withdraw(&self, id: &str) {
        if let Ok(p) = self.take(id) {
            self.publish(rejected(&p.request));
        }
    }

    fn publish(&self, event: QuestionEvent) {
        // No subscribers is fine: nobody is watching yet.
        let _ = self.inner.events.send(event);
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state stays consistent between statements, so a poisoned lock is still usable.
        self.inner.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Withdraws the pending request when `ask` ends early (cancelled or dropped); a no-op once it
/// was answered, since answering removes it.
struct Withdraw<'a> {
    owner: &'a Question,
    id: String,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        self.owner.withdraw(&self.id);
    }
}

fn rejected(request: &QuestionRequest) -> QuestionEvent {
    QuestionEvent::Rejected {
        session_id: request.session_id.clone(),
        request_id: request.id.clone(),
    }
}

/// `que_` + milliseconds since the epoch + a process-wide counter + random bits: unique in the
/// process and roughly ordered by creation.
fn new_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let seq = COUNTER.fetch_add(1, Ordering::Relaxed);
    let noise: u32 = rand::random();
    format!("que_{ms:012x}{:06x}{noise:08x}", seq & 0xff_ffff)
}
