//! `StepAccumulator`: turns one model response's stream events into part changes. Text
//! deltas are gathered into text parts (a new part when text resumes after a tool call), and
//! reasoning deltas into reasoning parts (closed by the provider's end of the block, or by
//! whatever comes next);
//! tool-call argument deltas are gathered per call id, and a call becomes runnable only when the
//! provider says its JSON is complete. Pure: no I/O, no clock; the step driver writes the
//! changes to the store.
//!
//! The accumulator's slots are the step's one call table, keyed by call id: a call's name,
//! its arguments so far, whether it is ready, and the id of the part that records it.

use crate::provider::{FinishReason, ReasoningItem, StreamEvent, ToolCall, Usage};

/// What the driver must record after an event.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// A text part starts.
    TextOpened,
    /// More text for the open part.
    TextDelta(String),
    /// The open text part is complete with this text.
    TextClosed(String),
    /// A reasoning part starts.
    ReasoningOpened,
    /// The open reasoning part is complete; `signature`, `redacted` or `item` is what the
    /// provider needs to accept it back.
    ReasoningClosed {
        text: String,
        signature: Option<String>,
        redacted: Option<String>,
        item: Option<ReasoningItem>,
    },
    /// A tool part starts, pending.
    CallStarted { id: String, name: String },
    /// The call's JSON is complete: it may run.
    CallReady(ToolCall),
    /// The response ended normally.
    Finished {
        reason: FinishReason,
        usage: Option<Usage>,
    },
}

/// One call of the step, from its first fragment on.
#[derive(Debug)]
struct Slot {
    id: String,
    name: String,
    raw: String,
    ready: Option<ToolCall>,
    /// The stored part recording the call, once the driver wrote it.
    part_id: Option<String>,
}

/// The state of one response being streamed.
#[derive(Debug, Default)]
pub struct StepAccumulator {
    open_text: Option<String>,
    open_reasoning: Option<String>,
    texts: Vec<String>,
    calls: Vec<Slot>,
}

impl StepAccumulator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one stream event.
    pub fn push(&mut self, event: StreamEvent) -> Vec<Change> {
        match event {
            StreamEvent::ReasoningDelta(delta) => self.reasoning_delta(delta),
            StreamEvent::ReasoningEnd { signature, item } => self.reasoning_end(signature, item),
            StreamEvent::RedactedReasoning(data) => {
                let mut out = self.close_open();
                out.push(Change::ReasoningOpened);
                out.push(Change::ReasoningClosed {
                    text: String::new(),
                    signature: None,
                    redacted: Some(data),
                    item: None,
                });
                out
            }
            StreamEvent::TextDelta(delta) => self.text_delta(delta),
            StreamEvent::ToolCallStarted { id, name } => self.start_call(id, name),
            StreamEvent::ToolCallDelta { id, delta } => {
                if let Some(slot) = self.slot(&id) {
                    slot.raw.push_str(&delta);
                }
                Vec::new()
            }
            StreamEvent::ToolCallReady(call) => self.call_ready(call),
            StreamEvent::Finish { reason, usage } => {
                let mut out = self.close_open();
                out.push(Change::Finished { reason, usage });
                out
            }
        }
    }

    /// Closes the open reasoning part, then the open text part.
    fn close_open(&mut self) -> Vec<Change> {
        let mut out: Vec<Change> = self.close_reasoning().into_iter().collect();
        out.extend(self.close_text());
        out
    }

    fn reasoning_delta(&mut self, delta: String) -> Vec<Change> {
        if delta.is_empty() {
            return Vec::new();
        }
        let mut out: Vec<Change> = self.close_text().into_iter().collect();
        match &mut self.open_reasoning {
            Some(text) => text.push_str(&delta),
            None => {
                out.push(Change::ReasoningOpened);
                self.open_reasoning = Some(delta);
            }
        }
        out
    }

    fn reasoning_end(
        &mut self,
        signature: Option<String>,
        item: Option<ReasoningItem>,
    ) -> Vec<Change> {
        let mut out = Vec::new();
        let text = match self.open_reasoning.take() {
            Some(text) => text,
            // A signed block (or an item) with no visible text must still be sent back; it
            // starts a part of its own, so the text before it ends first.
            None if signature.is_some() || item.is_some() => {
                out.extend(self.close_text());
                out.push(Change::ReasoningOpened);
                String::new()
            }
            None => return out,
        };
        out.push(Change::ReasoningClosed {
            text,
            signature,
            redacted: None,
            item,
        });
        out
    }

    fn text_delta(&mut self, delta: String) -> Vec<Change> {
        if delta.is_empty() {
            return Vec::new();
        }
        let mut out: Vec<Change> = self.close_reasoning().into_iter().collect();
        match &mut self.open_text {
            Some(text) => text.push_str(&delta),
            None => {
                out.push(Change::TextOpened);
                self.open_text = Some(delta.clone());
            }
        }
        out.push(Change::TextDelta(delta));
        out
    }

    /// A call's first fragment: the open parts end and the call gets its slot (once).
    fn start_call(&mut self, id: String, name: String) -> Vec<Change> {
        let mut out = self.close_open();
        if self.slot(&id).is_none() {
            self.calls.push(Slot {
                id: id.clone(),
                name: name.clone(),
                raw: String::new(),
                ready: None,
                part_id: None,
            });
            out.push(Change::CallStarted { id, name });
        }
        out
    }

    fn call_ready(&mut self, call: ToolCall) -> Vec<Change> {
        // A provider that announces a call only when it is whole starts it here.
        let mut out = if self.slot(&call.id).is_none() {
            self.start_call(call.id.clone(), call.name.clone())
        } else {
            Vec::new()
        };
        if let Some(slot) = self.slot(&call.id)
            && slot.ready.is_none()
        {
            slot.raw.clone_from(&call.arguments);
            slot.ready = Some(call.clone());
            out.push(Change::CallReady(call));
        }
        out
    }

    /// Ends the open text part, if any (the stream finished, failed or moved on to a call).
    pub fn close_text(&mut self) -> Option<Change> {
        let text = self.open_text.take()?;
        self.texts.push(text.clone());
        Some(Change::TextClosed(text))
    }

    /// Ends the open reasoning part, unsigned (the stream moved on, finished or failed).
    pub fn close_reasoning(&mut self) -> Option<Change> {
        let text = self.open_reasoning.take()?;
        Some(Change::ReasoningClosed {
            text,
            signature: None,
            redacted: None,
            item: None,
        })
    }

    /// Calls whose JSON is complete, in the order the model started them.
    pub fn ready_calls(&self) -> Vec<ToolCall> {
        self.calls.iter().filter_map(|c| c.ready.clone()).collect()
    }

    /// Calls started but never complete: `(id, name, raw arguments so far)`.
    pub fn unfinished_calls(&self) -> Vec<(String, String, String)> {
        self.calls
            .iter()
            .filter(|c| c.ready.is_none())
            .map(|c| (c.id.clone(), c.name.clone(), c.raw.clone()))
            .collect()
    }

    /// Records the id of the part that stores call `call_id`.
    pub fn set_part(&mut self, call_id: &str, part_id: String) {
        if let Some(slot) = self.slot(call_id) {
            slot.part_id = Some(part_id);
        }
    }

    /// The id of the part that stores call `call_id`, once set.
    pub fn part_of(&self, call_id: &str) -> Option<&str> {
        self.calls
            .iter()
            .find(|c| c.id == call_id)
            .and_then(|c| c.part_id.as_deref())
    }

    /// Ready calls that have their part, with its id, in the order the model started them.
    pub fn ready_with_parts(&self) -> Vec<(ToolCall, String)> {
        self.calls
            .iter()
            .filter_map(|c| Some((c.ready.clone()?, c.part_id.clone()?)))
            .collect()
    }

    /// Every text part of the response so far, joined.
    pub fn text(&self) -> String {
        let mut all = self.texts.join("");
        if let Some(open) = &self.open_text {
            all.push_str(open);
        }
        all
    }

    fn slot(&mut self, id: &str) -> Option<&mut Slot> {
        self.calls.iter_mut().find(|c| c.id == id)
    }
}

#[cfg(test)]
#[path = "accumulate_tests.rs"]
mod tests;
