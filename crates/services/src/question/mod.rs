//! Question: the agent asks the user and waits for the answer (spec §11).
//!
//! The `question` tool puts one request (several questions with their options) to the
//! [`Question`] service, which keeps it pending, announces it as `question.asked` and waits.
//! Whatever front-end is attached (the terminal of `strata run`, later the server) answers
//! with the chosen labels per question ([`Question::reply`]) or dismisses it
//! ([`Question::reject`]). Closing the instance rejects what is still pending. Events go out on
//! the service's own channel and, through the instance node, on the Bus.

mod error;
mod events;
mod service;

#[cfg(test)]
mod tests;

pub use error::QuestionError;
pub use events::{
    Answer, AskQuestions, QuestionEvent, QuestionInfo, QuestionOption, QuestionRequest,
};
pub use service::Question;
