use tower_layer::Layer;

use super::service::{MarkSnapshot, Marker};

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
