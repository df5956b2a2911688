//! Why a question got no answer. The messages reach the model through the `question` tool.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuestionError {
    /// The user closed the question without answering.
    #[error(
        "The user dismissed the question without answering. Do not ask it again; stop here \
         and wait for the user's next message."
    )]
    Rejected,
    /// The call was cancelled while the question waited.
    #[error("The question was withdrawn because the tool call was cancelled.")]
    Cancelled,
    /// The instance closed while the question waited, or before it could be asked.
    #[error("The question could not be answered because the project instance was closed.")]
    Disposed,
    /// `reply` or `reject` named a request that is not pending.
    #[error(
        "No pending question has id `{id}`; it may have been answered, dismissed or cancelled \
         already. List the pending questions to find a current id."
    )]
    NotFound { id: String },
}
