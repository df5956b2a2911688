//! What flows in and out of the Question service: questions, pending requests, answers, events.

use serde::{Deserialize, Serialize};

// The questions and pending requests are the wire's own types, so front-ends show what the
// service emits without a conversion.
pub use strata_protocol::wire::{QuestionInfo, QuestionOption, QuestionRequest};

use crate::permission::ToolRef;

/// The labels chosen (or the text typed) for one question; empty when it went unanswered.
pub type Answer = Vec<String>;

/// What a caller asks: the questions of one call, for one session.
#[derive(Debug, Clone, PartialEq)]
pub struct AskQuestions {
    pub session_id: String,
    pub questions: Vec<QuestionInfo>,
    pub tool: Option<ToolRef>,
}

/// What the service announces; front-ends subscribe to show and answer questions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum QuestionEvent {
    /// A request waits for an answer (`question.asked`).
    #[serde(rename = "question.asked")]
    Asked(QuestionRequest),
    /// A request was answered (`question.replied`), one answer per question in order.
    #[serde(rename = "question.replied")]
    Replied {
        #[serde(rename = "sessionID")]
        session_id: String,
        #[serde(rename = "requestID")]
        request_id: String,
        answers: Vec<Answer>,
    },
    /// A request ended without answers (`question.rejected`): dismissed by the user, its call
    /// cancelled, or the instance closed. Front-ends should stop showing it.
    #[serde(rename = "question.rejected")]
    Rejected {
        #[serde(rename = "sessionID")]
        session_id: String,
        #[serde(rename = "requestID")]
        request_id: String,
    },
}
