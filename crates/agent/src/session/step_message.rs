//! `StepMessage`: the assistant message of one step attempt, owned from its creation to its
//! end. Only this type writes the message: it opens it (with its `step-start` part), and
//! either fails it (the response broke) or finishes it (with its `step-finish` part) once the
//! step's calls ran. Consuming `self` at the end means a message ends exactly once.

use strata_protocol::message::{AssistantMessage, ErrorInfo};
use strata_protocol::part::{PartData, StepFinish};

use super::parts::{ModelRef, finish_reason, tokens};
use super::record::Recorder;
use crate::provider::{FinishReason, Usage};
use crate::store::{Role, StoreError, now_ms};

/// One step attempt's assistant message.
#[derive(Debug)]
pub struct StepMessage {
    id: String,
    /// Boxed: a step's end carries it, beside the much smaller error case.
    data: Box<AssistantMessage>,
}

impl StepMessage {
    /// Records a new assistant message for `agent` answered by `model`, and its `step-start`.
    pub fn open(rec: &Recorder, agent: &str, model: &ModelRef) -> Result<Self, StoreError> {
        let data = AssistantMessage::new(now_ms(), agent, &model.provider_id, &model.model_id);
        let message = rec.message(Role::Assistant, &data)?;
        rec.part(&message.id, None, &PartData::StepStart)?;
        Ok(Self {
            id: message.id,
            data: Box::new(data),
        })
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// The response failed with error `name`; `retried` when a later attempt replaces this one,
    /// so the history sent to the model leaves it out.
    pub fn fail(
        mut self,
        rec: &Recorder,
        name: &str,
        message: &str,
        retried: bool,
    ) -> Result<(), StoreError> {
        self.data.time.completed = Some(now_ms());
        self.data.error = Some(ErrorInfo::new(name, message));
        self.data.retried = retried;
        rec.update_message(&self.id, &*self.data)?;
        Ok(())
    }

    /// The step is over (its calls ran): records why the model stopped, what it used and what
    /// that cost, on the message and in a `step-finish` part.
    pub fn finish(
        mut self,
        rec: &Recorder,
        reason: &FinishReason,
        usage: Option<Usage>,
        cost: f64,
    ) -> Result<(), StoreError> {
        let reason = finish_reason(reason);
        self.data.time.completed = Some(now_ms());
        self.data.finish = Some(reason.clone());
        self.data.tokens = tokens(usage);
        self.data.cost = cost;
        rec.update_message(&self.id, &*self.data)?;
        let finish = StepFinish {
            reason,
            cost,
            tokens: tokens(usage),
        };
        rec.part(&self.id, None, &finish.into())?;
        Ok(())
    }
}
