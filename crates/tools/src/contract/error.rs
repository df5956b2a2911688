//! `ToolError`: model-facing errors (the model can act on them) versus fatal ones.

use strata_services::file_time::FileTimeError;
use strata_services::fs::FsError;
use strata_services::permission::PermissionError;

/// How a call failed. The message of every variant is what the model sees.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// Bad input, missing file, no match: the model can fix its call.
    #[error("{0}")]
    Model(String),
    /// The arguments did not decode into the tool's parameters.
    #[error(
        "The `{tool}` tool received arguments it cannot use: {detail}. Send the call again with \
         arguments that fit the tool's schema."
    )]
    InvalidArguments { tool: String, detail: String },
    /// A rule denied the call or the user rejected it; the loop stops after this step.
    #[error("{0}")]
    Permission(#[from] PermissionError),
    /// The user dismissed a question instead of answering; like a rejected permission, the
    /// loop stops after this step.
    #[error("{0}")]
    Dismissed(String),
    /// The turn cannot go on (a service broke underneath the tool).
    #[error("{0}")]
    Fatal(String),
    /// The call's cancellation token fired.
    #[error("The call was cancelled before it finished.")]
    Cancelled,
}

impl ToolError {
    pub fn model(msg: impl Into<String>) -> Self {
        ToolError::Model(msg.into())
    }

    pub fn fatal(msg: impl Into<String>) -> Self {
        ToolError::Fatal(msg.into())
    }

    /// Whether the loop should stop after the current step.
    pub fn stops_turn(&self) -> bool {
        matches!(
            self,
            ToolError::Permission(_)
                | ToolError::Dismissed(_)
                | ToolError::Fatal(_)
                | ToolError::Cancelled
        )
    }
}

/// A filesystem failure is the model's to act on: its message names the path and what to try.
impl From<FsError> for ToolError {
    fn from(e: FsError) -> Self {
        ToolError::model(e.to_string())
    }
}

/// A missing or stale read (spec §18 a): the model reads the file again, then retries.
impl From<FileTimeError> for ToolError {
    fn from(e: FileTimeError) -> Self {
        ToolError::model(e.to_string())
    }
}
