use std::path::PathBuf;

use strata_services::snapshot::Snapshots;
use tower_layer::Layer;

use super::service::MarkSnapshot;

/// Where to capture: the Snapshots service and the instance's worktree.
#[derive(Debug, Clone)]
pub struct Marker {
    pub snapshots: Snapshots,
    pub worktree: PathBuf,
}

/// See the [module docs](super). `None` (a read-only tool) passes calls straight through.
#[derive(Debug, Clone)]
pub struct SnapshotLayer {
    marker: Option<Marker>,
}

impl SnapshotLayer {
    pub fn new(marker: Option<Marker>) -> Self {
        Self { marker }
    }
}

impl<S> Layer<S> for SnapshotLayer {
    type Service = MarkSnapshot<S>;

    fn layer(&self, inner: S) -> MarkSnapshot<S> {
        MarkSnapshot::new(inner, self.marker.clone())
    }
}
