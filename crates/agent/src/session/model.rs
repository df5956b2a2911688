//! `Model`: the model a run talks to, as the resolver made it ready. Its own module so that the
//! runner, compaction and the small model all depend on it, not on each other.

use std::sync::Arc;

use crate::provider::Provider;

/// The model a run talks to.
#[derive(Debug, Clone)]
pub struct Model {
    /// `provider/model`, as the user named it (decides the tool surface).
    pub id: String,
    /// The model id sent to the API.
    pub api_model: String,
    pub provider: Arc<dyn Provider>,
}

impl Model {
    /// The model `id` as the resolver made it ready.
    pub fn resolved(id: impl Into<String>, resolved: crate::provider::Resolved) -> Self {
        Self {
            id: id.into(),
            api_model: resolved.api_model,
            provider: Arc::from(resolved.provider),
        }
    }
}
