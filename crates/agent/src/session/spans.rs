//! The loop's tracing spans, exported over OTLP when the CLI enables it: a session turn
//! (`Session.turn`), each model step (`Session.step`) and its model request (`Model.request`).
//! The tools' own `Tool.execute` spans nest under the step that ran them.

use tracing::{Span, info_span};

use super::parts::ModelRef;

/// One `Runner::run`: a user message and every step it took.
pub(crate) fn turn(session_id: &str, agent: &str, model: &str) -> Span {
    info_span!(
        "Session.turn",
        session.id = %session_id,
        agent = %agent,
        model = %model,
    )
}

/// Step `n` (1-based) of a turn: the model request and the calls it asked for.
pub(crate) fn step(session_id: &str, n: u32) -> Span {
    info_span!("Session.step", session.id = %session_id, step = n)
}

/// The streamed request to the model.
pub(crate) fn model_request(session_id: &str, model: &ModelRef) -> Span {
    info_span!(
        "Model.request",
        session.id = %session_id,
        gen_ai.system = %model.provider_id,
        gen_ai.request.model = %model.model_id,
    )
}
