//! The Question service: pending questions and the answers front-ends give them.

use std::sync::Arc;

use strata_graph::Node;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::pending::{self, Awaited, PendingRequests};

use super::error::QuestionError;
use super::events::{Answer, AskQuestions, QuestionEvent, QuestionRequest};

type Outcome = Result<Vec<Answer>, QuestionError>;

/// Handle to one instance's pending questions. Clones share the state; two
/// `Question::new()` values are independent.
#[derive(Clone)]
pub struct Question {
    pending: Arc<PendingRequests<QuestionRequest>>,
}

impl strata_graph::Service for Question {
    const KEY: &'static str = "Question";
}

impl Awaited for QuestionRequest {
    type Reply = Outcome;
    type Event = QuestionEvent;

    fn id(&self) -> &str {
        &self.id
    }

    fn asked(&self) -> QuestionEvent {
        QuestionEvent::Asked(self.clone())
    }

    fn withdrawn(&self) -> QuestionEvent {
        rejected(self)
    }

    fn disposed() -> Outcome {
        Err(QuestionError::Disposed)
    }
}

impl Default for Question {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Question {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let st = self.pending.lock();
        f.debug_struct("Question")
            .field("pending", &st.len())
            .field("disposed", &st.disposed())
            .finish()
    }
}

impl Question {
    pub fn new() -> Self {
        Question {
            pending: Arc::new(PendingRequests::new()),
        }
    }

    /// The instance-tier node; closing the instance rejects every pending question.
    pub fn node() -> Node {
        PendingRequests::node("Question: reject pending questions", |pending| Question {
            pending,
        })
    }

    /// Every event published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<QuestionEvent> {
        self.pending.subscribe()
    }

    /// The requests waiting for an answer, oldest first.
    pub fn pending(&self) -> Vec<QuestionRequest> {
        self.pending.lock().requests()
    }

    /// Puts `ask` to whoever answers questions and waits for the answers (one per question,
    /// in order). Cancelling `cancel` (or dropping the future) withdraws the request.
    pub async fn ask(&self, ask: AskQuestions, cancel: CancellationToken) -> Outcome {
        let ticket = {
            let mut st = self.pending.lock();
            if st.disposed() {
                return Err(QuestionError::Disposed);
            }
            let request = QuestionRequest {
                id: pending::new_id("que_"),
                session_id: ask.session_id,
                questions: ask.questions,
                tool: ask.tool,
            };
            self.pending.insert(&mut st, request)
        };
        let cancelled = Err(QuestionError::Cancelled);
        self.pending.wait(ticket, cancel, cancelled).await
    }

    /// Answers the pending request `request_id`: one list of chosen labels (or typed text) per
    /// question, in order.
    pub fn reply(&self, request_id: &str, answers: Vec<Answer>) -> Result<(), QuestionError> {
        let p = self.take(request_id)?;
        self.pending.publish(QuestionEvent::Replied {
            session_id: p.request.session_id.clone(),
            request_id: p.request.id.clone(),
            answers: answers.clone(),
        });
        p.send(Ok(answers));
        Ok(())
    }

    /// Dismisses the pending request `request_id`: its asker fails with
    /// [`QuestionError::Rejected`].
    pub fn reject(&self, request_id: &str) -> Result<(), QuestionError> {
        let p = self.take(request_id)?;
        self.pending.publish(rejected(&p.request));
        p.send(Err(QuestionError::Rejected));
        Ok(())
    }

    /// Rejects every pending request with [`QuestionError::Disposed`] and refuses new ones.
    /// Called when the instance closes.
    pub fn dispose(&self) {
        self.pending.dispose();
    }

    fn take(
        &self,
        request_id: &str,
    ) -> Result<crate::pending::Entry<QuestionRequest>, QuestionError> {
        self.pending
            .lock()
            .take(request_id)
            .ok_or_else(|| QuestionError::NotFound {
                id: request_id.to_string(),
            })
    }
}

fn rejected(request: &QuestionRequest) -> QuestionEvent {
    QuestionEvent::Rejected {
        session_id: request.session_id.clone(),
        request_id: request.id.clone(),
    }
}
