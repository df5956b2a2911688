//! [`RunError`]: why a run could not go on.

use strata_registry::UnknownAgent;
use strata_services::permission::RuleConfigError;

use crate::store::StoreError;

/// Why a run could not go on (model failures are a [`RunOutcome`], not this).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    UnknownAgent(#[from] UnknownAgent),
    #[error("the permission rules in the configuration are invalid: {0}")]
    Rules(#[from] RuleConfigError),
    #[error("the model settings are invalid: {0}")]
    Catalogue(#[from] crate::catalogue::CatalogueError),
    #[error(
        "there is no earlier session in {} to continue; run without --continue to start one",
        dir.display()
    )]
    NothingToContinue { dir: std::path::PathBuf },
}
