use std::path::PathBuf;

use strata_services::snapshot::Snapshots;
use tower_service::Service;

use crate::contract::{Decoded, ToolError, ToolResult};

/// Where to capture: the Snapshots service, the instance's worktree and the store's budget.
#[derive(Debug, Clone)]
pub struct Marker {
    pub snapshots: Snapshots,
    pub worktree: PathBuf,
    /// `snapshot.max_mb` in bytes: checked after each new undo point.
    pub max_bytes: u64,
}

/// Where an undo point goes, and from a call's parameters whether the call may change files;
/// `None` for a read-only tool.
pub type Undoable<P> = Option<(Marker, fn(&P) -> bool)>;

/// See [`SnapshotLayer`](super::SnapshotLayer).
#[derive(Debug)]
pub struct MarkSnapshot<S, P> {
    inner: S,
    marker: Undoable<P>,
}

impl<S: Clone, P> Clone for MarkSnapshot<S, P> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            marker: self.marker.clone(),
        }
    }
}

impl<S, P> MarkSnapshot<S, P> {
    pub fn new(inner: S, marker: Undoable<P>) -> Self {
        Self { inner, marker }
    }
}

impl<S, P> Service<Decoded<P>> for MarkSnapshot<S, P>
where
    S: Service<Decoded<P>, Response = ToolResult, Error = ToolError> + Clone + Send + 'static,
    S::Future: Send + 'static,
    P: Send + 'static,
{
    crate::layers::tool_result_service!();

    fn call(&mut self, req: Decoded<P>) -> Self::Future {
        let marker = self
            .marker
            .as_ref()
            .filter(|(m, writes)| {
                m.snapshots.enabled() && !req.cx.message_id.is_empty() && writes(&req.params)
            })
            .map(|(m, _)| m.clone());
        let Some(marker) = marker else {
            return Box::pin(self.inner.call(req));
        };
        // The inner service was polled ready; keep that one and leave a fresh clone behind.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(async move {
            let (session, message) = (req.cx.session_id.clone(), req.cx.message_id.clone());
            match marker
                .snapshots
                .mark(&marker.worktree, &session, &message)
                .await
            {
                Ok(Some(_)) => keep_in_budget(&marker).await,
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(error = %e, session = %session, "no undo point for this step");
                }
            }
            inner.call(req).await
        })
    }
}

/// Holds the store to `snapshot.max_mb`; a failure is logged, the tool still runs.
async fn keep_in_budget(marker: &Marker) {
    match marker
        .snapshots
        .enforce_budget(&marker.worktree, marker.max_bytes)
        .await
    {
        Ok(report) if report.collected => tracing::info!(
            bytes = report.bytes,
            pruned = report.pruned,
            "snapshot store collected to keep under snapshot.max_mb"
        ),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "could not keep the snapshot store in its budget"),
    }
}
