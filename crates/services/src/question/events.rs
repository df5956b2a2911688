//! What flows in and out of the Question service: questions, pending requests, answers, events.

use serde::{Deserialize, Serialize};

use crate::permission::ToolRef;

/// One choice offered for a question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionOption {
    /// What the user picks (a few words); also what the answer carries.
    pub label: String,
    pub description: String,
}

/// One question as the user sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionInfo {
    pub question: String,
    /// A very short label for the question.
    pub header: String,
    pub options: Vec<QuestionOption>,
    /// Several options may be chosen.
    #[serde(default)]
    pub multiple: bool,
}

/// The labels chosen (or the text typed) for one question; empty when it went unanswered.
pub type Answer = Vec<String>;

/// What a caller asks: the questions of one call, for one session.
#[derive(Debug, Clone, PartialEq)]
pub struct AskQuestions {
    pub session_id: String,
    pub questions: Vec<QuestionInfo>,
    pub tool: Option<ToolRef>,
}

/// A request waiting for an answer, as front-ends see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionRequest {
    /// `que_…`, unique in the process.
    pub id: String,
    #[serde(rename = "sessionID")]
    pub session_id: String,
    pub questions: Vec<QuestionInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
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
