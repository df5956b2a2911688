//! Why a permission request did not end in "allowed". The messages are shown to the model.

use super::rules::Rule;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PermissionError {
    /// A configured `deny` rule matched; no one was asked.
    #[error(
        "This call is blocked by a permission rule in the configuration ({permission} on \"{pattern}\"). \
         Do not retry it; find another way or ask the user to change the rules. \
         Rules for this permission: {}",
        rules_json(.rules)
    )]
    Denied {
        permission: String,
        pattern: String,
        /// Every rule of the ruleset whose permission matches, in order.
        rules: Vec<Rule>,
    },
    /// The user said no to this call, with or without a note for the model.
    #[error("{}", rejected_message(.feedback))]
    Rejected { feedback: Option<String> },
    /// The call was cancelled while its request waited.
    #[error("The permission request was withdrawn because the tool call was cancelled.")]
    Cancelled,
    /// The instance closed while the request waited, or before it could be made.
    #[error(
        "The permission request could not be answered because the project instance was closed."
    )]
    Disposed,
    /// `reply` named a request that is not pending.
    #[error(
        "No pending permission request has id `{id}`; it may have been answered or cancelled already. \
         List pending requests to find a current id."
    )]
    NotFound { id: String },
}

impl PermissionError {
    /// Whether this error should end the agent's turn after the current step: a configured
    /// deny or a plain rejection. A rejection with feedback does not, so the model can act on
    /// the feedback.
    pub fn is_stop_turn(&self) -> bool {
        match self {
            PermissionError::Denied { .. } => true,
            PermissionError::Rejected { feedback } => feedback.is_none(),
            _ => false,
        }
    }
}

fn rules_json(rules: &[Rule]) -> String {
    serde_json::to_string(rules).unwrap_or_else(|_| "[]".into())
}

fn rejected_message(feedback: &Option<String>) -> String {
    match feedback {
        None => "The user declined to allow this tool call. Do not try it again unless the user \
                 asks for it."
            .to_string(),
        Some(feedback) => {
            format!("The user declined to allow this tool call and replied: {feedback}")
        }
    }
}
