use std::path::PathBuf;

use strata_services::snapshot::Snapshots;
use tower_service::Service;

use crate::contract::{ToolError, ToolResult};
use crate::layers::CallCx;

/// Where to capture: the Snapshots service and the instance's worktree.
#[derive(Debug, Clone)]
pub struct Marker {
    pub snapshots: Snapshots,
    pub worktree: PathBuf,
}

/// See [`SnapshotLayer`](super::SnapshotLayer).
#[derive(Debug, Clone)]
pub struct MarkSnapshot<S> {
    inner: S,
    marker: Option<Marker>,
}

impl<S> MarkSnapshot<S> {
    pub fn new(inner: S, marker: Option<Marker>) -> Self {
        Self { inner, marker }
    }
}

impl<S, R> Service<R> for MarkSnapshot<S>
where
    S: Service<R, Response = ToolResult, Error = ToolError> + Clone + Send + 'static,
    S::Future: Send + 'static,
    R: CallCx + Send + 'static,
{
    crate::layers::tool_result_service!();

    fn call(&mut self, req: R) -> Self::Future {
        let marker = self
            .marker
            .clone()
            .filter(|m| m.snapshots.enabled() && !req.cx().message_id.is_empty());
        let Some(marker) = marker else {
            return Box::pin(self.inner.call(req));
        };
        // The inner service was polled ready; keep that one and leave a fresh clone behind.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(async move {
            let (session, message) = (req.cx().session_id.clone(), req.cx().message_id.clone());
            if let Err(e) = marker
                .snapshots
                .mark(&marker.worktree, &session, &message)
                .await
            {
                tracing::warn!(error = %e, session = %session, "no undo point for this step");
            }
            inner.call(req).await
        })
    }
}
