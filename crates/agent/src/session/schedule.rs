//! The call scheduler's rule, pure: when may the next call of a step start?
//!
//! Calls start in the order the model made them. A concurrency-safe call (by its tool's
//! effects) may start as soon as its arguments are complete, even while the response is still
//! streaming, alongside other safe calls. A call that is not concurrency-safe starts only once
//! the response has ended and every earlier call has finished, and runs alone; the calls after
//! it wait for it. Once a result halts the turn (a refused permission, a fatal error, a
//! cancellation), the calls not yet started are skipped.
//!
//! Unsafe calls wait for the end of the response so that a response that breaks off (and is
//! retried) never leaves a command or an edit half-applied from a message the model will redo.

/// What to do with the first call waiting to start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Start it now.
    Start,
    /// Answer it without running it: an earlier result halted the turn.
    Skip,
    /// Leave it (and every call after it) waiting.
    Wait,
}

/// The state the rule looks at, kept by the step's call runner.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gate {
    /// The model's response is still arriving.
    pub streaming: bool,
    /// Calls started and not yet finished.
    pub running: usize,
    /// One of the running calls is not concurrency-safe (it must run alone).
    pub exclusive: bool,
    /// A result halted the turn.
    pub halted: bool,
    /// Safe calls wait for the end of the response too (the behaviour before calls were
    /// started early; kept for comparison and as an escape hatch).
    pub hold: bool,
}

impl Gate {
    /// A gate for a response that has just started streaming; `early` lets safe calls start
    /// before it ends.
    pub fn streaming(early: bool) -> Self {
        Gate {
            streaming: true,
            hold: !early,
            ..Gate::default()
        }
    }

    /// Whether the first waiting call, concurrency-safe or not, may start now.
    pub fn decide(&self, safe: bool) -> Decision {
        if self.halted {
            Decision::Skip
        } else if self.exclusive {
            Decision::Wait
        } else if safe && !(self.hold && self.streaming) {
            Decision::Start
        } else if self.streaming || self.running > 0 {
            Decision::Wait
        } else {
            Decision::Start
        }
    }

    /// A call started.
    pub fn started(&mut self, safe: bool) {
        self.running += 1;
        if !safe {
            self.exclusive = true;
        }
    }

    /// A call finished; `halts` says whether its result stops the turn.
    pub fn finished(&mut self, halts: bool) {
        self.running = self.running.saturating_sub(1);
        if self.running == 0 {
            self.exclusive = false;
        }
        self.halted |= halts;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_calls_start_while_streaming_and_side_by_side() {
        let mut g = Gate::streaming(true);
        assert_eq!(g.decide(true), Decision::Start);
        g.started(true);
        assert_eq!(g.decide(true), Decision::Start, "a second safe call joins");
    }

    #[test]
    fn a_held_gate_starts_nothing_before_the_response_ends() {
        let mut g = Gate::streaming(false);
        assert_eq!(g.decide(true), Decision::Wait);
        g.streaming = false;
        assert_eq!(g.decide(true), Decision::Start);
    }

    #[test]
    fn an_unsafe_call_waits_for_the_stream_and_for_earlier_calls() {
        let mut g = Gate::streaming(true);
        assert_eq!(g.decide(false), Decision::Wait, "the response is not over");
        g.started(true);
        g.streaming = false;
        assert_eq!(g.decide(false), Decision::Wait, "a safe call still runs");
        g.finished(false);
        assert_eq!(g.decide(false), Decision::Start);
    }

    #[test]
    fn nothing_runs_beside_an_unsafe_call() {
        let mut g = Gate::default();
        g.started(false);
        assert_eq!(g.decide(true), Decision::Wait);
        assert_eq!(g.decide(false), Decision::Wait);
        g.finished(false);
        assert_eq!(g.decide(true), Decision::Start);
    }

    #[test]
    fn a_halting_result_skips_what_has_not_started() {
        let mut g = Gate::streaming(true);
        g.started(true);
        g.started(true);
        g.finished(true);
        assert_eq!(g.decide(true), Decision::Skip);
        assert_eq!(g.decide(false), Decision::Skip);
        assert_eq!(g.running, 1, "the other call keeps running");
    }
}
