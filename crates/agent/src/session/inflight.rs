//! `InFlight`: a step's calls from the moment their arguments are complete, while the rest of
//! the response may still be streaming. The step offers each ready call as it arrives; the
//! [`Gate`](super::schedule::Gate) decides which may start (concurrency-safe calls at once,
//! others after the response and alone); the step polls the running calls beside the stream,
//! and the runner waits for the rest with [`InFlight::finish`]. Results come back in the
//! model's order.

use std::collections::{HashSet, VecDeque};

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;

use super::execute::{self, CallEnv, CallOutcome, Prepared};
use super::schedule::{Decision, Gate};
use crate::provider::ToolCall;
use crate::store::StoreError;

/// The answer recorded for a call skipped after an earlier call stopped the turn.
pub const SKIPPED: &str =
    "Not run: an earlier call in this step was refused, so the turn stopped here.";

type CallResult = Result<CallOutcome, StoreError>;

/// The calls of one step: waiting, running and finished.
pub struct InFlight<'a> {
    env: &'a CallEnv<'a>,
    message_id: String,
    /// One slot per call offered, in the model's order; filled when the call ends.
    results: Vec<Option<CallResult>>,
    /// Calls offered and not started: `(slot, call)`.
    waiting: VecDeque<(usize, Prepared)>,
    running: FuturesUnordered<BoxFuture<'a, (usize, CallResult)>>,
    /// Ids of the calls that were started (or skipped): their parts have their own states.
    handled: HashSet<String>,
    gate: Gate,
    /// The step broke off: nothing more starts.
    closed: bool,
    /// The step's span: calls run under it even when started while a model request streams.
    span: tracing::Span,
}

impl std::fmt::Debug for InFlight<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InFlight")
            .field("message_id", &self.message_id)
            .field("offered", &self.results.len())
            .field("waiting", &self.waiting.len())
            .field("gate", &self.gate)
            .finish_non_exhaustive()
    }
}

impl<'a> InFlight<'a> {
    /// The calls of the step whose message is `message_id`, while its response streams.
    pub fn new(env: &'a CallEnv<'a>, message_id: &str) -> Self {
        Self {
            env,
            message_id: message_id.to_string(),
            results: Vec::new(),
            waiting: VecDeque::new(),
            running: FuturesUnordered::new(),
            handled: HashSet::new(),
            gate: Gate::streaming(env.early_calls),
            closed: false,
            span: tracing::Span::current(),
        }
    }

    /// A call's arguments are complete (its part is `part_id`): it starts if the gate allows.
    pub fn offer(&mut self, call: &ToolCall, part_id: &str) -> Result<(), StoreError> {
        let prepared = execute::prepare(self.env, &self.message_id, part_id, call);
        self.waiting.push_back((self.results.len(), prepared));
        self.results.push(None);
        self.pump()
    }

    /// Whether the call with this id was started or answered here.
    pub fn handled(&self, call_id: &str) -> bool {
        self.handled.contains(call_id)
    }

    /// The next running call to end, recorded; `None` when none is running. Calls that may
    /// start after it are started.
    pub async fn next_done(&mut self) -> Option<Result<(), StoreError>> {
        let (slot, result) = self.running.next().await?;
        Some(self.done(slot, result))
    }

    /// The response ended normally: runs every remaining call and returns the results in the
    /// model's order.
    pub async fn finish(mut self) -> Result<Vec<CallOutcome>, StoreError> {
        self.gate.streaming = false;
        self.pump()?;
        while let Some(done) = self.next_done().await {
            done?;
        }
        // The gate leaves nothing waiting once nothing runs; a slot still empty here would be a
        // bug, answered as skipped rather than lost.
        let env = self.env;
        while let Some((slot, p)) = self.waiting.pop_front() {
            self.results[slot] = Some(execute::refuse(env, p, SKIPPED));
        }
        self.results.into_iter().flatten().collect()
    }

    /// The response broke off: nothing more starts, and the calls already running are waited
    /// for, so their parts end in a final state. The ones never started are left to the caller.
    pub async fn settle(&mut self) -> Result<(), StoreError> {
        self.closed = true;
        while let Some(done) = self.next_done().await {
            done?;
        }
        Ok(())
    }

    fn done(&mut self, slot: usize, result: CallResult) -> Result<(), StoreError> {
        let halts = result.as_ref().map_or(true, |o| o.end.stops_turn());
        self.gate.finished(halts);
        self.results[slot] = Some(result);
        self.pump()
    }

    /// Starts (or skips) waiting calls from the front for as long as the gate allows.
    fn pump(&mut self) -> Result<(), StoreError> {
        let env = self.env;
        while !self.closed {
            let Some((_, front)) = self.waiting.front() else {
                break;
            };
            let safe = front.concurrency_safe();
            let decision = self.gate.decide(safe);
            if decision == Decision::Wait {
                break;
            }
            let Some((slot, p)) = self.waiting.pop_front() else {
                break;
            };
            self.handled.insert(p.call_id().to_string());
            if decision == Decision::Skip {
                self.results[slot] = Some(Ok(execute::refuse(env, p, SKIPPED)?));
                continue;
            }
            self.gate.started(safe);
            let call = execute::execute(env, p);
            let call = tracing::Instrument::instrument(call, self.span.clone());
            self.running
                .push(Box::pin(async move { (slot, call.await) }));
        }
        Ok(())
    }
}
