//! What the core refuses or fails at; the HTTP layer maps each to opencode's error body.

use strata_agent::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("{what} `{id}` was not found; list them to find a current id")]
    NotFound { what: &'static str, id: String },
    #[error("{0}")]
    BadRequest(String),
    /// A reply named a request that is not waiting for one (answered, withdrawn, or never
    /// made): the reply is refused, never applied to something else.
    #[error(
        "{what} `{id}` is not pending: it was already answered, withdrawn when its call was \
         cancelled, or never existed. Nothing was changed; list the pending requests to find a \
         current id"
    )]
    NotPending { what: &'static str, id: String },
    #[error("session `{0}` is busy with a turn; wait for it to finish or abort it first")]
    Busy(String),
    #[error("the server could not start: {0}")]
    Start(String),
    #[error("the project {dir} could not be opened: {detail}")]
    Instance { dir: String, detail: String },
    #[error("the server is shutting down; retry against a running server")]
    ShuttingDown,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Internal(String),
}

impl CoreError {
    pub(crate) fn not_found(what: &'static str, id: &str) -> Self {
        CoreError::NotFound {
            what,
            id: id.to_string(),
        }
    }
}
